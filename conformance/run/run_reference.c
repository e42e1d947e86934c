/* The reference side of one case (run.h): the status query of the case (its tensors and its
 * parameters as they are, by the indices the driver and the reference share), and ref_case on
 * it. */
#include "run.h"

#include <string.h>

#include "op_driver.h"

ref_status_query cts_status_query(const cts_case *c)
{
    ref_status_query q;
    memset(&q, 0, sizeof q);
    q.op = c->op->ref_op;
    q.product = c->product;
    q.spec = c->spec;
    q.deterministic = c->deterministic;
    for (int i = 0; i < c->ntensors && i < REF_MAX_SLOTS; i++) {
        const cts_tensor *t = &c->t[i];
        q.t[i].present = !t->null;
        q.t[i].dtype = t->dtype;
        q.t[i].format = t->format;
        q.t[i].rank = t->rank;
        for (int k = 0; k < t->rank && k < REF_MAX_DIMS; k++) q.t[i].dims[k] = t->dims[k];
    }
    /* the parameters by the driver's indices, which are the reference's (reference_<op>.h) */
    for (int i = 0; i < c->op->nparams && i < REF_MAX_PARAMS; i++) {
        const cts_param *p = &c->param[i];
        q.p[i].present = !p->null;
        q.p[i].len = p->len;
        q.p[i].real = p->real;
        for (int k = 0; k < p->len && k < REF_MAX_DIMS; k++) q.p[i].values[k] = p->v[k];
    }
    return q;
}

/* The request of case c: its dtype chooses the path; the documented-path policy asks for the
 * answers of the documented operands. */
static ref_case_request request(const cts_case *c)
{
    return (ref_case_request){.dtype = c->dtype,
                              .documented = c->tolerance.kind == CTS_TOL_DOCUMENTED};
}

void cts_case_plan(const cts_case *c, ref_case_answer *a)
{
    ref_status_query q = cts_status_query(c);
    ref_case_request r = request(c);
    (void)ref_case(&q, &r, a);
}

int cts_case_answers(const cts_case *c, const double *const in[], ref_chunk_fn fn, void *ctx,
                     ref_case_answer *a)
{
    ref_status_query q = cts_status_query(c);
    ref_case_request r = request(c);
    r.inputs = in;
    r.chunk = fn;
    r.ctx = ctx;
    return ref_case(&q, &r, a);
}

int cts_case_answers_batches(const cts_case *c, int64_t batches, int slot,
                             const double *const in[], ref_chunk_fn fn, void *ctx,
                             ref_case_answer *a)
{
    ref_status_query q = cts_status_query(c);
    for (int i = 0; i < REF_MAX_SLOTS; i++)
        if (q.t[i].present && q.t[i].rank > 0) q.t[i].dims[0] = batches;
    ref_case_request r = request(c);
    r.inputs = in;
    r.chunk = fn;
    r.ctx = ctx;
    r.slots = 1u << slot;
    return ref_case(&q, &r, a);
}

/* ref_case: a case's plan (expected status, path, outputs, memory) and its answers streamed in
 * chunks, from the query alone, through the operator's entry of the model table. */
#include <errno.h>
#include <string.h>

#include "ref_internal.h"

static int stream(const ref_model *m, const ref_status_query *q, const ref_case_request *r,
                  ref_case_answer *a, int64_t step)
{
    ref_sink s = {r->chunk, r->ctx, step};
    ref_options opt = {.threads = r->threads, .path = a->path};
    int64_t numel = 0;
    for (int slot = 0; slot < REF_MAX_SLOTS; slot++) numel += a->numel[slot];
    if (opt.threads == 0 && numel < REF_SERIAL_BELOW)
        opt.threads = 1; /* waking a thread team costs more than such an answer */
    ref_case_answer want = *a; /* the outputs asked for (r->slots) */
    bool any = false;
    for (int slot = 0; slot < REF_MAX_SLOTS; slot++) {
        if (r->slots && !(r->slots >> slot & 1u)) want.computed[slot] = false;
        any |= want.computed[slot];
    }
    int rc = any ? m->stream(q, &want, r->inputs, r->documented, &opt, &s) : 0;
    a->fast_hits = opt.fast_hits;
    a->mpfr_fallbacks = opt.mpfr_fallbacks;
    return rc;
}

int ref_case(const ref_status_query *q, const ref_case_request *r, ref_case_answer *a)
{
    memset(a, 0, sizeof *a);
    a->status = ref_expected_status(q);
    const ref_model *m = ref_model_of(q->op);
    if (!m) return -1;
    a->path = m->path(q, r->dtype);
    a->judge = r->documented && m->documented_judge ? m->documented_judge(&a->path) : a->path;
    for (int slot = 0; slot < REF_MAX_SLOTS; slot++) {
        a->computed[slot] = m->computed(q, slot);
        if (a->computed[slot]) a->numel[slot] = m->numel(q, slot);
    }
    int64_t step = r->chunk_elems > 0 ? r->chunk_elems
                   : m->chunk_elems > 0 ? m->chunk_elems
                                        : REF_CHUNK_ELEMS;
    a->work_bytes = m->work_bytes(q, a, step);
    if (!r->inputs || !r->chunk) return 0;
    errno = 0;
    return stream(m, q, r, a, step);
}

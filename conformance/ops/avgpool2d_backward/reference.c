/* What the reference needs of an aclnnAvgPool2dBackward case: the status query's operator part,
 * the geometry and parameters, the computation path (cubeMathType's), and the exact answers. */
#include "avgpool2d_backward.h"

#include <string.h>

static ref_int_array_desc int_array(const cts_param *a)
{
    ref_int_array_desc d = {.present = !a->null, .len = a->len};
    for (int i = 0; i < a->len && i < REF_MAX_DIMS; i++) d.values[i] = a->v[i];
    return d;
}

void avgpool2d_backward_status_query(const cts_case *c, ref_status_query *q)
{
    q->kernel_size = int_array(&c->param[AVG_KERNEL_SIZE]);
    q->stride = int_array(&c->param[AVG_STRIDE]);
    q->padding = int_array(&c->param[AVG_PADDING]);
    q->ceil_mode = cts_param_bool(c, AVG_CEIL_MODE);
    q->count_include_pad = cts_param_bool(c, AVG_COUNT_INCLUDE_PAD);
    q->divisor_override = cts_param_int(c, AVG_DIVISOR_OVERRIDE);
    q->cube_math_type = cts_param_int(c, AVG_CUBE_MATH_TYPE);
}

/* Axis value of a length-1-or-2 array: length 1 means both axes; empty means `dflt`. */
static int64_t axis(const cts_param *a, int i, int64_t dflt)
{
    if (a->null || a->len == 0) return dflt;
    return a->len > i ? a->v[i] : a->v[0];
}

void avgpool2d_backward_ref_params(const cts_case *c, ref_avgpool_params *p)
{
    memset(p, 0, sizeof *p);
    const cts_tensor *self = &c->t[AVG_SELF], *go = &c->t[AVG_GRAD_OUTPUT];
    int r = self->rank;
    /* Ranks the operator refuses (error cases) have no geometry: it stays 0, never dims[-1]. */
    if (r >= 3) {
        p->n = r == 4 ? self->dims[0] : 1;
        p->c = self->dims[r - 3];
        p->h = self->dims[r - 2];
        p->w = self->dims[r - 1];
    }
    if (go->rank >= 2) {
        p->oh = go->dims[go->rank - 2];
        p->ow = go->dims[go->rank - 1];
    }
    p->kh = axis(&c->param[AVG_KERNEL_SIZE], 0, 1);
    p->kw = axis(&c->param[AVG_KERNEL_SIZE], 1, 1);
    p->sh = axis(&c->param[AVG_STRIDE], 0, p->kh); /* null or empty stride means the kernel */
    p->sw = axis(&c->param[AVG_STRIDE], 1, p->kw);
    p->ph = axis(&c->param[AVG_PADDING], 0, 0);
    p->pw = axis(&c->param[AVG_PADDING], 1, 0);
    p->ceil_mode = cts_param_bool(c, AVG_CEIL_MODE);
    p->count_include_pad = cts_param_bool(c, AVG_COUNT_INCLUDE_PAD);
    p->divisor_override = cts_param_int(c, AVG_DIVISOR_OVERRIDE);
}

ref_path avgpool2d_backward_documented_path(const cts_case *c)
{
    ref_avgpool_params p;
    avgpool2d_backward_ref_params(c, &p);
    return ref_avgpool_path(c->product, &p, c->dtype, (int)cts_param_int(c, AVG_CUBE_MATH_TYPE));
}

ref_path avgpool2d_backward_path(const cts_case *c)
{
    if (c->spec == REF_SPEC_DOC)
        return avgpool2d_backward_documented_path(c);
    /* the vendor's lowering (docs/contract.md "Numerics") */
    ref_avgpool_params p;
    avgpool2d_backward_ref_params(c, &p);
    return ref_avgpool_vendor_path(c->spec, c->product, &p, c->dtype,
                                   (int)cts_param_int(c, AVG_CUBE_MATH_TYPE));
}

bool avgpool2d_backward_output_computed(const cts_case *c, int slot)
{
    (void)c;
    return slot == AVG_GRAD_INPUT;
}

int avgpool2d_backward_reference(const cts_case *c, const ref_path *path, double *const in[],
                                 ref_output out[])
{
    ref_avgpool_params p;
    avgpool2d_backward_ref_params(c, &p);
    /* documented-path: the exact value of the documented operand rounding (honoured) */
    if (c->tolerance.kind == CTS_TOL_DOCUMENTED)
        return ref_avgpool2d_backward_documented(&p, in[AVG_GRAD_OUTPUT], path,
                                                 &out[AVG_GRAD_INPUT]);
    ref_options opt;
    memset(&opt, 0, sizeof opt);
    opt.path = *path;
    return ref_avgpool2d_backward(&p, in[AVG_GRAD_OUTPUT], &opt, &out[AVG_GRAD_INPUT]);
}

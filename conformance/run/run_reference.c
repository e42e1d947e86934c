/* The reference side of one case (run.h). */
#include "run.h"

#include <string.h>

static ref_int_array_desc int_array(const cts_int_array *a)
{
    ref_int_array_desc d = {.present = !a->null, .len = a->len};
    for (int i = 0; i < a->len && i < REF_MAX_DIMS; i++) d.values[i] = a->v[i];
    return d;
}

ref_status_query cts_status_query(const cts_case *c)
{
    ref_status_query q;
    memset(&q, 0, sizeof q);
    q.op = c->op;
    q.product = c->product;
    q.spec = c->spec;
    for (int i = 0; i < c->ntensors && i < 5; i++) {
        const cts_tensor *t = &c->t[i];
        q.t[i].present = !t->null;
        q.t[i].dtype = t->dtype;
        q.t[i].format = t->format;
        q.t[i].rank = t->rank;
        for (int k = 0; k < t->rank && k < REF_MAX_DIMS; k++) q.t[i].dims[k] = t->dims[k];
    }
    q.kernel_size = int_array(&c->kernel_size);
    q.stride = int_array(&c->stride);
    q.padding = int_array(&c->padding);
    q.ceil_mode = c->ceil_mode;
    q.count_include_pad = c->count_include_pad;
    q.divisor_override = c->divisor_override;
    q.cube_math_type = c->cube_math_type;
    q.interpolation_mode = c->interpolation_mode;
    q.padding_mode = c->padding_mode;
    q.align_corners = c->align_corners;
    q.output_mask_present = !c->output_mask_null;
    q.output_mask_len = c->output_mask_len;
    for (int i = 0; i < c->output_mask_len && i < REF_MAX_DIMS; i++)
        q.output_mask[i] = c->output_mask[i];
    return q;
}

/* Axis value of a length-1-or-2 array: length 1 means both axes; empty means `dflt`. */
static int64_t axis(const cts_int_array *a, int i, int64_t dflt)
{
    if (a->null || a->len == 0) return dflt;
    return a->len > i ? a->v[i] : a->v[0];
}

void cts_avgpool_params(const cts_case *c, ref_avgpool_params *p)
{
    memset(p, 0, sizeof *p);
    const cts_tensor *self = &c->t[1], *go = &c->t[0];
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
    p->kh = axis(&c->kernel_size, 0, 1);
    p->kw = axis(&c->kernel_size, 1, 1);
    p->sh = axis(&c->stride, 0, p->kh); /* null or empty stride means stride = kernel */
    p->sw = axis(&c->stride, 1, p->kw);
    p->ph = axis(&c->padding, 0, 0);
    p->pw = axis(&c->padding, 1, 0);
    p->ceil_mode = c->ceil_mode;
    p->count_include_pad = c->count_include_pad;
    p->divisor_override = c->divisor_override;
}

void cts_grid_params(const cts_case *c, ref_grid_params *p)
{
    memset(p, 0, sizeof *p);
    const cts_tensor *in = &c->t[1], *grid = &c->t[2];
    p->n = in->dims[0];
    p->c = in->dims[1];
    p->h_in = in->dims[2];
    p->w_in = in->dims[3];
    p->h_out = grid->dims[1];
    p->w_out = grid->dims[2];
    p->interpolation = (ref_interp)c->interpolation_mode;
    p->padding = (ref_padding)c->padding_mode;
    p->align_corners = c->align_corners;
}

ref_path cts_case_path(const cts_case *c)
{
    if (c->op == REF_OP_GRID_SAMPLER2D_BACKWARD) return ref_grid_path(c->dtype);
    ref_avgpool_params p;
    cts_avgpool_params(c, &p);
    if (c->spec != REF_SPEC_DOC) /* the vendor's lowering (docs/contract.md "Numerics") */
        return ref_avgpool_vendor_path(c->spec, c->product, &p, c->dtype, (int)c->cube_math_type);
    return ref_avgpool_path(c->product, &p, c->dtype, (int)c->cube_math_type);
}

/* documented-path on avg-pool: the reference of the documented operand rounding (honoured) */
static bool documented(const cts_case *c)
{
    return c->tolerance.kind == CTS_TOL_DOCUMENTED && c->op == REF_OP_AVGPOOL2D_BACKWARD;
}

ref_path cts_judge_path(const cts_case *c, const ref_path *path)
{
    return documented(c) ? ref_documented_judge_path(path) : *path;
}

bool cts_output_computed(const cts_case *c, int slot)
{
    if (c->op == REF_OP_AVGPOOL2D_BACKWARD) return slot == 2;
    if (c->output_mask_null || slot < 3) return false;
    return c->output_mask_len > slot - 3 && c->output_mask[slot - 3];
}

int cts_reference_outputs(const cts_case *c, const ref_path *path, double *const in[],
                          ref_output out[])
{
    ref_options opt;
    memset(&opt, 0, sizeof opt);
    opt.path = *path;
    if (c->op == REF_OP_AVGPOOL2D_BACKWARD) {
        ref_avgpool_params p;
        cts_avgpool_params(c, &p);
        if (documented(c)) return ref_avgpool2d_backward_documented(&p, in[0], path, &out[2]);
        return ref_avgpool2d_backward(&p, in[0], &opt, &out[2]);
    }
    ref_grid_params p;
    cts_grid_params(c, &p);
    return ref_grid_sampler2d_backward(&p, in[0], in[1], in[2], &opt,
                                       cts_output_computed(c, 3) ? &out[3] : NULL,
                                       cts_output_computed(c, 4) ? &out[4] : NULL);
}

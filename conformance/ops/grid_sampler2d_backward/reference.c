/* What the reference needs of an aclnnGridSampler2DBackward case: the status query's operator
 * part, the geometry and modes, the computation path (always vector), and the exact answers of
 * the outputs outputMask asks for. */
#include "grid_sampler2d_backward.h"

#include <string.h>

void grid_sampler2d_backward_status_query(const cts_case *c, ref_status_query *q)
{
    const cts_param *mask = &c->param[GRID_OUTPUT_MASK];
    q->interpolation_mode = cts_param_int(c, GRID_INTERPOLATION_MODE);
    q->padding_mode = cts_param_int(c, GRID_PADDING_MODE);
    q->align_corners = cts_param_bool(c, GRID_ALIGN_CORNERS);
    q->output_mask_present = !mask->null;
    q->output_mask_len = mask->len;
    for (int i = 0; i < mask->len && i < REF_MAX_DIMS; i++) q->output_mask[i] = mask->v[i] != 0;
}

void grid_sampler2d_backward_ref_params(const cts_case *c, ref_grid_params *p)
{
    memset(p, 0, sizeof *p);
    const cts_tensor *in = &c->t[GRID_INPUT], *grid = &c->t[GRID_GRID];
    p->n = in->dims[0];
    p->c = in->dims[1];
    p->h_in = in->dims[2];
    p->w_in = in->dims[3];
    p->h_out = grid->dims[1];
    p->w_out = grid->dims[2];
    p->interpolation = (ref_interp)cts_param_int(c, GRID_INTERPOLATION_MODE);
    p->padding = (ref_padding)cts_param_int(c, GRID_PADDING_MODE);
    p->align_corners = cts_param_bool(c, GRID_ALIGN_CORNERS);
}

ref_path grid_sampler2d_backward_path(const cts_case *c)
{
    return ref_grid_path(c->dtype);
}

/* Its outputMask entry; a missing entry is false. */
bool grid_sampler2d_backward_output_computed(const cts_case *c, int slot)
{
    const cts_param *mask = &c->param[GRID_OUTPUT_MASK];
    if (mask->null || slot < GRID_INPUT_GRAD) return false;
    return mask->len > slot - GRID_INPUT_GRAD && mask->v[slot - GRID_INPUT_GRAD];
}

int grid_sampler2d_backward_reference(const cts_case *c, const ref_path *path,
                                      double *const in[], ref_output out[])
{
    ref_options opt;
    memset(&opt, 0, sizeof opt);
    opt.path = *path;
    ref_grid_params p;
    grid_sampler2d_backward_ref_params(c, &p);
    return ref_grid_sampler2d_backward(
        &p, in[GRID_GRAD_OUTPUT], in[GRID_INPUT], in[GRID_GRID], &opt,
        grid_sampler2d_backward_output_computed(c, GRID_INPUT_GRAD) ? &out[GRID_INPUT_GRAD] : NULL,
        grid_sampler2d_backward_output_computed(c, GRID_GRID_GRAD) ? &out[GRID_GRID_GRAD] : NULL);
}

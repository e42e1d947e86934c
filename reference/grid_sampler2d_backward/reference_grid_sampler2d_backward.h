/* The reference's aclnnGridSampler2DBackward: its query's tensor slots and parameter indices (the
 * harness's order, conformance/ops/grid_sampler2d_backward/), its parameters, path and direct
 * calls. ref_case (reference.h) answers a whole case from the query alone; these are for tests,
 * benches and harness code that compute one piece. A chunk of its answers holds whole (n, c)
 * planes of input_grad (at least one) or a batch of grid_grad. */
#ifndef ACLCTS_REFERENCE_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_REFERENCE_GRID_SAMPLER2D_BACKWARD_H_

#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ref_status_query.t: gradOutput, input, grid, inputGrad, gridGrad. */
enum {
    REF_GRID_GRAD_OUTPUT, REF_GRID_INPUT, REF_GRID_GRID, REF_GRID_INPUT_GRAD, REF_GRID_GRID_GRAD
};

/* ref_status_query.p, in the prototype's order: interpolationMode, paddingMode (ints),
 * alignCorners (bool), outputMask (a bool array: entry k says whether output k, inputGrad or
 * gridGrad, is computed; a missing entry is false). */
enum {
    REF_GRID_INTERPOLATION_MODE, REF_GRID_PADDING_MODE, REF_GRID_ALIGN_CORNERS,
    REF_GRID_OUTPUT_MASK, REF_GRID_NPARAMS
};

/* BICUBIC: the vendor's releases from 9.1 (PyTorch's bicubic; grid_bicubic.c) */
typedef enum { REF_INTERP_BILINEAR = 0, REF_INTERP_NEAREST = 1, REF_INTERP_BICUBIC = 2 } ref_interp;
typedef enum { REF_PAD_ZEROS = 0, REF_PAD_BORDER = 1, REF_PAD_REFLECTION = 2 } ref_padding;

typedef struct {
    int64_t n, c, h_in, w_in, h_out, w_out;
    ref_interp interpolation;
    ref_padding padding;
    bool align_corners;
} ref_grid_params;

/* Always vector (FP32, or double for DOUBLE). */
ref_path ref_grid_path(ref_dtype dtype);

/* grad_output (n,c,h_out,w_out), input (n,c,h_in,w_in), grid (n,h_out,w_out,2) →
 * input_grad (n,c,h_in,w_in) and grid_grad (n,h_out,w_out,2). Either output may be NULL. */
int ref_grid_sampler2d_backward(const ref_grid_params *p, const double *grad_output,
                                const double *input, const double *grid, ref_options *opt,
                                ref_output *input_grad, ref_output *grid_grad);

/* The exact value of one element with MPFR at the precision of mpfr_out (an mpfr_t passed as
 * void* so this header does not need mpfr.h). which: 0 = input_grad, 1 = grid_grad. */
int ref_grid_sampler2d_backward_element_mpfr(const ref_grid_params *p, const double *grad_output,
                                             const double *input, const double *grid, int which,
                                             int64_t index, void *mpfr_out);

#ifdef __cplusplus
}
#endif
#endif

/* Internals of the emulated aclnnGridSampler2DBackward (libopapi). */
#ifndef ACLCTS_KERNELS_GS_BACKWARD_H_
#define ACLCTS_KERNELS_GS_BACKWARD_H_

#include <stdbool.h>
#include <stdint.h>

#include "emu.h"

#define GS_API_NAME "aclnnGridSampler2DBackward"

enum { GS_BILINEAR = 0, GS_NEAREST = 1 };
enum { GS_ZEROS = 0, GS_BORDER = 1, GS_REFLECTION = 2 };

/* Everything the second phase needs; the tensors are the caller's (alive until it runs). */
typedef struct {
    const aclTensor *grad_output, *input, *grid;
    aclTensor *input_grad, *grid_grad;
    int interpolation, padding;
    bool align_corners;
    bool want_dx, want_dgrid;  /* outputMask[0], outputMask[1] */
    bool deterministic;        /* fixed-order kernel (decided in the first phase) */
} gs_params;

/* Shape of one problem on contiguous staging arrays (element counts, row-major):
 * go [N][C][Ho][Wo], in [N][C][Hi][Wi], grid [N][Ho][Wo][2], dx like in, dgrid like grid. */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int interpolation, padding;
    bool align_corners;
} gs_shape;

/* The five tensors in parameter order, and their parameter names (check.c). */
enum { GS_GRAD_OUTPUT, GS_INPUT, GS_GRID, GS_INPUT_GRAD, GS_GRID_GRAD, GS_TENSOR_COUNT };
extern const char *const gs_tensor_names[GS_TENSOR_COUNT];

/* The document's checks in the contract's order (check.c). Returns the (unfaulted) status;
 * *nothing is set when the call succeeds with nothing to compute. Sets the error message. */
aclnnStatus gs_check(const aclTensor *grad_output, const aclTensor *input,
                     const aclTensor *grid, int64_t interpolation, int64_t padding,
                     const aclBoolArray *mask, const aclTensor *input_grad,
                     const aclTensor *grid_grad, bool *nothing);
/* The same under a vendor contract, in its code's order (check_vendor.c): a NULL mask is
 * accepted. */
aclnnStatus gs_check_vendor(const aclTensor *grad_output, const aclTensor *input,
                            const aclTensor *grid, int64_t interpolation, int64_t padding,
                            const aclBoolArray *mask, const aclTensor *input_grad,
                            const aclTensor *grid_grad, bool *nothing);
/* Tensor tests both orders use (check.c): the first of t whose dtype is not input's (-1: none),
 * equal shapes, a negative dim. */
int gs_first_dtype_mismatch(const aclTensor *const t[GS_TENSOR_COUNT]);
bool gs_same_shape(const aclTensor *a, const aclTensor *b);
bool gs_negative_dim(const aclTensor *t);

/* The executor's run: stages data, runs the kernel, writes the selected outputs. */
aclnnStatus gs_run_f32(const gs_params *params); /* FLOAT, FLOAT16, BF16 */
aclnnStatus gs_run_f64(const gs_params *params); /* DOUBLE */

/* Kernels on contiguous arrays; they write every element of the outputs (the caller need not
 * zero dx), either of which may be NULL. det: fixed order, bitwise identical whatever the thread
 * count. Otherwise points are processed in parallel with atomic adds into dx, in an order
 * permuted by shuffle_seed when non-zero. Return false when out of host memory. */
bool gs_kernel_f32(const gs_shape *s, const float *go, const float *in, const float *grid,
                   float *dx, float *dgrid, bool det, uint64_t shuffle_seed);
bool gs_kernel_f64(const gs_shape *s, const double *go, const double *in, const double *grid,
                   double *dx, double *dgrid, bool det, uint64_t shuffle_seed);

/* A pseudo-random permutation of 0..count-1 from seed (caller frees); NULL when out of memory. */
int64_t *gs_permutation(int64_t count, uint64_t seed);

#endif

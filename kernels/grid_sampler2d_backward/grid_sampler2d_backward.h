/* Private interface of the emulated aclnnGridSampler2DBackward (never included outside this
 * folder).
 *
 * The first phase (get_workspace_size.c) runs the checks of docs/contract.md in their order
 * (check.c, or a vendor release's in check_vendor.c) and chooses the numerics path (path.c):
 * the compute type and the kernel. The run (run.c) stages the tensors (tensor_io.c), computes
 * the per-point geometry (geometry.c) and runs the fixed-order kernel (kernel_deterministic.c)
 * or the atomic one (kernel_atomic.c). */
#ifndef ACLCTS_KERNELS_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_KERNELS_GRID_SAMPLER2D_BACKWARD_H_

#include <stdbool.h>
#include <stdint.h>

#include "emu.h"
#include "emu_fp.h"

#define GS_API_NAME "aclnnGridSampler2DBackward"

enum { GS_BILINEAR = 0, GS_NEAREST = 1, GS_BICUBIC = 2 };
enum { GS_ZEROS = 0, GS_BORDER = 1, GS_REFLECTION = 2 };

/* The operator on a product (product.c): shipped at all, BF16 and DOUBLE accepted. */
typedef struct {
    bool supported, bf16_double;
} gs_product;
/* The entry of prof's product (an unknown one supports nothing). */
const gs_product *gs_product_of(const emu_profile *prof);

/* Everything the second phase needs; the tensors are the caller's (alive until it runs). */
typedef struct gs_params {
    const aclTensor *grad_output, *input, *grid;
    aclTensor *input_grad, *grid_grad;
    int interpolation, padding;
    bool align_corners;
    bool want_dx, want_dgrid;  /* outputMask[0], outputMask[1] */
    bool deterministic;        /* fixed-order kernel (decided in the first phase) */
    bool inf_to_edge;          /* a vendor AICore kernel: border clamps ±inf to the edge */
    bool bicubic_low_edge;     /* a 9.1+ vector bicubic kernel under border: non-finite and
                                * past-int32 coordinates to index 0 (run.c) */
    int bicubic_nonfinite;     /* GS_BCNF_*: the bicubic kernel's own non-finite taps */
    bool clamp_nonfinite;      /* ACLNN_EMU_NONFINITE_GRID=clamp: PyTorch's clamp (run.c) */
    int dx_sums;               /* GS_SUMS_*: the format dx's adds are rounded to (path.c) */
    int coord_round;           /* GS_SUMS_FP16/BF16: 950's SIMT kernel from 9.1 rounds the
                                * coordinate, its padding and bilinear weights to it; else 0 */
    aclnnStatus (*run)(const struct gs_params *p); /* gs_run_f32 or gs_run_f64 (path.c) */
} gs_params;

/* Shape of one problem on contiguous staging arrays (element counts, row-major):
 * go [N][C][Ho][Wo], in [N][C][Hi][Wi], grid [N][Ho][Wo][2], dx like in, dgrid like grid. */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int interpolation, padding;
    bool align_corners;
    int bicubic_nonfinite;     /* GS_BCNF_* */
    int dx_sums;               /* GS_SUMS_* */
    int coord_round;           /* gs_params.coord_round */
} gs_shape;

/* How dx's contributions are added: in the compute type (rounded once at the store), or, as
 * 950's SIMT kernel does for FLOAT16 and BF16 from release 9.0, each contribution rounded to
 * the dtype and added to the dtype's value in place, the sum rounded to the dtype again
 * (GS_SUMS_TRUNCATE: those roundings truncate, the round-truncate fault). */
enum { GS_SUMS_COMPUTE = 0, GS_SUMS_FP16 = 1, GS_SUMS_BF16 = 2, GS_SUMS_TRUNCATE = 4 };

/* What a bicubic kernel does with a non-finite unnormalised coordinate (kernel_bicubic.c):
 * nothing (out of bounds); 950's SIMT kernel (NaN coefficients, a NaN tap out, an infinite one
 * clamped to the edge under border); the 9.1+ vector kernel under reflection (NaN coefficients,
 * the taps from an undefined cast: here index 0). */
enum { GS_BCNF_OUT, GS_BCNF_SIMT, GS_BCNF_VECTOR_REFLECT };

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

/* The first phase's choice of the numerics path (path.c): the compute type and the kernel. */
void gs_choose_path(gs_params *p);

/* ---- per compute type ----
 * geometry.c, kernel_atomic.c, kernel_deterministic.c, run.c and tensor_io.c are written once
 * for a compute type GS_T and built twice (CMakeLists.txt): with GS_DOUBLE 0, GS_T is float
 * (FLOAT, FLOAT16 and BF16 compute in FP32), with GS_DOUBLE 1 double (DOUBLE). GS_FN(name) is
 * name_f32 or name_f64, so both builds link into one library. */

/* The run of one compute type (run.c): stages data, runs the kernel, writes the selected
 * outputs. */
aclnnStatus gs_run_f32(const gs_params *params); /* FLOAT, FLOAT16, BF16 */
aclnnStatus gs_run_f64(const gs_params *params); /* DOUBLE */

#ifdef GS_DOUBLE
#include <float.h>
#include <math.h>

#if GS_DOUBLE
#define GS_T double
#define GS_DT ACL_DOUBLE /* the dtype used in place, without staging */
#define GS_FN(name) name##_f64
#define GS_FLOOR floor
#define GS_FMOD fmod
#define GS_EPSILON DBL_EPSILON
#else
#define GS_T float
#define GS_DT ACL_FLOAT
#define GS_FN(name) name##_f32
#define GS_FLOOR floorf
#define GS_FMOD fmodf
#define GS_EPSILON FLT_EPSILON
#endif

#define GS_BLOCK 256 /* points per block: their geometry stays in L1 across the channels */

/* What the points of one block contribute, computed once and used for every channel; arrays
 * rather than structs so the channel loops read only what they use. */
typedef struct {
    int64_t go[GS_BLOCK];   /* offset of the point in channel 0 of gradOutput */
    int64_t cell[GS_BLOCK]; /* offset in channel 0 of input/dx: nearest cell or nw corner */
    int64_t dg[GS_BLOCK];   /* offset of the point's (x, y) in gridGrad */
    GS_T wt[4][GS_BLOCK];   /* bilinear weights nw, ne, sw, se */
    GS_T e[GS_BLOCK], w[GS_BLOCK], n[GS_BLOCK], s[GS_BLOCK]; /* distances to the sides */
    GS_T mx[GS_BLOCK], my[GS_BLOCK]; /* gradient factors of x and y */
    unsigned char ok[GS_BLOCK]; /* bit k: corner k inside; 0: no dx, dgrid 0 */
    int32_t live[GS_BLOCK];     /* deterministic kernel: the points with ok != 0, in order */
    int32_t nlive;
} GS_FN(gs_geom);

/* ---- geometry (geometry.c) ---- */

/* Geometry of point i of the block, at grid values xy. A point whose grid value or pixel
 * coordinate is not finite, or whose corners all lie outside, gets ok = 0: it contributes
 * nothing and its dgrid is 0 (contract: non-finite grid values are out of bounds). g->cell[i]
 * holds the offset of the point's item on entry; the cell's in-plane offset is added. */
void GS_FN(gs_geometry)(const gs_shape *s, const GS_T *xy, GS_FN(gs_geom) *g, int64_t i);
/* Nearest cells of count points at grid values xy under zeros or border padding, as
 * gs_geometry gives them; false, and nothing done, for bilinear, reflection or planes too wide
 * for int32 indices. */
bool GS_FN(gs_nearest_cells)(const gs_shape *s, const GS_T *restrict xy, int64_t count,
                             GS_FN(gs_geom) *restrict g);

/* ---- per-point contributions, shared by both kernels (inline: the channel loops' body) ---- */

/* x rounded to the format of GS_SUMS_* `sums` (FLOAT16 and BF16 compute in the float build). */
static inline GS_T GS_FN(gs_sums_round)(GS_T x, int sums)
{
#if GS_DOUBLE
    (void)sums;
    return x;
#else
    bool t = sums & GS_SUMS_TRUNCATE;
    if (sums & GS_SUMS_FP16)
        return fp_f16_to_f32(fp_f32_to_f16(x, t));
    return sums & GS_SUMS_BF16 ? fp_bf16_to_f32(fp_f32_to_bf16(x, t)) : x;
#endif
}

/* *p += v; with `sums`, v rounded to that format and the sum too, atomically as one add (a
 * compare-and-swap loop: the device's atomic add in the dtype). */
static inline void GS_FN(gs_add)(GS_T *p, GS_T v, bool atomic, int sums)
{
    if (sums != GS_SUMS_COMPUTE) {
        v = GS_FN(gs_sums_round)(v, sums);
        GS_T old, sum;
        if (atomic)
            __atomic_load(p, &old, __ATOMIC_RELAXED);
        else
            old = *p;
        do
            sum = GS_FN(gs_sums_round)(old + v, sums);
        while (atomic && !__atomic_compare_exchange(p, &old, &sum, true, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED));
        if (!atomic)
            *p = sum;
    } else if (atomic) {
#pragma omp atomic
        *p += v;
    } else {
        *p += v;
    }
}

/* dx contribution of bilinear block point i (ok != 0) in one channel (dx at the channel). */
static inline void GS_FN(gs_bilinear_dx)(const GS_FN(gs_geom) *g, int64_t i, int64_t W, GS_T gv,
                                         GS_T *dx, bool atomic, int sums)
{
    GS_T *d = dx + g->cell[i];
    if (g->ok[i] == 15 && !atomic && sums == GS_SUMS_COMPUTE) { /* interior: no bounds tests */
        d[0] += g->wt[0][i] * gv;
        d[1] += g->wt[1][i] * gv;
        d[W] += g->wt[2][i] * gv;
        d[W + 1] += g->wt[3][i] * gv;
        return;
    }
    const int64_t off[4] = {0, 1, W, W + 1};
    for (int k = 0; k < 4; k++)
        if (g->ok[i] >> k & 1)
            GS_FN(gs_add)(d + off[k], g->wt[k][i] * gv, atomic, sums);
}

/* Grid-gradient term of bilinear block point i (ok != 0) in one channel, added to *gx, *gy in
 * PyTorch's vectorised form; corners outside read as zeros. */
static inline void GS_FN(gs_bilinear_dgrid)(const GS_FN(gs_geom) *g, int64_t i, int64_t W,
                                            GS_T gv, const GS_T *in, GS_T *gx, GS_T *gy)
{
    const GS_T *v = in + g->cell[i];
    GS_T v0, v1, v2, v3;
    if (g->ok[i] == 15) {
        v0 = v[0], v1 = v[1], v2 = v[W], v3 = v[W + 1];
    } else {
        unsigned ok = g->ok[i];
        v0 = ok & 1 ? v[0] : 0;
        v1 = ok & 2 ? v[1] : 0;
        v2 = ok & 4 ? v[W] : 0;
        v3 = ok & 8 ? v[W + 1] : 0;
    }
    *gx += ((v1 - v0) * g->s[i] + (v3 - v2) * g->n[i]) * gv;
    *gy += ((v2 - v0) * g->e[i] + (v3 - v1) * g->w[i]) * gv;
}

/* dgrid of block point i from its summed terms (nearest has no grid gradient). */
static inline void GS_FN(gs_store_dgrid)(const gs_shape *s, const GS_FN(gs_geom) *g, int64_t i,
                                         GS_T gx, GS_T gy, GS_T *d)
{
    const bool live = s->interpolation == GS_BILINEAR && g->ok[i];
    d[0] = live ? gx * g->mx[i] : 0;
    d[1] = live ? gy * g->my[i] : 0;
}

/* ---- kernels on contiguous arrays ----
 * They write every element of the selected outputs (the caller need not zero dx), either of
 * which may be NULL, and assume at least one grid point. Return false when out of host memory. */

/* Fixed order, bitwise identical whatever the thread count (kernel_deterministic.c). */
bool GS_FN(gs_kernel_deterministic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                                    const GS_T *grid, GS_T *dx, GS_T *dgrid);
/* Blocks of points in parallel with atomic adds into dx, or on one thread in the given order
 * of the points when order is not NULL (ACLNN_EMU_SHUFFLE; kernel_atomic.c). */
bool GS_FN(gs_kernel_atomic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                             const GS_T *grid, GS_T *dx, GS_T *dgrid, const int64_t *order);

/* Bicubic (kernel_bicubic.c): the fixed-order kernel when deterministic, else blocks of points
 * with atomic adds into dx, in the given order of the points when order is not NULL. */
bool GS_FN(gs_kernel_bicubic)(const gs_shape *s, const GS_T *go, const GS_T *in,
                              const GS_T *grid, GS_T *dx, GS_T *dgrid, bool deterministic,
                              const int64_t *order);

/* ---- staging (tensor_io.c) ---- */

/* The tensor can be used in place: dtype GS_DT, contiguous. */
bool GS_FN(gs_direct)(const aclTensor *t);
/* A contiguous GS_T view of elements first .. first + n − 1 of a tensor (row-major): its own
 * memory when possible, else a staged copy (*owned, freed by the caller); NULL when out of
 * memory. */
GS_T *GS_FN(gs_view)(const aclTensor *t, int64_t first, int64_t n, GS_T **owned);
/* Points first .. first + points − 1 of the grid as [points][2] (see tensor_io.c for a last
 * dim other than 2). */
GS_T *GS_FN(gs_grid_view)(const aclTensor *t, int64_t first, int64_t points, GS_T **owned);
/* Element i of t (row-major over the view) set to v, rounded once into t's dtype. */
void GS_FN(gs_store)(const aclTensor *t, int64_t i, GS_T v, bool truncate);
/* gs_store of src[i] into element first + i, for i in 0 .. n − 1. */
void GS_FN(gs_store_range)(const aclTensor *t, int64_t first, const GS_T *src, int64_t n,
                           bool truncate);

#endif /* GS_DOUBLE */

#endif

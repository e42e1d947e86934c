/* Private interface of the emulated aclnnAvgPool2dBackward (never included outside this folder).
 *
 * The first phase (get_workspace_size.c) runs the checks of docs/contract.md in their order
 * (check.c, or a vendor release's in check_vendor.c), resolves the geometry (geometry.c) and
 * the numeric path (path.c), and stores everything the run needs in an avgpool_params owned by
 * the executor. The run (run.c) picks the fixed-order gather kernel (kernel_deterministic.c) or
 * the scatter-add kernel (kernel_atomic.c); strided loads and stores are tensor_io.c. */
#ifndef ACLCTS_KERNELS_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_KERNELS_AVGPOOL2D_BACKWARD_H_

#include "emu.h"
#include "emu_fp.h"

/* The arguments of the first phase, as the caller passed them. */
typedef struct {
    const aclTensor *grad_output;
    const aclTensor *self;
    const aclIntArray *kernel_size;
    const aclIntArray *stride;
    const aclIntArray *padding;
    bool ceil_mode;
    bool count_include_pad;
    int64_t divisor_override;
    int8_t cube_math_type;
    aclTensor *grad_input;
} avgpool_args;

/* The operator on a product (product.c): shipped at all, BF16 accepted, divisorOverride
 * limited to [-255, 255]. */
typedef struct {
    bool supported, bf16, divisor_range_checked;
} avgpool_product;
/* The entry of prof's product (an unknown one supports nothing). */
const avgpool_product *avgpool_product_of(const emu_profile *prof);

/* The parameter arrays expanded to (H, W) pairs. */
typedef struct {
    int64_t kh, kw, sh, sw, ph, pw;
} avgpool_window;

/* VECTOR: g/div in FP32. DIVIDE_FP16 (the vendor's global pooling with FP16 operands): g and div
 * rounded to FP16, the quotient too. CUBE: g and 1/div rounded to the operand format, products
 * and sums in FP32. */
typedef enum { AVGPOOL_PATH_VECTOR, AVGPOOL_PATH_DIVIDE_FP16, AVGPOOL_PATH_CUBE } avgpool_path;

/* Format of the cube operands (gradOutput and the weights 1/divisor). */
typedef enum {
    AVGPOOL_OPERAND_FP32,
    AVGPOOL_OPERAND_FP16,
    AVGPOOL_OPERAND_BF16,
    AVGPOOL_OPERAND_HF32
} avgpool_operand;

/* Everything the run needs; the tensor views are copied so the executor owns them. */
typedef struct {
    aclTensor grad_output, self, grad_input;
    int64_t planes;      /* product of the dims before H, W (N*C, or C for 3-D) */
    int64_t lead;        /* number of those dims: 1 or 2 */
    int64_t h, w, oh, ow;
    avgpool_window win;
    bool ceil_mode, count_include_pad;
    int64_t divisor;     /* divisorOverride, 0 = none */
    avgpool_path path;
    avgpool_operand operand;
    int hf32_bits;
    /* The vendor's cube lowering (docs/contract.md "Numerics"): premultiply, g·(1/div) is
     * rounded to FP32 (FP16 when premul_fp16) before the operand rounding, the weight being 1;
     * result_fp16, the sum is rounded to FP16 before the cast to the output dtype. */
    bool premultiply, premul_fp16, result_fp16;
    bool deterministic;  /* read in the first phase, when the kernel is chosen */
} avgpool_params;

/* ---- checks (each returns 0 or the status of the first failing rule, message set) ---- */

/* The document's checks 1 to 9 in their order (check.c); fills the geometry of *p, or sets
 * *empty when the tensors are empty and the profile accepts that. */
aclnnStatus avgpool_check(const avgpool_args *a, avgpool_params *p, bool *empty);
/* Every check of a vendor contract in the vendor's order (check_vendor.c); fills the geometry
 * of *p, or sets *empty. */
aclnnStatus avgpool_check_vendor(const avgpool_args *a, avgpool_params *p, bool *empty);
/* Checks 1 and 2 and the empty-tensor test, which the vendor's order shares (check.c). */
aclnnStatus avgpool_check_nulls(const avgpool_args *a);
aclnnStatus avgpool_check_product(void);
bool avgpool_any_empty(const avgpool_args *a); /* any of the three tensors has a zero dim */

/* ---- geometry (geometry.c) ---- */

/* Forward output size of one axis (facts §4); -1 when the arithmetic overflows. */
int64_t avgpool_output_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode);
/* kernel == (H, W) of self, padding 0, no divisorOverride. */
bool avgpool_is_global(const avgpool_window *win, int64_t h, int64_t w, int64_t divisor);

/* The windows of one axis: per output index its clipped window [start, end) and its length
 * with padding (pool); per input index the outputs [lo, hi) whose windows contain it. */
typedef struct {
    int64_t n_in, n_out;
    int64_t *start, *end, *pool;
    int64_t *lo, *hi;
} avgpool_axis;

/* extra = 1 under the window-off-by-one fault. Returns false when out of memory. */
bool avgpool_axis_init(avgpool_axis *ax, int64_t n_in, int64_t n_out, int64_t k, int64_t s,
                       int64_t p, int64_t extra);
void avgpool_axis_free(avgpool_axis *ax);

/* ---- numerics (path.c) ---- */

/* The path and cube operand format of docs/contract.md "Path" (`doc`), or of the vendor's
 * lowering, "Numerics" (path_vendor.c), for the emulation's contract. */
void avgpool_choose_path(const avgpool_args *a, const avgpool_window *win, avgpool_params *p);
void avgpool_choose_vendor_path(const avgpool_args *a, const avgpool_window *win,
                                avgpool_params *p);
/* A10: the vendor lowering's global-pooling test (divisor 0, kernel = self's H x W, both >= 10,
 * gradOutput 1 x 1), not the documents' (avgpool_is_global). */
bool avgpool_vendor_global(const avgpool_args *a, const avgpool_window *win, int64_t h, int64_t w);
/* Whether the vendor's lowering of a non-global call takes the cube (L3, L4) rather than a
 * vector kernel (L2, L3's fallback). */
bool avgpool_vendor_takes_cube(const avgpool_args *a, const avgpool_window *win,
                               const avgpool_params *p);
/* Per output (oh, ow): the vector paths' divisor, or the cube's rounded weight 1/divisor;
 * 0 for an empty window. Returns NULL when out of memory. */
float *avgpool_scales(const avgpool_params *p, const avgpool_axis *ah, const avgpool_axis *aw);

static inline float avgpool_round_operand(const avgpool_params *p, float x)
{
    switch (p->operand) {
    case AVGPOOL_OPERAND_FP16:
        return fp_round_f16(x);
    case AVGPOOL_OPERAND_BF16:
        return fp_round_bf16(x);
    case AVGPOOL_OPERAND_HF32:
        return emu_round_to_bits(x, p->hf32_bits);
    case AVGPOOL_OPERAND_FP32:
    default:
        return x;
    }
}

/* One gradOutput value made into the term its output adds to each element of its window. */
static inline float avgpool_term(const avgpool_params *p, float g, float scale)
{
    switch (p->path) {
    case AVGPOOL_PATH_VECTOR:
        return g / scale;
    case AVGPOOL_PATH_DIVIDE_FP16:
        return fp_round_f16(fp_round_f16(g) / scale);
    case AVGPOOL_PATH_CUBE:
    default:
        if (p->premultiply) {
            float t = g * scale;
            return avgpool_round_operand(p, p->premul_fp16 ? fp_round_f16(t) : t);
        }
        return avgpool_round_operand(p, g) * scale;
    }
}

/* A row of sums as the path leaves them before the cast to the output dtype. */
static inline void avgpool_round_result(const avgpool_params *p, float *row, int64_t n)
{
    if (p->result_fp16) {
        for (int64_t i = 0; i < n; i++) {
            row[i] = fp_round_f16(row[i]);
        }
    }
}

/* ---- strided plane access (tensor_io.c) ---- */

/* Element offset of plane `plane` (flat index over the leading dims) of a rank-3/4 view. */
int64_t avgpool_plane_offset(const aclTensor *t, int64_t plane);
/* Loads row h of a plane into dst (n = view W), converting to FP32. */
void avgpool_load_row(const aclTensor *t, int64_t plane_off, int64_t h, float *dst);
/* Stores src into row h of a plane, rounding once to the tensor's dtype. */
void avgpool_store_row(const aclTensor *t, int64_t plane_off, int64_t h, const float *src,
                       bool truncate);
/* Address of row h of a plane when it can be written as FP32 directly (FLOAT, unit W stride),
 * else NULL. */
float *avgpool_direct_row(const aclTensor *t, int64_t plane_off, int64_t h);

/* ---- the executor's run (run.c) and its two kernels (kernel_*.c) ---- */
aclnnStatus avgpool_run(aclOpExecutor *ex, void *workspace);
aclnnStatus avgpool_kernel_deterministic(const avgpool_params *p, const avgpool_axis *ah,
                                        const avgpool_axis *aw, const float *scales);
aclnnStatus avgpool_kernel_atomic(const avgpool_params *p, const avgpool_axis *ah,
                                 const avgpool_axis *aw, const float *scales, float *acc);

#endif

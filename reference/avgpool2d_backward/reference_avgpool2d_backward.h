/* The reference's aclnnAvgPool2dBackward: its query's tensor slots and parameter indices (the
 * harness's order, conformance/ops/avgpool2d_backward/), its geometry, paths and direct calls.
 * ref_case (reference.h) answers a whole case from the query alone; these are for tests, benches
 * and harness code that classify or compute one piece. */
#ifndef ACLCTS_REFERENCE_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_REFERENCE_AVGPOOL2D_BACKWARD_H_

#include "reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ref_status_query.t: gradOutput, self, gradInput. */
enum { REF_AVGPOOL_GRAD_OUTPUT, REF_AVGPOOL_SELF, REF_AVGPOOL_GRAD_INPUT };

/* ref_status_query.p, in the prototype's order. kernelSize, stride, padding: int arrays (an
 * absent or empty stride means the kernel); ceilMode, countIncludePad: bools; divisorOverride:
 * int (0 = none). cubeMathType: the int8_t argument as the caller wrote it, widened; the device
 * sees (int8_t)value, so the model reduces it modulo 256 into -128..127 (two's complement, as
 * gcc converts) before any check, and a caller that already holds the int8_t value passes it
 * unchanged. */
enum {
    REF_AVGPOOL_KERNEL_SIZE, REF_AVGPOOL_STRIDE, REF_AVGPOOL_PADDING, REF_AVGPOOL_CEIL_MODE,
    REF_AVGPOOL_COUNT_INCLUDE_PAD, REF_AVGPOOL_DIVISOR_OVERRIDE, REF_AVGPOOL_CUBE_MATH_TYPE,
    REF_AVGPOOL_NPARAMS
};

/* Elements of a chunk of answers by default (ref_case_request.chunk_elems 0): up to three are
 * in use at once (one judged while the next ones are computed), and chunks that small stay in
 * the cores' L2 caches and cost a fifth of the first call's page faults (bench shape, one
 * thread: 4.5% less CPU per call, the first call ~2 ms shorter than with 2^15); they hold whole
 * rows of grad_input when one fits (its four-lane groups are not cut). */
#define REF_AVGPOOL_CHUNK_ELEMS ((int64_t)1 << 13)

typedef struct {
    int64_t n, c, h, w;      /* self / gradInput shape; n = 1 for 3-D (NCL: c, h, w) */
    int64_t oh, ow;          /* gradOutput spatial shape */
    int64_t kh, kw, sh, sw, ph, pw;
    bool ceil_mode, count_include_pad;
    int64_t divisor_override; /* 0 = none */
} ref_avgpool_params;

/* The forward output size of one axis (facts §4, PyTorch's pooling_output_shape): the
 * gradOutput size the status model requires. False when kernel or stride is not positive,
 * padding is negative, or the size passes int64. */
bool ref_avgpool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             bool ceil_mode, int64_t *out);

/* The computation path the documents and facts §3 imply for avg-pool on a product. */
ref_path ref_avgpool_path(ref_product product, const ref_avgpool_params *p, ref_dtype dtype,
                          int cube_math_type);
/* The path under a vendor contract (VENDOR or VENDOR_OLD): the lowering the vendor's code
 * chooses on the product and its conversions (docs/contract.md "Numerics"). */
ref_path ref_avgpool_vendor_path(ref_spec spec, ref_product product, const ref_avgpool_params *p,
                                 ref_dtype dtype, int cube_math_type);

/* grad_output (n,c,oh,ow) → grad_input (n,c,h,w). 0 on success, -1 on bad parameters. */
int ref_avgpool2d_backward(const ref_avgpool_params *p, const double *grad_output,
                           ref_options *opt, ref_output *grad_input);

/* "Honoured" judgement of a cube path (docs/contract.md "Path"): the exact value of the
 * documented computation itself, Σ r(g)·r(1/div) with gradOutput and each weight rounded to the
 * path's operand format (FP16, BF16, HF32 of hf32_bits, FP32 kept), so that only the
 * accumulation's own error remains to allow. Judge it under ref_documented_judge_path(path): a
 * device that skips or changes the operand rounding then errs by far more than that. A vector
 * path has no operand rounding: the value is ref_avgpool2d_backward's. 0 on success, -1 on bad
 * parameters. */
int ref_avgpool2d_backward_documented(const ref_avgpool_params *p, const double *grad_output,
                                      const ref_path *path, ref_output *grad_input);
/* The path whose ref_bound allows only accumulation and output rounding (no operand rounding)
 * for values of ref_avgpool2d_backward_documented; its name says what is judged. */
ref_path ref_documented_judge_path(const ref_path *path);

/* The exact value of grad_input's element `index` with MPFR at the precision of mpfr_out
 * (an mpfr_t passed as void* so this header does not need mpfr.h). */
int ref_avgpool2d_backward_element_mpfr(const ref_avgpool_params *p, const double *grad_output,
                                        int64_t index, void *mpfr_out);

#ifdef __cplusplus
}
#endif
#endif

/* The status model of aclnnAvgPool2dBackward under the vendor contracts, against the vendor's
 * code: `vendor` = hicann/ops-nn v9.0.0 (0413e303), `vendor-old` = v8.5.0 (e9f5c1b3), file
 * pooling/avg_pool3_d_grad/op_api/aclnn_avgpool2d_backward.cpp (op_host/op_api/ in v8.5.0). Each
 * row cites the line its expected code comes from (v9.0.0 numbering unless it says v8.5.0);
 * "derived" rows are aclcts's choices where the code leaves the outcome undefined
 * (docs/contract.md "Vendor releases"). Starting point: the document's example, valid everywhere
 * the op ships. */
#include "status_seed.h"

#define V (VEN | OLD)

MUT(m_none, (void)q)
MUT(m_null_go, q->t[0].present = false)
MUT(m_null_self, q->t[1].present = false)
MUT(m_null_kernel, q->p[REF_AVGPOOL_KERNEL_SIZE].present = false)
MUT(m_null_padding, q->p[REF_AVGPOOL_PADDING].present = false)
MUT(m_null_gi, q->t[2].present = false)
MUT(m_null_stride, q->p[REF_AVGPOOL_STRIDE].present = false)
/* ceilMode leaves the cube on 910b/910_93 (L3): the vector lowering's FillIntArray. */
MUT(m_null_stride_vector, m_null_stride(q); SET(CEIL_MODE, true))
/* The code's global pooling (A10) returns before any lowering reads the stride. */
MUT(m_null_stride_global, m_null_stride(q); SHAPE(1, 1, 16, 10, 10); SHAPE(2, 1, 16, 10, 10);
    ARRAY(KERNEL_SIZE, 10, 10))
MUT(m_bf16, all_dtype(q, REF_DT_BF16))
MUT(m_self_fp16, q->t[1].dtype = REF_DT_FLOAT16)
MUT(m_go_fp16, q->t[0].dtype = REF_DT_FLOAT16)
MUT(m_self_nd, q->t[1].format = REF_FMT_ND)
MUT(m_gi_ncl, q->t[2].format = REF_FMT_NCL)
MUT(m_3d_nchw, SHAPE(0, 16, 1, 1); SHAPE(1, 16, 4, 4); SHAPE(2, 16, 4, 4))
MUT(m_rank_mixed, SHAPE(2, 16, 4, 4); SHAPE(1, 16, 4, 4))
MUT(m_neg_self, SHAPE(1, 1, -16, 4, 4))
MUT(m_kernel_len3, ARRAY(KERNEL_SIZE, 4, 4, 4))
MUT(m_kernel0, ARRAY(KERNEL_SIZE, 0, 4))
MUT(m_stride_len3, ARRAY(STRIDE, 1, 1, 1))
MUT(m_stride_empty, EMPTY_ARRAY(STRIDE))
MUT(m_stride_neg, ARRAY(STRIDE, -1, 1))
MUT(m_pad_len3, ARRAY(PADDING, 0, 0, 0))
MUT(m_pad_empty, EMPTY_ARRAY(PADDING))
MUT(m_pad_3, ARRAY(PADDING, 3, 0))
MUT(m_pad_neg, ARRAY(PADDING, -1, 0))
MUT(m_cube4, SET(CUBE_MATH_TYPE, 4))
MUT(m_cube0, SET(CUBE_MATH_TYPE, 0))
MUT(m_cube3_fp16, SET(CUBE_MATH_TYPE, 3); all_dtype(q, REF_DT_FLOAT16))
MUT(m_gi_shape, SHAPE(2, 1, 16, 4, 5))
MUT(m_go_spatial, SHAPE(0, 1, 16, 2, 2))
MUT(m_go_c, SHAPE(0, 1, 8, 1, 1))
MUT(m_empty_n, SHAPE(0, 0, 16, 1, 1); SHAPE(1, 0, 16, 4, 4); SHAPE(2, 0, 16, 4, 4))
MUT(m_empty_n_cube9, m_empty_n(q); SET(CUBE_MATH_TYPE, 9))
MUT(m_empty_n_pad_neg, m_empty_n(q); ARRAY(PADDING, -1, 0))
MUT(m_div256, SET(DIVISOR_OVERRIDE, 256))
/* gradOutput H = 3 with stride 2^62: (3 - 1)·2^62 + 4 > INT64_MAX (fuzz finding). */
MUT(m_window_overflow, SHAPE(0, 1, 16, 3, 1); ARRAY(STRIDE, INT64_C(1) << 62, 1))
/* The code's global pooling (divisor 0, kernel = self's H×W >= 10, gradOutput 1×1, :977-1022)
 * returns before the lowering's checks, so a negative padding passes. */
MUT(m_global_pad_neg, SHAPE(1, 1, 16, 10, 10); SHAPE(2, 1, 16, 10, 10); ARRAY(KERNEL_SIZE, 10, 10);
    ARRAY(PADDING, -1, -1))

static const row rows[] = {
    {"seed_valid", "CheckParams :459-478 all pass", m_none, SUPPORTED, V, OK, true, "valid"},
    {"product_310b", "derived: no package for ascend310b", m_none, P(ASCEND310B), V, INV, false,
     "not supported on ascend310b"},
    {"null_gradOutput", ":263", m_null_go, ALL_P, V, NUL, false, "gradOutput"},
    {"null_self", ":264", m_null_self, ALL_P, V, NUL, false, "self"},
    {"null_kernelSize", ":265", m_null_kernel, ALL_P, V, NUL, false, "kernelSize"},
    {"null_padding", ":266", m_null_padding, ALL_P, V, NUL, false, "padding"},
    {"null_gradInput", ":267", m_null_gi, ALL_P, V, NUL, false, "gradInput"},
    {"null_stride_ok", ":401 'stride != nullptr'", m_null_stride, TRAIN_INF | A2A3, V | V91, OK,
     true, "valid"},
    {"null_stride_950_cube_old", "v8.5.0 :549 CalculateStrideHW (no regbase branch)",
     m_null_stride, P(ASCEND950), OLD, OK, true, "valid"},
    /* A14: NN:62 stride->Size() via :1201@0413e303, :1204@ceb4536a, :1194@8cc8ef04 */
    {"null_stride_950_regbase", ":62 via :1201 CheckArrayDataAvgPoolBackWard", m_null_stride,
     P(ASCEND950), VEN | V91, UND, false, "CheckArrayDataAvgPoolBackWard"},
    /* A14: FillIntArray strides->Size() :725@0413e303, :733@e9f5c1b3, :728@ceb4536a,
     * :720@8cc8ef04 */
    {"null_stride_a2a3_vector", ":1121 FillIntArray, :725 strides->Size()",
     m_null_stride_vector, A2A3, V | V91, UND, false, "FillIntArray"},
    {"null_stride_train_inf_cube", ":1102-1112 the cube's CalculateStrideHW :541",
     m_null_stride_vector, TRAIN_INF, V | V91, OK, true, "valid"},
    {"null_stride_global", ":1083-1087, :1191-1197 return before the stride is read",
     m_null_stride_global, SUPPORTED, V | V91, OK, true, "valid"},
    {"bf16_a2a3", ":273-275", m_bf16, A2A3, V, OK, true, "valid"},
    {"bf16_950_regbase", ":277-278 IsRegbase", m_bf16, P(ASCEND950), VEN, OK, true, "valid"},
    {"bf16_950_old", "v8.5.0 :268-272 (no regbase branch)", m_bf16, P(ASCEND950), OLD, INV, false,
     "BF16 is not supported on ascend950"},
    {"bf16_train_inf", ":280 DTYPE_SUPPORT_LIST", m_bf16, TRAIN_INF, V, INV, false,
     "BF16 is not supported"},
    {"self_dtype_free", ":300 compares gradOutput with gradInput only", m_self_fp16, SUPPORTED, V,
     OK, true, "valid"},
    {"gradOutput_dtype", ":300", m_go_fp16, SUPPORTED, V, INV, false,
     "gradOutput dtype FLOAT16 differs"},
    {"format_self_nd", ":321", m_self_nd, SUPPORTED, V, INV, false, "self format ND"},
    {"format_4d_ncl", ":336 4-D needs NCHW", m_gi_ncl, SUPPORTED, V, INV, false, "both be NCHW"},
    {"format_3d_nchw_ok", ":314-342 (NCHW storage is fine for 3-D)", m_3d_nchw, SUPPORTED, V, OK,
     true, "valid"},
    {"rank_mixed", ":362", m_rank_mixed, SUPPORTED, V, INV, false, "not both 3-D or both 4-D"},
    {"negative_self", ":377", m_neg_self, SUPPORTED, V, INV, false, "self has a negative dim"},
    {"kernel_len3", ":393", m_kernel_len3, SUPPORTED, V, INV, false, "kernelSize has length 3"},
    {"kernel_zero", ":400", m_kernel0, SUPPORTED, V, INV, false, "kernelSize[0] = 0"},
    {"stride_len3", ":409", m_stride_len3, SUPPORTED, V, INV, false, "stride has length 3"},
    {"stride_empty_ok", ":545 empty stride = kernel", m_stride_empty, SUPPORTED, V, OK, true,
     "valid"},
    {"stride_negative", ":414", m_stride_neg, SUPPORTED, V, INV, false, "stride[0] = -1"},
    {"padding_len3", ":423", m_pad_len3, SUPPORTED, V, INV, false, "padding has length 3"},
    {"padding_empty", ":102", m_pad_empty, SUPPORTED, V, INV, false, "padding is empty"},
    {"padding_over_half", ":106", m_pad_3, SUPPORTED, V, INV, false, "exceeds half"},
    {"padding_negative", ":85 (vector/regbase lowering); derived on the cube lowering",
     m_pad_neg, SUPPORTED, V, INV, false, "padding H = -1 is less than 0"},
    {"cube_range", ":475 ACLNN_ERR_PARAM_INVALID", m_cube4, SUPPORTED, VEN, INV, false,
     "cubeMathType 4"},
    {"cube_range_old", "v8.5.0 :467 ACLNN_ERR_PARAM_NULLPTR", m_cube4, SUPPORTED, OLD, NUL, false,
     "cubeMathType 4"},
    {"cube0_fp32_no_product_rule", ":433 checks the range only", m_cube0, SUPPORTED, V, OK, true,
     "valid"},
    {"cube3_fp16_no_product_rule", ":433 checks the range only", m_cube3_fp16, SUPPORTED, V, OK,
     true, "valid"},
    {"gradInput_shape", ":445", m_gi_shape, SUPPORTED, V, INV, false, "differs from gradInput"},
    {"gradOutput_spatial_free", "CheckParams :459-478 never derives gradOutput's H, W",
     m_go_spatial, SUPPORTED, V, OK, true, "valid"},
    {"gradOutput_channels", "derived: leading dims kept (the kernels' result is undefined)",
     m_go_c, SUPPORTED, V, INV, false, "gradOutput dim 1 = 8"},
    {"empty_success", ":1159", m_empty_n, SUPPORTED, V, OK, false, "nothing to compute"},
    {"cube_before_empty", ":475 before :1159", m_empty_n_cube9, SUPPORTED, VEN, INV, false,
     "cubeMathType 9"},
    {"empty_before_padding_sign", ":1159 before :85", m_empty_n_pad_neg, SUPPORTED, V, OK, false,
     "nothing to compute"},
    {"divisor_cube_only", ":1102-1112 (non-2dTo3d SoCs)", m_div256, TRAIN_INF, V, INV, false,
     "divisorOverride 256"},
    {"divisor_a2a3_vector", ":1113-1133 falls back to the vector lowering", m_div256, A2A3, V, OK,
     true, "valid"},
    {"divisor_950_regbase", ":1165-1216 regbase lowering, no divisor range", m_div256,
     P(ASCEND950), VEN, OK, true, "valid"},
    {"divisor_950_old", "v8.5.0 :1112-1119: 950 takes the cube branch", m_div256, P(ASCEND950),
     OLD, INV, false, "divisorOverride 256"},
    {"window_overflow", "derived A13: NN:610-611 computes it in int64", m_window_overflow,
     SUPPORTED, V, INV, false, "ends past the int64 range"},
    {"global_skips_lowering_checks", ":1083-1087 and :1191-1197 return first",
     m_global_pad_neg, SUPPORTED, V, OK, true, "valid"},
};

int main(void)
{
    return run_rows("status_vendor_avgpool2d_backward", rows, (int)(sizeof rows / sizeof rows[0]),
                    NULL, 0);
}

/* The status model of aclnnAvgPool2dBackward against the document (spec/000_*), facts.md §3/§4
 * and docs/contract.md. One cmocka test per row; a row is one document or contract line, run on
 * every product and spec version it names, starting each time from the seed example's
 * parameters (valid on every supported product). The expected code of each row is the one the
 * cited line gives; expected forward sizes are hand-derived from the facts §4 formula. */
#include "status_seed.h"

#define BF16_OK (A2A3 | P(ASCEND950))

/* Non-global pooling: kernel 2, stride 2 on 4x4 → 2x2 (facts §4: floor((4-2)/2)+1 = 2). */
static void non_global(ref_status_query *q)
{
    ARRAY(KERNEL_SIZE, 2, 2);
    ARRAY(STRIDE, 2, 2);
    shapes(q, 4, 4, 2, 2);
}

MUT(m_none, (void)q)
MUT(m_fp16, all_dtype(q, REF_DT_FLOAT16))
MUT(m_bf16, all_dtype(q, REF_DT_BF16))
MUT(m_non_global, non_global(q))
MUT(m_ncl3d, for (int i = 0; i < 3; i++) q->t[i].format = REF_FMT_NCL; SHAPE(0, 16, 1, 1);
    SHAPE(1, 16, 4, 4); SHAPE(2, 16, 4, 4))
/* ceil: 5x5, k2 s2: floor((5-2+1)/2)+1 = 3, (3-1)*2 = 4 < 5 keeps 3; floor mode: 2. */
MUT(m_ceil_ok, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); SET(CEIL_MODE, true); shapes(q, 5, 5, 3, 3))
MUT(m_ceil_bad, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); SET(CEIL_MODE, true); shapes(q, 5, 5, 2, 2))
MUT(m_floor_ok, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); shapes(q, 5, 5, 2, 2))
/* ceil drop rule: 1x1, k2 s2 p1: floor((1+2-2+1)/2)+1 = 2, (2-1)*2 = 2 >= 1+1 → 1. */
MUT(m_ceil_drop_ok, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); ARRAY(PADDING, 1); SET(CEIL_MODE, true);
    shapes(q, 1, 1, 1, 1))
MUT(m_ceil_drop_bad, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); ARRAY(PADDING, 1);
    SET(CEIL_MODE, true); shapes(q, 1, 1, 2, 2))
/* Extreme values (fuzz): k = s = 2^63-1, p = 2^62-1 (2p = k-1), ceil, 4x4: facts §4 gives
 * floor((4 + 2^63-2 - (2^63-1) + 2^63-2) / (2^63-1)) + 1 = floor((2^63+1)/(2^63-1)) + 1 = 2, and
 * (2-1)·s = 2^63-1 >= 4 + 2^62-1 drops it to 1. The sum overflows int64. */
MUT(m_extreme_ok, ARRAY(KERNEL_SIZE, INT64_MAX); ARRAY(STRIDE, INT64_MAX);
    ARRAY(PADDING, INT64_MAX / 2); SET(CEIL_MODE, true); shapes(q, 4, 4, 1, 1))
/* padding 1 = kernel 2 / 2 is allowed: floor((4+2-2)/2)+1 = 3. */
MUT(m_pad_half, ARRAY(KERNEL_SIZE, 2); ARRAY(STRIDE, 2); ARRAY(PADDING, 1); shapes(q, 4, 4, 3, 3))

MUT(m_null_go, q->t[0].present = false)
MUT(m_null_self, q->t[1].present = false)
MUT(m_null_kernel, q->p[REF_AVGPOOL_KERNEL_SIZE].present = false)
MUT(m_null_padding, q->p[REF_AVGPOOL_PADDING].present = false)
MUT(m_null_gi, q->t[2].present = false)
MUT(m_null_stride, q->p[REF_AVGPOOL_STRIDE].present = false) /* stride = kernel 4: (4-4)/4+1 = 1 */
MUT(m_null_ws, q->workspace_size_null = true)
MUT(m_null_exec, q->executor_null = true)

MUT(m_go_int32, q->t[0].dtype = REF_DT_INT32)
MUT(m_self_double, q->t[1].dtype = REF_DT_DOUBLE)
MUT(m_gi_double, q->t[2].dtype = REF_DT_DOUBLE)
MUT(m_all_double, all_dtype(q, REF_DT_DOUBLE))
MUT(m_go_fp16, q->t[0].dtype = REF_DT_FLOAT16)
MUT(m_self_fp16, q->t[1].dtype = REF_DT_FLOAT16)
MUT(m_gi_bf16, q->t[2].dtype = REF_DT_BF16)

MUT(m_go_nd, q->t[0].format = REF_FMT_ND)
MUT(m_self_nhwc, q->t[1].format = REF_FMT_NHWC)
MUT(m_gi_nc1hwc0, q->t[2].format = REF_FMT_NC1HWC0)
MUT(m_mixed_formats, q->t[0].format = REF_FMT_NCL)

MUT(m_self_rank5, SHAPE(1, 1, 1, 16, 4, 4); SHAPE(2, 1, 1, 16, 4, 4); SHAPE(0, 1, 1, 16, 1, 1))
MUT(m_rank2, SHAPE(1, 4, 4); SHAPE(2, 4, 4); SHAPE(0, 1, 1))
MUT(m_go_rank3, SHAPE(0, 16, 1, 1))

MUT(m_kernel_len0, set_array(&q->p[REF_AVGPOOL_KERNEL_SIZE], NULL, 0))
MUT(m_kernel_len3, ARRAY(KERNEL_SIZE, 4, 4, 4))
MUT(m_kernel_zero, ARRAY(KERNEL_SIZE, 4, 0))
MUT(m_kernel_neg, ARRAY(KERNEL_SIZE, -4))
MUT(m_kernel_len1, ARRAY(KERNEL_SIZE, 4))
MUT(m_stride_len0, set_array(&q->p[REF_AVGPOOL_STRIDE], NULL, 0)) /* = kernel under vendor: out 1 */
MUT(m_stride_len3, ARRAY(STRIDE, 1, 1, 1))
MUT(m_stride_zero, ARRAY(STRIDE, 0, 1))
MUT(m_stride_neg, ARRAY(STRIDE, -1))
MUT(m_stride_len1, ARRAY(STRIDE, 1))
MUT(m_padding_len0, set_array(&q->p[REF_AVGPOOL_PADDING], NULL, 0))
MUT(m_padding_len3, ARRAY(PADDING, 0, 0, 0))
MUT(m_padding_neg, ARRAY(PADDING, 0, -1))
MUT(m_pad_h_over, ARRAY(KERNEL_SIZE, 2); ARRAY(PADDING, 2)) /* doc: paddingH = 2, kernelH = 2 */
MUT(m_pad_w_over, ARRAY(KERNEL_SIZE, 4, 2); ARRAY(PADDING, 0, 2))

MUT(m_div_256, SET(DIVISOR_OVERRIDE, 256))
MUT(m_div_m256, SET(DIVISOR_OVERRIDE, -256))
MUT(m_div_255, SET(DIVISOR_OVERRIDE, 255))
MUT(m_div_m255, SET(DIVISOR_OVERRIDE, -255))

MUT(m_neg_self, SHAPE(1, 1, 16, -4, 4); SHAPE(2, 1, 16, -4, 4))
MUT(m_neg_go, SHAPE(0, 1, -16, 1, 1))
MUT(m_self_ne_gi, SHAPE(2, 1, 16, 4, 5))
MUT(m_go_c, SHAPE(0, 1, 8, 1, 1))
MUT(m_go_n, SHAPE(0, 2, 16, 1, 1))
MUT(m_go_spatial, SHAPE(0, 1, 16, 2, 2))
MUT(m_go_spatial_w, SHAPE(0, 1, 16, 1, 2))
/* kernel 5 on 4x4, no padding: floor((4-5)/1)+1 = 0 < 1, and gradOutput 0x0 matches it. */
MUT(m_forward_zero, ARRAY(KERNEL_SIZE, 5); shapes(q, 4, 4, 0, 0))

MUT(m_empty_n, SHAPE(1, 0, 16, 4, 4); SHAPE(2, 0, 16, 4, 4); SHAPE(0, 0, 16, 1, 1))
MUT(m_empty_c, SHAPE(1, 1, 0, 4, 4); SHAPE(2, 1, 0, 4, 4); SHAPE(0, 1, 0, 1, 1))
/* H = 0: the forward height floor((0-4)/1)+1 < 0 is an empty output, not a shape error. */
MUT(m_empty_h, SHAPE(1, 1, 16, 0, 4); SHAPE(2, 1, 16, 0, 4); SHAPE(0, 1, 16, 0, 1))
MUT(m_empty_n_cube9, m_empty_n(q); SET(CUBE_MATH_TYPE, 9))

MUT(m_cube4, SET(CUBE_MATH_TYPE, 4))
MUT(m_cube_m1, SET(CUBE_MATH_TYPE, -1))
MUT(m_cube127, SET(CUBE_MATH_TYPE, 127))
MUT(m_cube_m128, SET(CUBE_MATH_TYPE, -128))
MUT(m_cube9, SET(CUBE_MATH_TYPE, 9))
MUT(m_cube257, SET(CUBE_MATH_TYPE, 257))  /* (int8_t)257 = 1 */
MUT(m_cube_m253, SET(CUBE_MATH_TYPE, -253)) /* (int8_t)-253 = 3 */
MUT(m_cube132, SET(CUBE_MATH_TYPE, 132))  /* (int8_t)132 = -124 */
MUT(m_cube0, SET(CUBE_MATH_TYPE, 0))
MUT(m_cube2, SET(CUBE_MATH_TYPE, 2))
MUT(m_cube3, SET(CUBE_MATH_TYPE, 3))
MUT(m_cube0_fp16, SET(CUBE_MATH_TYPE, 0); all_dtype(q, REF_DT_FLOAT16))
MUT(m_cube3_fp16, SET(CUBE_MATH_TYPE, 3); all_dtype(q, REF_DT_FLOAT16))
MUT(m_cube3_bf16, SET(CUBE_MATH_TYPE, 3); all_dtype(q, REF_DT_BF16))
MUT(m_cube2_bf16, SET(CUBE_MATH_TYPE, 2); all_dtype(q, REF_DT_BF16))
MUT(m_cube2_fp16, SET(CUBE_MATH_TYPE, 2); all_dtype(q, REF_DT_FLOAT16))
MUT(m_cube1_bf16, SET(CUBE_MATH_TYPE, 1); all_dtype(q, REF_DT_BF16))
MUT(m_ng_cube2_bf16, non_global(q); m_cube2_bf16(q))
MUT(m_ng_cube3_fp16, non_global(q); m_cube3_fp16(q))
MUT(m_div1_cube3_fp16, SET(DIVISOR_OVERRIDE, 1); m_cube3_fp16(q))
/* padding 1 with kernel 4 stride 1 on 4x4: floor((4+2-4)/1)+1 = 3: not global. */
MUT(m_pad_cube3_fp16, ARRAY(PADDING, 1); shapes(q, 4, 4, 3, 3); m_cube3_fp16(q))

MUT(m_null_bad_dtype, q->t[0].present = false; q->t[1].dtype = REF_DT_INT32)
MUT(m_bad_dtype_format, q->t[0].dtype = REF_DT_INT32; q->t[0].format = REF_FMT_ND)
MUT(m_cube9_bad_dtype, SET(CUBE_MATH_TYPE, 9); all_dtype(q, REF_DT_INT32))
MUT(m_cube9_pad, SET(CUBE_MATH_TYPE, 9); m_pad_h_over(q))
MUT(m_cube9_shape, SET(CUBE_MATH_TYPE, 9); m_go_spatial(q))
MUT(m_cube9_stride0, SET(CUBE_MATH_TYPE, 9); m_stride_len0(q))
MUT(m_format_rank, q->t[1].format = REF_FMT_ND; m_self_rank5(q))
MUT(m_shape_then_empty, SHAPE(1, 0, 16, 4, 4); SHAPE(2, 0, 16, 4, 4); SHAPE(0, 0, 16, 2, 2))
MUT(m_cube3_fp16_then_empty, m_cube3_fp16(q); m_empty_c(q))

static const row rows[] = {
    /* valid calls and the seed example */
    {"seed_valid", "000 Example params + Applicable Products √", m_none, SUPPORTED, DOC, OK,
     true, "valid"},
    {"seed_unsupported_product", "000 Applicable Products: Atlas 200I/500 A2 × (facts §2)",
     m_none, P(ASCEND310B), DOC, INV, false, "not supported on ascend310b"},
    {"fp16_valid", "000 dtype column FLOAT16", m_fp16, SUPPORTED, DOC, OK, true, "valid"},
    {"bf16_valid", "000 dtype column BFLOAT16", m_bf16, BF16_OK, DOC, OK, true, "valid"},
    {"bf16_train_inf", "000 'Atlas inference/training products: ... do not support BFLOAT16'",
     m_bf16, TRAIN_INF, DOC, INV, false, "BF16 is not supported"},
    {"non_global_valid", "facts §4 output size (4-2)/2+1 = 2", m_non_global, SUPPORTED, DOC,
     OK, true, "valid"},
    {"ncl_3d_valid", "000 format NCL, shape 3-4", m_ncl3d, SUPPORTED, DOC, OK, true, "valid"},
    {"ceil_mode_valid", "facts §4 ceil: floor((5-2+1)/2)+1 = 3", m_ceil_ok, SUPPORTED, DOC, OK,
     true, "valid"},
    {"ceil_mode_wrong_size", "facts §3 gradOutput = forward size (3, not 2)", m_ceil_bad,
     SUPPORTED, DOC, INV, false, "forward output size 3"},
    {"floor_mode_valid", "facts §4: floor((5-2)/2)+1 = 2", m_floor_ok, SUPPORTED, DOC, OK,
     true, "valid"},
    {"ceil_drop_valid", "facts §4 ceil rule (2-1)*2 >= 1+1 → 1", m_ceil_drop_ok, SUPPORTED,
     DOC, OK, true, "valid"},
    {"ceil_drop_wrong_size", "facts §4 ceil rule gives 1, not 2", m_ceil_drop_bad, SUPPORTED,
     DOC, INV, false, "forward output size 1"},
    {"extreme_params_no_overflow", "facts §4 size formula, hand-derived at 2^63-1",
     m_extreme_ok, SUPPORTED, DOC, OK, true, "valid"},
    {"padding_half_kernel_valid", "000 'padding exceeds 1/2 of kernelSize' (equal is fine)",
     m_pad_half, SUPPORTED, DOC, OK, true, "valid"},

    /* 161001 row: gradOutput, self, kernelSize, padding, gradInput null */
    {"null_gradOutput", "000 161001 row", m_null_go, ALL_P, DOC, NUL, false, "gradOutput"},
    {"null_self", "000 161001 row", m_null_self, ALL_P, DOC, NUL, false, "self"},
    {"null_kernelSize", "000 161001 row", m_null_kernel, ALL_P, DOC, NUL, false, "kernelSize"},
    {"null_padding", "000 161001 row", m_null_padding, ALL_P, DOC, NUL, false, "padding"},
    {"null_gradInput", "000 161001 row", m_null_gi, ALL_P, DOC, NUL, false, "gradInput"},
    {"null_stride_is_kernel", "facts §3 'null stride accepted, stride = kernel'; contract",
     m_null_stride, SUPPORTED, DOC, OK, true, "valid"},
    {"null_workspaceSize", "contract Both operators: workspaceSize NULL → 161001", m_null_ws,
     ALL_P, DOC, NUL, false, "workspaceSize"},
    {"null_executor", "contract Both operators: executor NULL → 161001", m_null_exec, ALL_P,
     DOC, NUL, false, "executor"},

    /* 161002 "data type ... of gradOutput or gradInput is not within the supported range" */
    {"dtype_gradOutput_int32", "000 161002 dtype range", m_go_int32, SUPPORTED, DOC, INV, false,
     "gradOutput dtype INT32 is not supported"},
    {"dtype_self_double", "000 dtype column (no DOUBLE); contract support of all three",
     m_self_double, SUPPORTED, DOC, INV, false, "self dtype DOUBLE"},
    {"dtype_gradInput_double", "000 161002 dtype range", m_gi_double, SUPPORTED, DOC, INV,
     false, "gradInput dtype DOUBLE"},
    {"dtype_all_double", "000 161002 dtype range", m_all_double, SUPPORTED, DOC, INV, false,
     "not supported"},
    /* "The data type ... of the passed self and gradInput is inconsistent." */
    {"dtype_gradOutput_differs", "000 161002 inconsistent dtype; facts §3 all equal", m_go_fp16,
     SUPPORTED, DOC, INV, false, "gradOutput dtype FLOAT16 differs from gradInput dtype FLOAT"},
    {"dtype_self_differs", "000 161002 self/gradInput inconsistent", m_self_fp16, SUPPORTED,
     DOC, INV, false, "self dtype FLOAT16 differs from gradInput dtype FLOAT"},
    {"dtype_gradInput_bf16_differs", "000 161002 self/gradInput inconsistent", m_gi_bf16, BF16_OK,
     DOC, INV, false, "differs from gradInput dtype BF16"},

    /* 161002 "data format ... not within the supported range" (NCHW, NCL) */
    {"format_gradOutput_nd", "000 161002 format range", m_go_nd, SUPPORTED, DOC, INV, false,
     "gradOutput format ND"},
    {"format_self_nhwc", "000 161002 format range", m_self_nhwc, SUPPORTED, DOC, INV, false,
     "self format NHWC"},
    {"format_gradInput_nc1hwc0", "000 161002 format range", m_gi_nc1hwc0, SUPPORTED, DOC, INV,
     false, "gradInput format NC1HWC0"},
    {"format_mixed_nchw_ncl_ok", "contract: format and rank not cross-checked (derived)",
     m_mixed_formats, SUPPORTED, DOC, OK, true, "valid"},

    /* 161002 "The dimension of gradOutput, self, kernelSize, stride, or gradInput ..." */
    {"rank_5", "000 161002 dimension range (shape 3-4)", m_self_rank5, SUPPORTED, DOC, INV,
     false, "rank 5"},
    {"rank_2", "000 161002 dimension range (shape 3-4)", m_rank2, SUPPORTED, DOC, INV, false,
     "rank 2"},
    {"rank_unequal", "contract: the three ranks equal", m_go_rank3, SUPPORTED, DOC, INV, false,
     "gradOutput rank 3 differs"},
    {"kernel_len0", "000 kernelSize 'Length of 1 or 2'", m_kernel_len0, SUPPORTED, DOC, INV,
     false, "kernelSize has length 0"},
    {"kernel_len3", "000 kernelSize 'Length of 1 or 2'", m_kernel_len3, SUPPORTED, DOC, INV,
     false, "kernelSize has length 3"},
    {"kernel_len1_valid", "000 kernelSize 'Length of 1 (kH = kW)'", m_kernel_len1, SUPPORTED,
     DOC, OK, true, "valid"},
    {"kernel_zero", "000 kernelSize 'values greater than 0'", m_kernel_zero, SUPPORTED, DOC,
     INV, false, "kernelSize[1] = 0"},
    {"kernel_negative", "000 161002 'dimension value ... kernelSize ... less than 0'",
     m_kernel_neg, SUPPORTED, DOC, INV, false, "kernelSize[0] = -4"},
    {"stride_len0_doc", "000 stride 'Length of 1 or 2'", m_stride_len0, SUPPORTED, DOC, INV,
     false, "stride has length 0"},
    {"stride_len0_vendor", "facts §3 'stride length <= 2'; contract: empty = kernel",
     m_stride_len0, SUPPORTED, VEN | OLD, OK, true, "valid"},
    {"stride_len3", "000 stride 'Length of 1 or 2'; facts §3 length <= 2", m_stride_len3,
     SUPPORTED, DOC, INV, false, "stride has length 3"},
    {"stride_zero", "000 stride 'must be greater than 0'", m_stride_zero, SUPPORTED, DOC, INV,
     false, "stride[0] = 0"},
    {"stride_negative", "000 161002 'stride ... less than 0'", m_stride_neg, SUPPORTED, DOC,
     INV, false, "stride[0] = -1"},
    {"stride_len1_valid", "000 stride 'Length of 1 (sH=sW)'", m_stride_len1, SUPPORTED, DOC, OK,
     true, "valid"},
    {"padding_len0", "facts §3 'padding length 1 or 2 (empty → 161002)'", m_padding_len0,
     SUPPORTED, DOC, INV, false, "padding has length 0"},
    {"padding_len3", "000 padding 'Length of 1 or 2'", m_padding_len3, SUPPORTED, DOC, INV,
     false, "padding has length 3"},
    {"padding_negative", "000 padding 'cannot be less than 0'", m_padding_neg, SUPPORTED, DOC,
     INV, false, "padding[1] = -1"},
    {"padding_over_half_h", "000 161002 'paddingH = 2 and kernelSizeH = 2'", m_pad_h_over,
     SUPPORTED, DOC, INV, false, "padding H = 2 exceeds half of kernelSize H = 2"},
    {"padding_over_half_w", "000 161002 padding > kernelSize/2", m_pad_w_over, SUPPORTED, DOC,
     INV, false, "padding W = 2"},

    /* 161002 "divisorOverride is not within the supported range ... not on 950" */
    {"divisor_256_train_inf", "000 divisorOverride [-255,255] on inference/training",
     m_div_256, TRAIN_INF, DOC, INV, false, "divisorOverride 256"},
    {"divisor_m256_train_inf", "000 divisorOverride [-255,255] on inference/training",
     m_div_m256, TRAIN_INF, DOC, INV, false, "divisorOverride -256"},
    {"divisor_256_elsewhere", "000 'does not apply to 950'; contract: any value elsewhere",
     m_div_256, BF16_OK, DOC, OK, true, "valid"},
    {"divisor_m256_elsewhere", "contract: any value elsewhere", m_div_m256, BF16_OK, DOC, OK,
     true, "valid"},
    {"divisor_255", "000 divisorOverride [-255,255]", m_div_255, SUPPORTED, DOC, OK, true,
     "valid"},
    {"divisor_m255", "000 divisorOverride [-255,255]; facts §4 negative legal", m_div_m255,
     SUPPORTED, DOC, OK, true, "valid"},

    /* shapes */
    {"negative_dim_self", "000 161002 'dimension value ... self ... less than 0'", m_neg_self,
     SUPPORTED, DOC, INV, false, "self dim 2 is negative"},
    {"negative_dim_gradOutput", "000 161002 'dimension value of gradOutput less than 0'",
     m_neg_go, SUPPORTED, DOC, INV, false, "gradOutput dim 1 is negative"},
    {"self_shape_ne_gradInput", "facts §3 'self shape ≠ gradInput shape → 161002'", m_self_ne_gi,
     SUPPORTED, DOC, INV, false, "self shape [1,16,4,4] differs from gradInput shape"},
    {"gradOutput_c_differs", "contract: gradOutput has self's N, C", m_go_c, SUPPORTED, DOC, INV,
     false, "gradOutput dim 1 = 8"},
    {"gradOutput_n_differs", "contract: gradOutput has self's N, C", m_go_n, SUPPORTED, DOC, INV,
     false, "gradOutput dim 0 = 2"},
    {"gradOutput_spatial_differs", "facts §3 forward size (4-4)/1+1 = 1, not 2", m_go_spatial,
     SUPPORTED, DOC, INV, false, "gradOutput height 2"},
    {"gradOutput_width_differs", "facts §3 forward size 1, not 2", m_go_spatial_w, SUPPORTED,
     DOC, INV, false, "gradOutput width 2"},
    {"forward_size_zero", "contract: forward output size must be >= 1", m_forward_zero, SUPPORTED,
     DOC, INV, false, "less than 1"},

    /* empty tensors: doc "Empty tensors are not supported"; facts §3 vendor success */
    {"empty_n_doc", "000 gradOutput/self 'Empty tensors are not supported'", m_empty_n, SUPPORTED,
     DOC, INV, false, "empty"},
    {"empty_n_vendor", "facts §3 'the code returns success with workspace 0'", m_empty_n,
     SUPPORTED, VEN | OLD, OK, false, "nothing to compute"},
    {"empty_c_doc", "000 'Empty tensors are not supported'", m_empty_c, SUPPORTED, DOC, INV, false,
     "empty"},
    {"empty_c_vendor", "facts §3 empty → success", m_empty_c, SUPPORTED, VEN | OLD, OK, false,
     "nothing to compute"},
    {"empty_h_doc", "000 'Empty tensors are not supported'", m_empty_h, SUPPORTED, DOC, INV, false,
     "empty"},
    {"empty_h_vendor", "facts §3 every empty tensor → success", m_empty_h, SUPPORTED, VEN | OLD,
     OK, false, "nothing to compute"},

    /* cubeMathType range: doc 161002 row; facts §3 vendor 161002, older releases 161001 */
    {"cube_4", "000 161002 'cubeMathType not within the supported range'", m_cube4, SUPPORTED,
     DOC, INV, false, "cubeMathType 4 is outside 0..3"},
    {"cube_4_old", "facts §3 'older releases returned 161001'", m_cube4, SUPPORTED, OLD, NUL,
     false, "cubeMathType 4"},
    {"cube_m1", "000 161002 cubeMathType range", m_cube_m1, SUPPORTED, DOC, INV, false,
     "cubeMathType -1"},
    {"cube_m1_old", "facts §3 older releases 161001", m_cube_m1, SUPPORTED, OLD, NUL, false,
     "cubeMathType -1"},
    {"cube_127", "000 161002 cubeMathType range", m_cube127, SUPPORTED, DOC, INV, false,
     "127"},
    {"cube_127_old", "facts §3 older releases 161001", m_cube127, SUPPORTED, OLD, NUL, false,
     "127"},
    {"cube_m128", "000 161002 cubeMathType range", m_cube_m128, SUPPORTED, DOC, INV, false,
     "-128"},
    {"cube_9_old_valid_else", "facts §3 older releases 161001 (check order: last)", m_cube9,
     SUPPORTED, OLD, NUL, false, "cubeMathType 9"},
    {"cube_int8_257_is_1", "prototype int8_t cubeMathType: (int8_t)257 = 1", m_cube257, SUPPORTED,
     DOC, OK, true, "valid"},
    {"cube_int8_m253_is_3_a2a3", "(int8_t)-253 = 3; 000 '3: FLOAT32 → HFLOAT32' on A2/A3",
     m_cube_m253, A2A3 | P(ASCEND950), DOC, OK, true, "valid"},
    {"cube_int8_132_is_m124", "(int8_t)132 = -124; 000 161002 cubeMathType range", m_cube132,
     SUPPORTED, DOC, INV, false, "cubeMathType -124"},
    {"cube_int8_132_is_m124_old", "(int8_t)132 = -124; facts §3 older releases 161001",
     m_cube132, SUPPORTED, OLD, NUL, false, "cubeMathType -124"},

    /* cubeMathType per product (000 enumeration), 161002 in every spec (contract) */
    {"cube0_fp32_train_inf", "000 '0: ... training/inference: not supported with FLOAT32'",
     m_cube0, TRAIN_INF, DOC, INV, false, "cubeMathType 0 (KEEP_DTYPE)"},
    {"cube0_fp32_elsewhere", "000 '0: KEEP_DTYPE' (no restriction)", m_cube0, BF16_OK, DOC, OK,
     true, "valid"},
    {"cube0_fp16_train_inf", "000 '0' restriction is FLOAT32 only", m_cube0_fp16, TRAIN_INF, DOC,
     OK, true, "valid"},
    {"cube3_train_inf", "000 '3: training/inference: This option is not supported'", m_cube3,
     TRAIN_INF, DOC, INV, false, "cubeMathType 3 (USE_HF32) is not supported on"},
    {"cube3_fp16_train_inf", "000 '3: ... not supported' (any dtype)", m_cube3_fp16, TRAIN_INF,
     DOC, INV, false, "cubeMathType 3"},
    {"cube3_fp32_a2a3", "000 '3: A2/A3: FLOAT32 → HFLOAT32'", m_cube3, A2A3, DOC, OK, true,
     "valid"},
    {"cube3_fp16_a2a3", "000 '3: A2/A3: not supported for other input data types'", m_cube3_fp16,
     A2A3, DOC, INV, false, "with FLOAT16"},
    {"cube3_bf16_a2a3", "000 '3: A2/A3: not supported for other input data types'", m_cube3_bf16,
     A2A3, DOC, INV, false, "with BF16"},
    {"cube2_bf16_a2a3", "000 '2: A2/A3: not supported when the input is BFLOAT16'", m_cube2_bf16,
     A2A3, DOC, INV, false, "cubeMathType 2 (USE_FP16)"},
    {"cube2_fp32_all", "000 '2: USE_FP16' (FLOAT32 allowed everywhere)", m_cube2, SUPPORTED, DOC,
     OK, true, "valid"},
    {"cube2_fp16_all", "000 '2: USE_FP16'", m_cube2_fp16, SUPPORTED, DOC, OK, true, "valid"},
    {"cube1_bf16", "000 '1: ... No processing for other input data types'", m_cube1_bf16, BF16_OK,
     DOC, OK, true, "valid"},
    {"cube2_bf16_950_global", "000 '2: 950: In globalPooling mode, not supported with BF16'",
     m_cube2_bf16, P(ASCEND950), DOC, INV, false, "in global pooling"},
    {"cube3_fp16_950_global", "000 '3: 950: In globalPooling mode ... not supported for other'",
     m_cube3_fp16, P(ASCEND950), DOC, INV, false, "with FLOAT16 on ascend950 in global"},
    {"cube3_bf16_950_global", "000 '3: 950 globalPooling: other dtypes not supported'",
     m_cube3_bf16, P(ASCEND950), DOC, INV, false, "with BF16"},
    {"cube3_fp32_950_global", "000 '3: 950 globalPooling: FLOAT32 → HFLOAT32'", m_cube3,
     P(ASCEND950), DOC, OK, true, "valid"},
    {"cube2_bf16_950_not_global", "000 950 rules apply 'In globalPooling mode' only",
     m_ng_cube2_bf16, P(ASCEND950), DOC, OK, true, "valid"},
    {"cube3_fp16_950_not_global", "000 950 rules 'In globalPooling mode' only", m_ng_cube3_fp16,
     P(ASCEND950), DOC, OK, true, "valid"},
    {"cube3_fp16_950_divisor_not_global", "contract: global pooling needs divisorOverride 0",
     m_div1_cube3_fp16, P(ASCEND950), DOC, OK, true, "valid"},
    {"cube3_fp16_950_padding_not_global", "contract: global pooling needs padding 0",
     m_pad_cube3_fp16, P(ASCEND950), DOC, OK, true, "valid"},
    {"cube2_bf16_a2a3_not_global", "000 A2/A3 rule has no globalPooling condition",
     m_ng_cube2_bf16, A2A3, DOC, INV, false, "cubeMathType 2"},

    /* check order (contract): the first failing check decides */
    {"order_null_before_dtype", "contract order 1 < 3", m_null_bad_dtype, ALL_P, DOC, NUL, false,
     "gradOutput is a null pointer"},
    {"order_null_before_product", "contract order 1 < 2", m_null_go, P(ASCEND310B), DOC, NUL,
     false, "null"},
    {"order_product_before_dtype", "contract order 2 < 3", m_go_int32, P(ASCEND310B), DOC, INV,
     false, "not supported on ascend310b"},
    {"order_dtype_before_format", "contract order 3 < 4", m_bad_dtype_format, SUPPORTED, DOC,
     INV, false, "dtype INT32"},
    {"order_format_before_rank", "contract order 4 < 5", m_format_rank, SUPPORTED, DOC, INV,
     false, "self format ND"},
    {"order_dtype_before_cube_old", "contract order 3 < 9: 161002 wins under vendor-old",
     m_cube9_bad_dtype, SUPPORTED, DOC, INV, false, "dtype INT32"},
    {"order_params_before_cube_old", "contract order 6 < 9", m_cube9_pad, SUPPORTED, DOC, INV,
     false, "padding H"},
    {"order_stride_doc_before_cube", "contract order 6 < 9 (doc); vendor stride empty = kernel",
     m_cube9_stride0, SUPPORTED, DOC, INV, false, "stride has length 0"},
    {"order_stride_vendor_then_cube", "vendor: empty stride valid, then cube 9 → 161002",
     m_cube9_stride0, SUPPORTED, VEN, INV, false, "cubeMathType 9"},
    {"order_stride_old_then_cube", "vendor-old: empty stride valid, then cube 9 → 161001",
     m_cube9_stride0, SUPPORTED, OLD, NUL, false, "cubeMathType 9"},
    {"order_shape_before_cube_old", "contract order 7 < 9", m_cube9_shape, SUPPORTED, DOC, INV,
     false, "gradOutput height"},
    {"order_shape_before_empty", "contract order 7 < 8: N=0 but gradOutput 2x2 ≠ 1",
     m_shape_then_empty, SUPPORTED, DOC, INV, false, "gradOutput height 2"},
    {"order_empty_before_cube_doc", "contract order 8 < 9: doc empty → 161002", m_empty_n_cube9,
     SUPPORTED, DOC, INV, false, "empty"},
    /* The vendor code checks cubeMathType (ops-nn v9.0.0 aclnn_avgpool2d_backward.cpp:475)
     * before it looks at empty tensors (:1159), so the range decides here. */
    {"order_cube_before_empty_vendor", "ops-nn v9.0.0 aclnn_avgpool2d_backward.cpp:475 < :1159",
     m_empty_n_cube9, SUPPORTED, VEN, INV, false, "cubeMathType 9"},
    {"order_cube_before_empty_old", "ops-nn v8.5.0 aclnn_avgpool2d_backward.cpp:467 < :1168",
     m_empty_n_cube9, SUPPORTED, OLD, NUL, false, "cubeMathType 9"},
    {"order_empty_before_cube_rule", "contract order 8 < 9: product rule not reached",
     m_cube3_fp16_then_empty, A2A3, VEN | OLD, OK, false, "nothing to compute"},
};

/* The reason sentence of the brief's example, and a NULL query. */
static void reason_example(void **state)
{
    (void)state;
    ref_status_query q = seed(REF_PRODUCT_ASCEND910B, REF_SPEC_DOC);
    q.t[0].dtype = REF_DT_FLOAT16;
    ref_status r = ref_expected_status(&q);
    assert_string_equal(r.reason, "gradOutput dtype FLOAT16 differs from gradInput dtype FLOAT");
    assert_int_equal(ref_expected_status(NULL).status, REF_STATUS_NULLPTR);
}

int main(void)
{
    const struct CMUnitTest extra[] = {cmocka_unit_test(reason_example)};
    return run_rows("status_avgpool2d_backward", rows, (int)(sizeof rows / sizeof rows[0]), extra,
                    1);
}

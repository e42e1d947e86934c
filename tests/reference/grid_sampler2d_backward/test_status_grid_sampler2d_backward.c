/* The status model of aclnnGridSampler2DBackward against the document (spec/003_*), facts.md §3
 * and docs/contract.md. One cmocka test per row; a row is one document or contract line, run on
 * every product and spec version it names, starting each time from the seed example's
 * parameters (valid on every supported product). The expected code of each row is the one the
 * cited line gives. */
#include "status_seed.h"

#define WIDE (P(ASCEND910B) | P(ASCEND910_93) | P(ASCEND950)) /* BF16 and DOUBLE */

MUT(m_none, (void)q)
MUT(m_fp16, all_dtype(q, REF_DT_FLOAT16))
MUT(m_bf16, all_dtype(q, REF_DT_BF16))
MUT(m_double, all_dtype(q, REF_DT_DOUBLE))
MUT(m_int32, all_dtype(q, REF_DT_INT32))
MUT(m_grid_fp16, q->t[2].dtype = REF_DT_FLOAT16)
MUT(m_go_fp16, q->t[0].dtype = REF_DT_FLOAT16)
MUT(m_ig_double, q->t[3].dtype = REF_DT_DOUBLE)
MUT(m_gg_fp16, q->t[4].dtype = REF_DT_FLOAT16)
MUT(m_input_bf16, q->t[1].dtype = REF_DT_BF16)
MUT(m_nchw, for (int i = 0; i < 5; i++) q->t[i].format = REF_FMT_NCHW)
MUT(m_nhwc_mixed, q->t[1].format = REF_FMT_NHWC; q->t[2].format = REF_FMT_NC1HWC0)
MUT(m_bicubic_like, SET(INTERPOLATION_MODE, 1); SET(PADDING_MODE, 2); SET(ALIGN_CORNERS, true))
MUT(m_border, SET(PADDING_MODE, 1))

MUT(m_null_go, q->t[0].present = false)
MUT(m_null_input, q->t[1].present = false)
MUT(m_null_grid, q->t[2].present = false)
MUT(m_null_ig, q->t[3].present = false)
MUT(m_null_gg, q->t[4].present = false)
MUT(m_null_gg_mask_off, q->t[4].present = false; MASK(true, false))
MUT(m_null_ws, q->workspace_size_null = true)
MUT(m_null_exec, q->executor_null = true)
MUT(m_null_mask, q->p[REF_GRID_OUTPUT_MASK].present = false; q->p[REF_GRID_OUTPUT_MASK].len = 0)
MUT(m_null_mask_null_go, m_null_mask(q); q->t[0].present = false)
MUT(m_null_mask_bad, m_null_mask(q); m_int32(q); q->t[1].rank = 3)
MUT(m_null_mask_null_exec, m_null_mask(q); q->executor_null = true)

MUT(m_go_rank3, SHAPE(0, 1, 3, 3))
MUT(m_input_rank5, SHAPE(1, 1, 1, 1, 5, 8); SHAPE(3, 1, 1, 1, 5, 8))
MUT(m_grid_rank3, SHAPE(2, 3, 3, 2); SHAPE(4, 3, 3, 2))
MUT(m_ig_rank3, SHAPE(3, 1, 5, 8))
MUT(m_interp2, SET(INTERPOLATION_MODE, 2))
MUT(m_interp_m1, SET(INTERPOLATION_MODE, -1))
MUT(m_pad3, SET(PADDING_MODE, 3))
MUT(m_pad_m1, SET(PADDING_MODE, -1))

MUT(m_input_n2, SHAPE(1, 2, 1, 5, 8); SHAPE(3, 2, 1, 5, 8))
MUT(m_grid_n2, SHAPE(2, 2, 3, 3, 2); SHAPE(4, 2, 3, 3, 2))
MUT(m_input_c2, SHAPE(1, 1, 2, 5, 8); SHAPE(3, 1, 2, 5, 8))
MUT(m_grid_h4, SHAPE(2, 1, 4, 3, 2); SHAPE(4, 1, 4, 3, 2))
MUT(m_grid_w4, SHAPE(2, 1, 3, 4, 2); SHAPE(4, 1, 3, 4, 2))
MUT(m_input_h0, SHAPE(1, 1, 1, 0, 8); SHAPE(3, 1, 1, 0, 8))
MUT(m_input_w0, SHAPE(1, 1, 1, 5, 0); SHAPE(3, 1, 1, 5, 0))
MUT(m_grid_last3, SHAPE(2, 1, 3, 3, 3); SHAPE(4, 1, 3, 3, 3))
MUT(m_ig_shape, SHAPE(3, 1, 1, 5, 7))
MUT(m_gg_shape, SHAPE(4, 1, 3, 2, 2))
MUT(m_neg_input, shapes(q, 1, 1, -5, 8, 3, 3))
MUT(m_neg_grid, shapes(q, 1, 1, 5, 8, 3, -3))

MUT(m_empty_n, shapes(q, 0, 1, 5, 8, 3, 3))
MUT(m_empty_c, shapes(q, 1, 0, 5, 8, 3, 3))
MUT(m_empty_ho, shapes(q, 1, 1, 5, 8, 0, 3))
MUT(m_empty_wo, shapes(q, 1, 1, 5, 8, 3, 0))
MUT(m_empty_n_input_h0, shapes(q, 0, 1, 0, 8, 3, 3))

MUT(m_mask_ff, MASK(false, false))
MUT(m_mask_empty, q->p[REF_GRID_OUTPUT_MASK].len = 0)
MUT(m_mask_tf, MASK(true, false))
MUT(m_mask_ft, MASK(false, true))
MUT(m_mask_t, MASK(true))
MUT(m_mask_f, MASK(false))
MUT(m_mask_fft, MASK(false, false, true))
MUT(m_mask_ff_bad_mode, MASK(false, false); SET(PADDING_MODE, 7))

MUT(m_null_unsupported_dtype, q->t[0].present = false; m_int32(q))
MUT(m_bad_dtype_rank, m_int32(q); m_go_rank3(q))
MUT(m_rank_mode, m_go_rank3(q); m_interp2(q))
MUT(m_mode_shape, m_interp2(q); m_input_c2(q))
MUT(m_shape_then_empty, m_empty_n(q); SHAPE(2, 0, 3, 3, 3); SHAPE(4, 0, 3, 3, 3))

static const row rows[] = {
    /* valid calls and the seed example */
    {"seed_valid", "003 Example params + Applicable Products √", m_none, SUPPORTED, DOC, OK,
     true, "valid"},
    {"seed_unsupported_products", "003 Applicable Products: 200I/500 A2 ×, inference ×", m_none,
     UNSHIPPED, DOC, INV, false, "not supported on ascend310"},
    {"fp16_valid", "003 dtype column FLOAT16", m_fp16, SUPPORTED, DOC, OK, true, "valid"},
    {"bf16_valid", "003 dtype column BFLOAT16", m_bf16, WIDE, DOC, OK, true, "valid"},
    {"double_valid", "003 dtype column DOUBLE", m_double, WIDE, DOC, OK, true, "valid"},
    {"bf16_training", "003 'Atlas training products: ... does not support BFLOAT16'", m_bf16,
     P(ASCEND910), DOC, INV, false, "BF16 is not supported on ascend910"},
    {"double_training", "003 'Atlas training products: ... or DOUBLE'; contract (all specs)",
     m_double, P(ASCEND910), DOC, INV, false, "DOUBLE is not supported on ascend910"},
    {"formats_not_checked_nchw", "contract: formats not checked (no format row)", m_nchw,
     SUPPORTED, DOC, OK, true, "valid"},
    {"formats_not_checked_mixed", "contract: formats not checked", m_nhwc_mixed, SUPPORTED, DOC,
     OK, true, "valid"},
    {"nearest_reflection_align", "003 interpolationMode 1, paddingMode 2", m_bicubic_like,
     SUPPORTED, DOC, OK, true, "valid"},
    {"border", "003 paddingMode 1", m_border, SUPPORTED, DOC, OK, true, "valid"},

    /* 161001 row: gradOutput, input, grid, inputGrad, gridGrad null */
    {"null_gradOutput", "003 161001 row", m_null_go, ALL_P, DOC, NUL, false, "gradOutput"},
    {"null_input", "003 161001 row", m_null_input, ALL_P, DOC, NUL, false, "input is a null"},
    {"null_grid", "003 161001 row", m_null_grid, ALL_P, DOC, NUL, false, "grid is a null"},
    {"null_inputGrad", "003 161001 row", m_null_ig, ALL_P, DOC, NUL, false, "inputGrad"},
    {"null_gridGrad", "003 161001 row", m_null_gg, ALL_P, DOC, NUL, false, "gridGrad"},
    {"null_gridGrad_masked_off", "contract: all five null → 161001 whatever the mask",
     m_null_gg_mask_off, ALL_P, DOC, NUL, false, "gridGrad"},
    {"null_workspaceSize", "contract Both operators: workspaceSize NULL → 161001", m_null_ws,
     ALL_P, DOC, NUL, false, "workspaceSize"},
    {"null_executor", "contract Both operators: executor NULL → 161001", m_null_exec, ALL_P,
     DOC, NUL, false, "executor"},
    {"null_outputMask_doc", "contract: outputMask NULL doc → 161001 (derived)", m_null_mask,
     ALL_P, DOC, NUL, false, "outputMask"},
    {"null_outputMask_vendor", "facts §3 'outputMask null → success with workspace 0'",
     m_null_mask, ALL_P, VEN | OLD, OK, false, "nothing to compute"},
    {"null_outputMask_before_null_checks", "facts §3 '... checked before the null checks'",
     m_null_mask_null_go, ALL_P, VEN | OLD, OK, false, "outputMask"},
    {"null_outputMask_before_all_checks", "contract: vendor success before any other check",
     m_null_mask_bad, ALL_P, VEN | OLD, OK, false, "outputMask"},
    {"null_outputMask_doc_order", "contract: doc nulls in parameter order (gradOutput first)",
     m_null_mask_null_go, ALL_P, DOC, NUL, false, "gradOutput is a null"},
    {"null_executor_before_mask", "contract Both operators (derived: success writes them)",
     m_null_mask_null_exec, ALL_P, DOC, NUL, false, "executor"},

    /* 161002 "data types ... not within the supported range" and "consistent with input" */
    {"dtype_int32", "003 161002 dtype range", m_int32, SUPPORTED, DOC, INV, false,
     "gradOutput dtype INT32 is not supported"},
    {"dtype_grid_differs", "003 grid 'data type must be consistent with input'", m_grid_fp16,
     SUPPORTED, DOC, INV, false, "grid dtype FLOAT16 differs from input dtype FLOAT"},
    {"dtype_gradOutput_differs", "003 gradOutput 'same as that of input'", m_go_fp16, SUPPORTED,
     DOC, INV, false, "gradOutput dtype FLOAT16 differs"},
    {"dtype_inputGrad_differs", "003 inputGrad 'consistent with ... input'", m_ig_double, WIDE,
     DOC, INV, false, "inputGrad dtype DOUBLE differs"},
    {"dtype_gridGrad_differs", "003 gridGrad 'consistent with ... input'", m_gg_fp16, SUPPORTED,
     DOC, INV, false, "gridGrad dtype FLOAT16 differs"},
    {"dtype_input_differs", "003 all consistent with input", m_input_bf16, WIDE, DOC, INV,
     false, "differs from input dtype BF16"},

    /* 161002 "shape dimension values ... are not four-dimensional" */
    {"rank_gradOutput_3", "003 161002 not four-dimensional", m_go_rank3, SUPPORTED, DOC, INV,
     false, "gradOutput has rank 3"},
    {"rank_input_5", "003 161002 not four-dimensional", m_input_rank5, SUPPORTED, DOC, INV,
     false, "input has rank 5"},
    {"rank_grid_3", "003 161002 not four-dimensional", m_grid_rank3, SUPPORTED, DOC, INV, false,
     "grid has rank 3"},
    {"rank_inputGrad_3", "contract: rank 4 (and the outputs)", m_ig_rank3, SUPPORTED, DOC, INV,
     false, "inputGrad has rank 3"},

    /* 161002 "interpolationMode or paddingMode is not within the supported range" */
    {"interp_2", "003 161002 mode range (0, 1); contract: bicubic not in the document", m_interp2,
     SUPPORTED, DOC, INV, false, "interpolationMode 2"},
    {"interp_m1", "003 161002 mode range", m_interp_m1, SUPPORTED, DOC, INV, false,
     "interpolationMode -1"},
    {"padding_3", "003 161002 mode range (0, 1, 2)", m_pad3, SUPPORTED, DOC, INV, false,
     "paddingMode 3"},
    {"padding_m1", "003 161002 mode range", m_pad_m1, SUPPORTED, DOC, INV, false,
     "paddingMode -1"},

    /* 161002 shape rows, in the table's order */
    {"first_dim_input", "003 161002 'first dimension values ... not the same'", m_input_n2,
     SUPPORTED, DOC, INV, false, "first dims"},
    {"first_dim_grid", "003 161002 'first dimension values ... not the same'", m_grid_n2,
     SUPPORTED, DOC, INV, false, "first dims"},
    {"second_dim_input", "003 161002 'second dimension value of input ... gradOutput'",
     m_input_c2, SUPPORTED, DOC, INV, false, "input dim 1 (2) differs"},
    {"grid_dim1", "003 161002 'second dimension of grid and third of gradOutput'", m_grid_h4,
     SUPPORTED, DOC, INV, false, "grid dim 1 (4)"},
    {"grid_dim2", "003 161002 'third dimension of grid and fourth of gradOutput'", m_grid_w4,
     SUPPORTED, DOC, INV, false, "grid dim 2 (4)"},
    {"input_h0", "003 161002 'last two dimensions of input is 0'", m_input_h0, SUPPORTED, DOC,
     INV, false, "input spatial dims (0, 8)"},
    {"input_w0", "003 161002 'last two dimensions of input is 0'", m_input_w0, SUPPORTED, DOC,
     INV, false, "input spatial dims (5, 0)"},
    {"grid_last_dim", "003 161002 'last dimension of grid is not equal to 2'", m_grid_last3,
     SUPPORTED, DOC, INV, false, "grid last dim is 3"},
    {"inputGrad_shape", "003 161002 'shape of input inconsistent with inputGrad'", m_ig_shape,
     SUPPORTED, DOC, INV, false, "inputGrad shape [1,1,5,7]"},
    {"gridGrad_shape", "003 161002 'shape of grid inconsistent with gridGrad'", m_gg_shape,
     SUPPORTED, DOC, INV, false, "gridGrad shape [1,3,2,2]"},
    {"negative_dim_input", "contract Both operators: negative dims → 161002", m_neg_input,
     SUPPORTED, DOC, INV, false, "dim 2 is negative"},
    {"negative_dim_grid", "contract Both operators: negative dims → 161002", m_neg_grid,
     SUPPORTED, DOC, INV, false, "dim 3 is negative"},

    /* empty tensors: "Supports empty Tensor"; contract: success, nothing to compute */
    {"empty_n", "003 'Supports empty Tensor'; contract", m_empty_n, SUPPORTED, DOC, OK, false,
     "nothing to compute"},
    /* contract: a selected output that is not itself empty is still written (zeros): C = 0
     * leaves gridGrad (1,3,3,2); Hout or Wout = 0 leaves inputGrad (1,1,5,8). */
    {"empty_c", "003 'Supports empty Tensor'; contract (gridGrad zeros)", m_empty_c, SUPPORTED,
     DOC, OK, true, "valid"},
    {"empty_hout", "003 'Supports empty Tensor'; contract (inputGrad zeros)", m_empty_ho,
     SUPPORTED, DOC, OK, true, "valid"},
    {"empty_wout", "003 'Supports empty Tensor'; contract (inputGrad zeros)", m_empty_wo,
     SUPPORTED, DOC, OK, true, "valid"},
    {"empty_but_input_h0", "003 161002 input H = 0 (even when N = 0)", m_empty_n_input_h0,
     SUPPORTED, DOC, INV, false, "input spatial dims"},
    {"empty_unsupported_product", "003 Applicable Products ×", m_empty_n, UNSHIPPED, DOC, INV,
     false, "not supported"},

    /* outputMask (facts §3, contract) */
    {"mask_false_false", "facts §3 'outputMask {false,false} → success, outputs untouched'",
     m_mask_ff, SUPPORTED, DOC, OK, false, "asks for no output"},
    {"mask_empty", "facts §3 'outputMask ... or empty → success'", m_mask_empty, SUPPORTED, DOC,
     OK, false, "asks for no output"},
    {"mask_input_only", "003 outputMask[0] → inputGrad", m_mask_tf, SUPPORTED, DOC, OK, true,
     "valid"},
    {"mask_grid_only", "003 outputMask[1] → gridGrad", m_mask_ft, SUPPORTED, DOC, OK, true,
     "valid"},
    {"mask_len1_true", "contract: missing entry is false", m_mask_t, SUPPORTED, DOC, OK, true,
     "valid"},
    {"mask_len1_false", "contract: missing entry is false → nothing asked", m_mask_f, SUPPORTED,
     DOC, OK, false, "asks for no output"},
    {"mask_third_ignored", "contract: entries past the second are ignored", m_mask_fft,
     SUPPORTED, DOC, OK, false, "asks for no output"},
    {"mask_false_still_checked", "contract: mask checked after the parameters", m_mask_ff_bad_mode,
     SUPPORTED, DOC, INV, false, "paddingMode 7"},

    /* check order (contract) */
    {"order_null_before_product", "contract order 1 < 2", m_null_go, UNSHIPPED, DOC, NUL,
     false, "gradOutput is a null"},
    {"order_null_before_dtype", "contract order 1 < 3", m_null_unsupported_dtype, SUPPORTED,
     DOC, NUL, false, "gradOutput is a null"},
    {"order_product_before_dtype", "contract order 2 < 3", m_int32, UNSHIPPED, DOC, INV, false,
     "not supported on ascend310"},
    {"order_dtype_before_rank", "contract order 3 < 5", m_bad_dtype_rank, SUPPORTED, DOC, INV,
     false, "dtype INT32"},
    {"order_rank_before_mode", "contract order 5 < 6", m_rank_mode, SUPPORTED, DOC, INV, false,
     "rank 3"},
    {"order_mode_before_shape", "contract order 6 < 7", m_mode_shape, SUPPORTED, DOC, INV, false,
     "interpolationMode 2"},
    {"order_shape_before_empty", "contract order 7 < 8: N = 0 but grid last dim 3",
     m_shape_then_empty, SUPPORTED, DOC, INV, false, "grid last dim is 3"},
};

int main(void)
{
    return run_rows("status_grid_sampler2d_backward", rows, (int)(sizeof rows / sizeof rows[0]),
                    NULL, 0);
}

/* The status model of aclnnGridSampler2DBackward under the vendor contracts, against the vendor's
 * code: `vendor` = hicann/ops-cv v9.0.0 (197f5fbc), `vendor-old` = v8.5.0 (a03cd58d), file
 * image/grid_sampler2_d_grad/op_host/op_api/aclnn_grid_sampler2d_backward.cpp (v9.0.0 line
 * numbers; the checks are the same in v8.5.0, two lines up). "derived" rows are aclcts's choices
 * where the code leaves the outcome to the package or undefined (docs/contract.md "Vendor
 * releases"). Starting point: the document's example. */
#include "status_seed.h"

#define BF16_SOCS (P(ASCEND910B) | P(ASCEND910_93) | P(ASCEND950))
#define V (VEN | OLD)

MUT(m_none, (void)q)
MUT(m_null_mask, q->p[REF_GRID_OUTPUT_MASK].present = false; q->t[1].present = false)
MUT(m_false_mask_null_input, MASK(false, false); q->t[1].present = false)
MUT(m_mask_len0_bad_dtype, q->p[REF_GRID_OUTPUT_MASK].len = 0; q->t[0].dtype = REF_DT_INT32)
MUT(m_mask_len1, MASK(true))
MUT(m_null_input, q->t[1].present = false)
MUT(m_null_gg, q->t[4].present = false)
MUT(m_double, all_dtype(q, REF_DT_DOUBLE))
MUT(m_bf16, all_dtype(q, REF_DT_BF16))
MUT(m_int32, all_dtype(q, REF_DT_INT32))
MUT(m_go_int32, q->t[0].dtype = REF_DT_INT32)
MUT(m_interp2, SET(INTERPOLATION_MODE, 2))
MUT(m_pad3, SET(PADDING_MODE, 3))
MUT(m_input_rank3, SHAPE(1, 1, 5, 8); SHAPE(3, 1, 5, 8))
MUT(m_ig_rank3, SHAPE(3, 1, 5, 8))
MUT(m_input_h0, SHAPE(1, 1, 1, 0, 8); SHAPE(3, 1, 1, 0, 8))
MUT(m_grid_last3, SHAPE(2, 1, 3, 3, 3); SHAPE(4, 1, 3, 3, 3))
MUT(m_c0, SHAPE(0, 1, 0, 3, 3); SHAPE(1, 1, 0, 5, 8); SHAPE(3, 1, 0, 5, 8))
MUT(m_batch, SHAPE(2, 2, 3, 3, 2); SHAPE(4, 2, 3, 3, 2))
MUT(m_mask_len3, MASK(true, true, true))
MUT(m_mask_len1_batch, MASK(true); SHAPE(2, 2, 3, 3, 2); SHAPE(4, 2, 3, 3, 2))
MUT(m_false_mask, MASK(false, false))
MUT(m_interp2_pad3, SET(INTERPOLATION_MODE, 2); SET(PADDING_MODE, 3))
MUT(m_interp3, SET(INTERPOLATION_MODE, 3))

static const row rows[] = {
    {"seed_valid", "CheckParams :183-196 all pass", m_none, SUPPORTED, V, OK, true, "valid"},
    {"unshipped", "derived: the documents' products (no kernel package)", m_none, UNSHIPPED, V,
     INV, false, "not supported"},
    {"null_mask_first", ":215 before :219", m_null_mask, ALL_P, V, OK, false, "null pointer"},
    {"false_mask_first", ":215 mask {false, false} before the null checks", m_false_mask_null_input,
     ALL_P, V, OK, false, "asks for no output"},
    {"empty_mask_first", ":215 (entries past the end read as false: derived)",
     m_mask_len0_bad_dtype, ALL_P, V, OK, false, "asks for no output"},
    {"mask_len1_runs", "no mask length check before v9.1.0", m_mask_len1, SUPPORTED, V, OK, true,
     "valid"},
    {"null_input", "level2_base.h CheckNotNull2In1Out, :186", m_null_input, ALL_P, V, NUL, false,
     "input is a null pointer"},
    {"null_gridGrad", ":186", m_null_gg, ALL_P, V, NUL, false, "gridGrad is a null pointer"},
    {"double_everywhere", ":53-54 DTYPE_SUPPORT_LIST has DOUBLE", m_double, SUPPORTED, V, OK, true,
     "valid"},
    {"bf16_socs", ":50-51, :56-60 DAV_2201 or regbase (v8.5.0 :55-59 910B..910E, which includes 950)", m_bf16, BF16_SOCS, V, OK, true, "valid"},
    {"bf16_910", ":53-54", m_bf16, P(ASCEND910), V, INV, false,
     "input dtype BF16 is not supported on ascend910"},
    {"int32", ":82 (after the equality checks)", m_int32, SUPPORTED, V, INV, false,
     "input dtype INT32 is not supported"},
    {"match_before_support", ":75 before :82", m_go_int32, SUPPORTED, V, INV, false,
     "gradOutput dtype INT32 differs"},
    {"bicubic_refused", ":41, :89 INTERPOLATION_MODE_MAX_VALUE 1", m_interp2, SUPPORTED, V, INV,
     false, "interpolationMode 2"},
    {"padding_mode_3", ":43, :98", m_pad3, SUPPORTED, V, INV, false, "paddingMode 3"},
    {"rank_input", ":126", m_input_rank3, SUPPORTED, V, INV, false, "input has rank 3"},
    {"rank_inputGrad", ":169 (outputs only through their shapes)", m_ig_rank3, SUPPORTED, V, INV,
     false, "inputGrad shape"},
    {"input_h0", ":147", m_input_h0, SUPPORTED, V, INV, false, "empty spatial dim"},
    {"grid_last_dim", ":162", m_grid_last3, SUPPORTED, V, INV, false, "last dim is not 2"},
    {"batch", ":129-130", m_batch, SUPPORTED, V, INV, false, "batch size"},
    {"empty_c_untouched", ":226 any empty input: nothing written", m_c0, SUPPORTED, V, OK, false,
     "nothing to compute"},
    /* v9.1.0 (4d57ffe7) and v9.2.0-beta.1 (a92906f3): docs/contract.md "vendor@9.1" */
    {"v91_null_mask_first", ":240@4d57ffe7 still before everything", m_null_mask, ALL_P, V91, OK,
     false, "null pointer"},
    {"v91_false_mask_after_nulls", ":247 CheckParams before the :251-252 shortcut",
     m_false_mask_null_input, ALL_P, V91, NUL, false, "input is a null pointer"},
    {"v91_false_mask_valid", ":251-252 after the parameter checks", m_false_mask, SUPPORTED, V91,
     OK, false, "asks for no output"},
    {"v91_mask_len1", ":177-182 length must be 2", m_mask_len1, SUPPORTED, V91, INV, false,
     "outputMask has length 1"},
    {"v91_mask_len3", ":177-182", m_mask_len3, SUPPORTED, V91, INV, false,
     "outputMask has length 3"},
    {"v91_mask_len_after_shapes", ":177 after :129-130 in CheckShape", m_mask_len1_batch,
     SUPPORTED, V91, INV, false, "batch size"},
    {"v91_empty_mask_refused", ":177-182 (0 is not 2)", m_mask_len0_bad_dtype, SUPPORTED, V91,
     INV, false, "gradOutput dtype INT32 differs"},
    {"v91_bicubic", ":41 INTERPOLATION_MODE_MAX_VALUE 2", m_interp2, SUPPORTED, V91, OK, true,
     "valid"},
    {"v91_bicubic_bad_padding", ":43", m_interp2_pad3, SUPPORTED, V91, INV, false, "paddingMode 3"},
    {"v91_interp3", ":41", m_interp3, SUPPORTED, V91, INV, false, "interpolationMode 3"},
};

int main(void)
{
    return run_rows("status_vendor_grid_sampler2d_backward", rows,
                    (int)(sizeof rows / sizeof rows[0]), NULL, 0);
}

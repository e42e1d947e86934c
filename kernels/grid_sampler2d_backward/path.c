/* gs_choose_path: the numerics path of the grid sampler, chosen in the first phase: the
 * compute type (every operation in FP32 for FLOAT, FLOAT16 and BF16, in double for DOUBLE) and
 * the kernel (the fixed-order one when determinism is asked for, except where the document
 * says the operator stays non-deterministic: DOUBLE, or C > 2048). */
#include "grid_sampler2d_backward.h"

/* Under a vendor release, the calls its AICore kernels compute (ops-cv's op_api: 910b/910_93
 * transposed when not DOUBLE and C <= 2048; 950 likewise in 8.5, its SIMT kernel from 9.0, not
 * for DOUBLE from 9.1): their border padding clips an infinite coordinate to the edge before
 * they test for non-finite values (docs/contract.md "Non-finite grid coordinates"). ascend910
 * and DOUBLE go to the AICPU task, which the emulation keeps out of bounds. */
static bool inf_to_edge(const gs_params *p)
{
    const emu_profile *prof = emu_profile_current();
    bool dbl = p->input->dtype == ACL_DOUBLE, narrow = p->input->dims[1] <= 2048;
    if (prof->contract == EMU_CONTRACT_DOC || p->padding != GS_BORDER ||
        p->interpolation == GS_BICUBIC)
        return false;
    if (prof->family == EMU_FAMILY_A2_A3)
        return !dbl && narrow;
    if (prof->family != EMU_FAMILY_950)
        return false;
    if (prof->contract == EMU_CONTRACT_VENDOR_8_5)
        return !dbl && narrow;
    return prof->contract == EMU_CONTRACT_VENDOR_9_0 || !dbl;
}

/* From release 9.1, which bicubic kernel runs: 910b/910_93 the vector kernel (not DOUBLE, C up
 * to the 2048 of the transposed call); 950 its SIMT kernel for every dtype but DOUBLE, except
 * FLOAT without determinism with 32 to 2048 channels under border, 128 to 2048 under reflection,
 * which its tiling hands to the vector kernel (ops-cv op_host/grid_sampler2_d_grad_tiling.cpp:
 * 450-455,489-499@4d57ffe7). 1 vector, 2 SIMT, 0 neither (ascend910 and DOUBLE: AICPU). */
static int bicubic_kernel(const gs_params *p)
{
    const emu_profile *prof = emu_profile_current();
    int64_t c = p->input->dims[1];
    aclDataType dt = p->input->dtype;
    if ((prof->contract != EMU_CONTRACT_VENDOR_9_1 && prof->contract != EMU_CONTRACT_VENDOR_9_2) ||
        p->interpolation != GS_BICUBIC || dt == ACL_DOUBLE)
        return 0;
    if (prof->family == EMU_FAMILY_A2_A3)
        return c < 2049 ? 1 : 0;
    if (prof->family != EMU_FAMILY_950)
        return 0;
    bool big = (p->padding == GS_BORDER && c >= 32) || (p->padding == GS_REFLECTION && c >= 128);
    return dt == ACL_FLOAT && !emu_deterministic() && big && c < 2049 ? 1 : 2;
}

/* From release 9.0 every FLOAT16 and BF16 call on 950 runs its arch35 SIMT kernel, which adds
 * each dx contribution, computed in FP32 and rounded to the dtype, by an atomic add in the
 * dtype (ops-cv op_kernel/arch35/grid_sampler2_d_grad_simt.h:69-102@197f5fbc, :76-115 and the
 * bicubic taps' grid_sampler3_d_grad_simt_base.h:300@4d57ffe7; the deterministic variant the same
 * adds in a fixed order, _simt_det.h:88@197f5fbc, :100@4d57ffe7). */
static int dx_sums(const gs_params *p)
{
    const emu_profile *prof = emu_profile_current();
    aclDataType dt = p->input->dtype;
    bool simt_release = prof->contract == EMU_CONTRACT_VENDOR_9_0 ||
                        prof->contract == EMU_CONTRACT_VENDOR_9_1 ||
                        prof->contract == EMU_CONTRACT_VENDOR_9_2;
    if (prof->family != EMU_FAMILY_950 || !simt_release)
        return GS_SUMS_COMPUTE;
    return dt == ACL_FLOAT16 ? GS_SUMS_FP16 : dt == ACL_BF16 ? GS_SUMS_BF16 : GS_SUMS_COMPUTE;
}

void gs_choose_path(gs_params *p)
{
    const aclTensor *input = p->input;
    p->deterministic = emu_deterministic() && input->dtype != ACL_DOUBLE &&
                       input->dims[1] <= 2048;
    p->run = input->dtype == ACL_DOUBLE ? gs_run_f64 : gs_run_f32;
    p->inf_to_edge = inf_to_edge(p);
    p->dx_sums = dx_sums(p);
    /* from 9.1 also the coordinate in the dtype (ops-cv grid_sampler3_d_grad_simt_base.h:
     * 51-114@4d57ffe7, op_kernel/arch35/grid_sampler2_d_grad_simt.h:128-135,262-276@4d57ffe7) */
    const emu_contract c = emu_profile_current()->contract;
    p->coord_round = c == EMU_CONTRACT_VENDOR_9_1 || c == EMU_CONTRACT_VENDOR_9_2 ? p->dx_sums : 0;
    int bk = bicubic_kernel(p);
    /* the vector kernel sets a non-finite or past-int32 coordinate to -100 under border and
     * zeros (zeros: out either way); reflection's casts are undefined, SIMT's taps NaN */
    p->bicubic_low_edge = bk == 1 && p->padding == GS_BORDER;
    p->bicubic_nonfinite = bk == 2                                    ? GS_BCNF_SIMT
                           : bk == 1 && p->padding == GS_REFLECTION ? GS_BCNF_VECTOR_REFLECT
                                                                    : GS_BCNF_OUT;
    /* the documents' second reading of a non-finite coordinate, PyTorch's CPU kernel's */
    p->clamp_nonfinite = emu_profile_current()->nonfinite_grid_clamp && p->padding != GS_ZEROS;
}

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

/* From release 9.1, bicubic under border on 910b/910_93's vector kernels (not DOUBLE, C up to
 * the 2048 of the transposed kernel): a non-finite coordinate is set to -100 once unnormalised,
 * and each of its four taps clamps to column (row) 0, so the whole weight lands there with a
 * zero grid gradient (ops-cv grid_sampler2_d_grad_bicubic.h:530-545,845-850@4d57ffe7, the same
 * in _fp16.h and at 9.2). 950's SIMT kernel and ascend910's AICPU task stay out of bounds. */
static bool bicubic_low_edge(const gs_params *p)
{
    const emu_profile *prof = emu_profile_current();
    bool since_91 = prof->contract == EMU_CONTRACT_VENDOR_9_1 ||
                    prof->contract == EMU_CONTRACT_VENDOR_9_2;
    return since_91 && p->interpolation == GS_BICUBIC && p->padding == GS_BORDER &&
           prof->family == EMU_FAMILY_A2_A3 && p->input->dtype != ACL_DOUBLE &&
           p->input->dims[1] < 2049;
}

void gs_choose_path(gs_params *p)
{
    const aclTensor *input = p->input;
    p->deterministic = emu_deterministic() && input->dtype != ACL_DOUBLE &&
                       input->dims[1] <= 2048;
    p->run = input->dtype == ACL_DOUBLE ? gs_run_f64 : gs_run_f32;
    p->inf_to_edge = inf_to_edge(p);
    p->bicubic_low_edge = bicubic_low_edge(p);
    /* the documents' second reading of a non-finite coordinate, PyTorch's CPU kernel's */
    p->clamp_nonfinite = emu_profile_current()->nonfinite_grid_clamp && p->padding != GS_ZEROS;
}

/* The numeric path under a vendor contract: the lowering the vendor's op_api code chooses and
 * the formats it converts to on the way (docs/contract.md "Vendor releases", "Numerics",
 * L1-L5). The windows and divisors stay those of the documents. */
#include "avgpool2d_backward.h"

/* L3: ascend910b/910_93 take the cube only inside its limits, else the vector kernel. */
static bool a2a3_cube(const avgpool_args *a, const avgpool_window *win, const avgpool_params *p)
{
    int64_t d = a->divisor_override, kh = win->kh, kw = win->kw;
    bool kernel_fits = kh <= 255 && kw <= 255 && (kh * kw <= 255 || (kh <= 20 && kw <= 20));
    bool long_strip = p->w / p->h >= 2 || p->h / p->w >= 2; /* integer quotients, as the code */
    const aclTensor *go = a->grad_output;
    int64_t channels = go->dims[go->ndim == 4 ? 1 : 0];
    return d >= -255 && d <= 255 && kernel_fits && a->count_include_pad && !a->ceil_mode &&
           !long_strip && channels < 65536;
}

bool avgpool_vendor_takes_cube(const avgpool_args *a, const avgpool_window *win,
                               const avgpool_params *p)
{
    const emu_profile *prof = emu_profile_current();
    switch (prof->family) {
    case EMU_FAMILY_TRAINING_INFERENCE:
        return true; /* L4: the cube or A11's error */
    case EMU_FAMILY_A2_A3:
        return a2a3_cube(a, win, p);
    case EMU_FAMILY_950:
        return prof->contract == EMU_CONTRACT_VENDOR_8_5; /* L2 (9.0) / L4 (8.5) */
    default:
        return false;
    }
}

void avgpool_choose_vendor_path(const avgpool_args *a, const avgpool_window *win,
                                avgpool_params *p)
{
    const emu_profile *prof = emu_profile_current();
    aclDataType dt = a->grad_input->dtype; /* gradOutput's (A3b) */
    bool to_fp16 = a->cube_math_type == 1 || a->cube_math_type == 2;
    p->hf32_bits = prof->hf32_bits > 0 ? prof->hf32_bits : 11;
    p->premultiply = p->premul_fp16 = p->result_fp16 = false;
    p->operand = AVGPOOL_OPERAND_FP32;
    if (avgpool_vendor_global(a, win, p->h, p->w)) { /* L1: a division */
        p->path = to_fp16 || dt == ACL_FLOAT16 ? AVGPOOL_PATH_DIVIDE_FP16 : AVGPOOL_PATH_VECTOR;
        return;
    }
    if (!avgpool_vendor_takes_cube(a, win, p)) {
        p->path = AVGPOOL_PATH_VECTOR;
        return;
    }
    /* L5: the cube's operands. BF16 is converted to FLOAT; cubeMathType 1 or 2 converts to
     * FP16 before the cube, whose FP16 result is then cast; HF32 only where the SoC has it. */
    p->path = AVGPOOL_PATH_CUBE;
    int64_t d = a->divisor_override;
    p->premultiply = !(a->count_include_pad || (d > -255 && d < 255 && d != 0));
    p->premul_fp16 = dt == ACL_FLOAT16;
    bool hf32_soc = prof->family == EMU_FAMILY_A2_A3 || prof->family == EMU_FAMILY_950;
    if (dt == ACL_FLOAT16 || to_fp16) {
        p->operand = AVGPOOL_OPERAND_FP16;
    } else if (a->cube_math_type == 3 && hf32_soc) {
        p->operand = AVGPOOL_OPERAND_HF32;
    }
    p->result_fp16 = p->operand == AVGPOOL_OPERAND_FP16 && dt != ACL_FLOAT16;
}

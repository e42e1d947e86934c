/* The numeric path of docs/contract.md "Path": vector (each term g/div in FP32) or cube
 * (operands g and 1/div rounded to the operand format, products and sums in FP32). */
#include <stdlib.h>

#include "avgpool2d_backward.h"

void avgpool_choose_path(const avgpool_args *a, const avgpool_window *win, avgpool_params *p)
{
    const emu_profile *prof = emu_profile_current();
    if (prof->contract != EMU_CONTRACT_DOC) {
        avgpool_choose_vendor_path(a, win, p);
        return;
    }
    bool global = avgpool_is_global(win, p->h, p->w, a->divisor_override);
    bool cube;
    switch (prof->family) {
    case EMU_FAMILY_TRAINING_INFERENCE:
        cube = !global;
        break;
    case EMU_FAMILY_A2_A3:
        cube = !global && a->count_include_pad && !a->ceil_mode;
        break;
    case EMU_FAMILY_950:
        cube = global;
        break;
    default:
        cube = false;
        break;
    }
    p->path = cube ? AVGPOOL_PATH_CUBE : AVGPOOL_PATH_VECTOR;
    p->hf32_bits = prof->hf32_bits > 0 ? prof->hf32_bits : 11;
    /* The operands follow gradOutput's dtype (= gradInput's): self's is the same under `doc`
     * and free under the vendor contracts, whose cube graph casts a BF16 self to FLOAT
     * (ops-nn v9.0.0 aclnn_avgpool2d_backward.cpp:902-907). */
    switch (a->grad_input->dtype) {
    case ACL_FLOAT16:
        p->operand = AVGPOOL_OPERAND_FP16;
        break;
    case ACL_BF16:
        p->operand = AVGPOOL_OPERAND_BF16;
        break;
    default:
        switch (a->cube_math_type) {
        case 1:
            p->operand = prof->family == EMU_FAMILY_TRAINING_INFERENCE ? AVGPOOL_OPERAND_FP16
                                                                       : AVGPOOL_OPERAND_HF32;
            break;
        case 2:
            p->operand = AVGPOOL_OPERAND_FP16;
            break;
        case 3:
            p->operand = AVGPOOL_OPERAND_HF32;
            break;
        default:
            p->operand = AVGPOOL_OPERAND_FP32;
            break;
        }
        break;
    }
}

/* The scale of one window with divisor div (see avgpool_scales). */
static float scale_of(const avgpool_params *p, __int128 div)
{
    switch (p->path) {
    case AVGPOOL_PATH_VECTOR:
        return (float)div;
    case AVGPOOL_PATH_DIVIDE_FP16:
        return fp_round_f16((float)div);
    case AVGPOOL_PATH_CUBE:
    default: {
        float w = 1.0f / (float)div;
        if (p->premultiply) {
            return p->premul_fp16 ? fp_round_f16(w) : w;
        }
        return avgpool_round_operand(p, w);
    }
    }
}

float *avgpool_scales(const avgpool_params *p, const avgpool_axis *ah, const avgpool_axis *aw)
{
    float *s = malloc(sizeof(float) * (size_t)(p->oh * p->ow > 0 ? p->oh * p->ow : 1));
    if (s == NULL) {
        return NULL;
    }
    for (int64_t oh = 0; oh < p->oh; oh++) {
        for (int64_t ow = 0; ow < p->ow; ow++) {
            float v = 0.0f;
            if (ah->end[oh] > ah->start[oh] && aw->end[ow] > aw->start[ow]) {
                /* Only for a non-empty window (past the input, legal when gradOutput exceeds
                 * the forward size under a vendor contract, the lengths are huge and
                 * negative). 128-bit: two pool lengths of 2^32 and more overflow int64 (kernel
                 * 2^32 with padding 2^31); the conversion to float rounds the exact product
                 * once. */
                __int128 count = (__int128)(ah->end[oh] - ah->start[oh]) *
                                 (aw->end[ow] - aw->start[ow]);
                __int128 div = p->divisor != 0       ? p->divisor
                               : p->count_include_pad ? (__int128)ah->pool[oh] * aw->pool[ow]
                                                      : count;
                v = scale_of(p, div);
            }
            s[oh * p->ow + ow] = v;
        }
    }
    return s;
}

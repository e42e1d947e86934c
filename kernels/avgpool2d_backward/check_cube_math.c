/* Check 9: cubeMathType, first its range (status from the profile: 161002, or 161001 under
 * vendor-old), then the per-product rules of the document (docs/contract.md). */
#include "avgpool2d_backward.h"

static aclnnStatus reject(int8_t cmt, aclDataType dt, const char *rule)
{
    const emu_profile *prof = emu_profile_current();
    emu_set_error("cubeMathType is %d with dtype %s: %s on %s", cmt, emu_dtype_name(dt), rule,
                  prof->product);
    return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus avgpool_check_cube_math(const avgpool_args *a, const avgpool_window *win)
{
    const emu_profile *prof = emu_profile_current();
    int8_t cmt = a->cube_math_type;
    aclDataType dt = a->self->dtype;
    if (cmt < 0 || cmt > 3) {
        emu_set_error("cubeMathType is %d: it must be 0 (KEEP_DTYPE), 1 "
                      "(ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or 3 (USE_HF32)", cmt);
        return prof->cube_math_type_code;
    }
    int64_t lead = (int64_t)a->self->ndim - 2;
    bool global = avgpool_is_global(win, a->self->dims[lead], a->self->dims[lead + 1],
                                    a->divisor_override);
    switch (prof->family) {
    case EMU_FAMILY_TRAINING_INFERENCE:
        if (cmt == 0 && dt == ACL_FLOAT) {
            return reject(cmt, dt, "KEEP_DTYPE is not supported for FLOAT (the cube has no FP32)");
        }
        if (cmt == 3) {
            return reject(cmt, dt, "USE_HF32 is not supported");
        }
        break;
    case EMU_FAMILY_950:
        if (!global) {
            break; /* the rules apply in global pooling only */
        }
        /* fall through */
    case EMU_FAMILY_A2_A3:
        if (cmt == 2 && dt == ACL_BF16) {
            return reject(cmt, dt, "USE_FP16 is not supported for BF16");
        }
        if (cmt == 3 && dt != ACL_FLOAT) {
            return reject(cmt, dt, "USE_HF32 is supported for FLOAT only");
        }
        break;
    case EMU_FAMILY_A2_INFER_310B:
    default:
        break;
    }
    return ACLNN_SUCCESS;
}

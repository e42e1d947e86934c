/* Check 3: each dtype supported (FLOAT, FLOAT16; BF16 where the profile allows it), then the
 * three dtypes equal. */
#include "avgpool2d_backward.h"

static aclnnStatus supported(const aclTensor *t, const char *name)
{
    const emu_profile *prof = emu_profile_current();
    if (t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16) {
        return ACLNN_SUCCESS;
    }
    if (t->dtype == ACL_BF16) {
        if (prof->avgpool_bf16) {
            return ACLNN_SUCCESS;
        }
        emu_set_error("%s is BF16, which %s (%s) does not support: FLOAT and FLOAT16 only", name,
                      prof->product, prof->id);
        return ACLNN_ERR_PARAM_INVALID;
    }
    emu_set_error("%s is %s: the dtype must be FLOAT, FLOAT16%s", name, emu_dtype_name(t->dtype),
                  prof->avgpool_bf16 ? " or BF16" : "");
    return ACLNN_ERR_PARAM_INVALID;
}

aclnnStatus avgpool_check_dtypes(const avgpool_args *a)
{
    aclnnStatus st;
    if ((st = supported(a->grad_output, "gradOutput")) || (st = supported(a->self, "self")) ||
        (st = supported(a->grad_input, "gradInput"))) {
        return st;
    }
    const aclTensor *other = a->grad_output->dtype != a->grad_input->dtype ? a->grad_output
                                                                            : a->self;
    if (other->dtype != a->grad_input->dtype) {
        emu_set_error("%s is %s while gradInput is %s: the dtypes of gradOutput, self and "
                      "gradInput must be equal",
                      other == a->self ? "self" : "gradOutput", emu_dtype_name(other->dtype),
                      emu_dtype_name(a->grad_input->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* Check 2: the product must support the operator (facts §2; the message names the product). */
#include "avgpool2d_backward.h"

aclnnStatus avgpool_check_product(void)
{
    const emu_profile *prof = emu_profile_current();
    if (!prof->avgpool_supported) {
        emu_set_error("aclnnAvgPool2dBackward is not supported on %s (%s)", prof->product,
                      prof->id);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

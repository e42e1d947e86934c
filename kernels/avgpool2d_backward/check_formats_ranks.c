/* Checks 4 and 5: format NCHW or NCL for each tensor, then rank 3 or 4 for each and the three
 * ranks equal. Format and rank are not cross-checked (docs/contract.md, derived). */
#include "avgpool2d_backward.h"

aclnnStatus avgpool_check_formats_ranks(const avgpool_args *a)
{
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    const char *name[3] = {"gradOutput", "self", "gradInput"};
    for (int i = 0; i < 3; i++) {
        if (t[i]->format != ACL_FORMAT_NCHW && t[i]->format != ACL_FORMAT_NCL) {
            emu_set_error("%s has format %s: the format must be NCHW or NCL", name[i],
                          emu_format_name(t[i]->format));
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (t[i]->ndim != 3 && t[i]->ndim != 4) {
            emu_set_error("%s has %llu dims: the rank must be 3 (NCL) or 4 (NCHW)", name[i],
                          (unsigned long long)t[i]->ndim);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (t[i]->ndim != a->grad_input->ndim) {
            emu_set_error("%s has %llu dims while gradInput has %llu: the ranks of gradOutput, "
                          "self and gradInput must be equal", name[i],
                          (unsigned long long)t[i]->ndim,
                          (unsigned long long)a->grad_input->ndim);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    return ACLNN_SUCCESS;
}

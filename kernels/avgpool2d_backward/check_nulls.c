/* Check 1 of docs/contract.md: null pointers (161001), then objects that are not live
 * aclTensor / aclIntArray handles (161002, derived: a destroyed or foreign handle). */
#include "avgpool2d_backward.h"

static aclnnStatus tensor_ok(const aclTensor *t, const char *name)
{
    if (!emu_tensor_valid(t)) {
        emu_set_error("%s is not a live aclTensor (destroyed or not created by aclCreateTensor)",
                      name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus array_ok(const aclIntArray *a, const char *name)
{
    if (a->magic != EMU_MAGIC_INTARRAY) {
        emu_set_error("%s is not a live aclIntArray (destroyed or not created by "
                      "aclCreateIntArray)", name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus avgpool_check_nulls(const avgpool_args *a)
{
    const struct {
        const void *p;
        const char *name;
    } required[] = {
        {a->grad_output, "gradOutput"}, {a->self, "self"},     {a->kernel_size, "kernelSize"},
        {a->padding, "padding"},        {a->grad_input, "gradInput"},
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (required[i].p == NULL) {
            emu_set_error("%s is a null pointer: gradOutput, self, kernelSize, padding and "
                          "gradInput are required", required[i].name);
            return ACLNN_ERR_PARAM_NULLPTR;
        }
    }
    aclnnStatus st;
    if ((st = tensor_ok(a->grad_output, "gradOutput")) || (st = tensor_ok(a->self, "self")) ||
        (st = tensor_ok(a->grad_input, "gradInput")) ||
        (st = array_ok(a->kernel_size, "kernelSize")) ||
        (st = array_ok(a->padding, "padding")) ||
        (a->stride != NULL && (st = array_ok(a->stride, "stride")))) {
        return st;
    }
    return ACLNN_SUCCESS;
}

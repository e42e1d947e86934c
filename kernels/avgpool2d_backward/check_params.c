/* Check 6: kernelSize, stride, padding and divisorOverride values. A null stride means
 * stride = kernel (facts §3); an empty stride is 161002 under `doc` and = kernel when the
 * profile's empty_stride switch says so (`vendor`). */
#include "avgpool2d_backward.h"

/* Expands a length-1 or length-2 array into (h, w); checks each value against `min`. */
static aclnnStatus pair(const aclIntArray *arr, const char *name, int64_t min, const char *rule,
                        int64_t *h, int64_t *w)
{
    if (arr->size != 1 && arr->size != 2) {
        emu_set_error("%s has length %llu: the length must be 1 or 2", name,
                      (unsigned long long)arr->size);
        return ACLNN_ERR_PARAM_INVALID;
    }
    for (uint64_t i = 0; i < arr->size; i++) {
        if (arr->values[i] < min) {
            emu_set_error("%s[%llu] is %lld: %s", name, (unsigned long long)i,
                          (long long)arr->values[i], rule);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    *h = arr->values[0];
    *w = arr->values[arr->size - 1];
    return ACLNN_SUCCESS;
}

aclnnStatus avgpool_check_params(const avgpool_args *a, avgpool_window *win)
{
    const emu_profile *prof = emu_profile_current();
    aclnnStatus st = pair(a->kernel_size, "kernelSize", 1, "each kernel size must be > 0",
                          &win->kh, &win->kw);
    if (st != ACLNN_SUCCESS) {
        return st;
    }
    if (a->stride == NULL ||
        (a->stride->size == 0 && prof->empty_stride == EMU_EMPTY_STRIDE_KERNEL)) {
        win->sh = win->kh;
        win->sw = win->kw;
    } else if ((st = pair(a->stride, "stride", 1, "each stride must be > 0", &win->sh,
                          &win->sw)) != ACLNN_SUCCESS) {
        return st;
    }
    if ((st = pair(a->padding, "padding", 0, "each padding must be >= 0", &win->ph,
                   &win->pw)) != ACLNN_SUCCESS) {
        return st;
    }
    /* 2*pad > kernel written without overflow: pad > kernel/2 in exact arithmetic. */
    if (!emu_fault_on(EMU_FAULT_SKIP_CHECK)) {
        const char *axis[2] = {"H", "W"};
        int64_t k[2] = {win->kh, win->kw}, p[2] = {win->ph, win->pw};
        for (int i = 0; i < 2; i++) {
            if (p[i] > k[i] / 2) {
                emu_set_error("padding%s is %lld and kernelSize%s is %lld: the padding must be "
                              "at most half the kernel size", axis[i], (long long)p[i], axis[i],
                              (long long)k[i]);
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
    }
    if (prof->divisor_range_checked &&
        (a->divisor_override < -255 || a->divisor_override > 255)) {
        emu_set_error("divisorOverride is %lld: on %s it must lie in [-255, 255]",
                      (long long)a->divisor_override, prof->product);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

// aclTensor → torch view of its device memory (no copy): what "tensors become torch tensors" means.
#include <ATen/ops/from_blob.h>

#include "torch_adapter.h"

namespace aclcts_torch {

static bool torch_dtype(aclDataType dt, at::ScalarType *st)
{
    switch (dt) {
    case ACL_FLOAT: *st = at::kFloat; return true;
    case ACL_FLOAT16: *st = at::kHalf; return true;
    case ACL_BF16: *st = at::kBFloat16; return true;
    case ACL_DOUBLE: *st = at::kDouble; return true;
    default: return false;
    }
}

aclnnStatus torch_view(const char *api, const char *name, const aclTensor *t, at::Tensor *out)
{
    if (!t) {
        emu_set_error("%s: %s is a null pointer", api, name);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!emu_tensor_valid(t)) {
        emu_set_error("%s: %s is not a live aclTensor", api, name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    at::ScalarType st;
    if (!torch_dtype(t->dtype, &st)) {
        emu_set_error("%s: %s has dtype %s, which has no torch floating type here", api, name,
                      emu_dtype_name(t->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    std::vector<int64_t> dims(t->dims, t->dims + t->ndim);
    std::vector<int64_t> strides(t->strides, t->strides + t->ndim);
    // Elements [lo, hi] of the storage the view touches; nothing when a dim is 0 or negative
    // (torch itself rejects negative dims below).
    bool touches = true;
    int64_t lo = t->offset, hi = t->offset;
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] <= 0)
            touches = false;
        else if (t->strides[i] < 0)
            lo += (t->dims[i] - 1) * t->strides[i];
        else
            hi += (t->dims[i] - 1) * t->strides[i];
    }
    int64_t storage_elems = 0;
    if (touches) {
        size_t es = emu_dtype_size(t->dtype);
        const char *base = static_cast<const char *>(t->data);
        if (!t->data || lo < 0 ||
            !emu_is_device_range(base + lo * (int64_t)es, (size_t)(hi - lo + 1) * es)) {
            emu_set_error("%s: %s's data is not inside one device allocation (aclrtMalloc)",
                          api, name);
            return ACLNN_ERR_RUNTIME_ERROR;
        }
        storage_elems = hi + 1;
        emu_device_memory_settle(); // torch may read any of it from here on
    }
    at::Tensor storage =
        at::from_blob(t->data, {storage_elems}, at::TensorOptions().dtype(st).device(at::kCPU));
    *out = storage.as_strided(dims, strides, t->offset);
    return ACLNN_SUCCESS;
}

} // namespace aclcts_torch

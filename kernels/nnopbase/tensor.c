/* aclCreateTensor / aclDestroyTensor: metadata only, as in CANN; the operators validate. */
#include <stdlib.h>
#include <string.h>

#include "nnopbase.h"

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData)
{
    if (viewDimsNum > EMU_MAX_DIMS || storageDimsNum > EMU_MAX_DIMS) {
        emu_set_error("aclCreateTensor: %llu dims given, at most %d are supported",
                      (unsigned long long)(viewDimsNum > storageDimsNum ? viewDimsNum
                                                                        : storageDimsNum),
                      EMU_MAX_DIMS);
        return NULL;
    }
    if ((!viewDims && viewDimsNum) || (!storageDims && storageDimsNum)) {
        emu_set_error("aclCreateTensor: %s is a null pointer with a non-zero length",
                      !viewDims && viewDimsNum ? "viewDims" : "storageDims");
        return NULL;
    }
    if (offset < 0) {
        emu_set_error("aclCreateTensor: offset %lld is negative", (long long)offset);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) {
        emu_set_error("aclCreateTensor: out of memory");
        return NULL;
    }
    t->magic = EMU_MAGIC_TENSOR;
    t->ndim = viewDimsNum;
    if (viewDimsNum)
        memcpy(t->dims, viewDims, viewDimsNum * sizeof(int64_t));
    if (stride) {
        if (viewDimsNum)
            memcpy(t->strides, stride, viewDimsNum * sizeof(int64_t));
    } else {
        int64_t s = 1;
        for (uint64_t i = viewDimsNum; i-- > 0;) {
            t->strides[i] = s;
            s *= viewDims[i] > 0 ? viewDims[i] : 1;
        }
    }
    t->offset = offset;
    t->dtype = dataType;
    t->format = format;
    t->storage_ndim = storageDims ? storageDimsNum : viewDimsNum;
    if (t->storage_ndim)
        memcpy(t->storage_dims, storageDims ? storageDims : viewDims,
               t->storage_ndim * sizeof(int64_t));
    t->data = tensorData;
    emu_registry_add(t, EMU_MAGIC_TENSOR);
    return t;
}

static void release_tensor(void *p)
{
    ((aclTensor *)p)->magic = EMU_MAGIC_DEAD;
    free(p);
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor)
{
    return emu_destroy(tensor, EMU_MAGIC_TENSOR, "aclDestroyTensor", "aclTensor", release_tensor);
}

bool emu_tensor_valid(const aclTensor *t) { return emu_registry_has(t, EMU_MAGIC_TENSOR); }

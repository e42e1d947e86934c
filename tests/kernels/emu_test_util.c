/* Test helpers for the emulated device: everything goes through the CANN interface; values are
 * converted with the emulator's own exported conversions (tested separately in test_fp.c). */
#include "emu_test_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"

static aclrtStream stream;
static bool initialized;

aclrtStream emu_test_init(const char *soc)
{
    emu_test_fini();
    if (soc)
        setenv("ACLCTS_SOC", soc, 1);
    else
        unsetenv("ACLCTS_SOC");
    assert_int_equal(aclInit(NULL), ACL_SUCCESS);
    assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
    assert_int_equal(aclrtCreateStream(&stream), ACL_SUCCESS);
    initialized = true;
    return stream;
}

void emu_test_fini(void)
{
    if (!initialized)
        return;
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    initialized = false;
}

int64_t emu_test_numel(const int64_t *dims, int ndim)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++)
        n *= dims[i];
    return n;
}

aclTensor *emu_test_tensor_view(const double *host, const int64_t *dims, int ndim,
                                const int64_t *strides, int64_t offset, int64_t storage_elems,
                                double fill, aclDataType dtype, aclFormat format, void **dev)
{
    size_t es = emu_dtype_size(dtype);
    size_t bytes = (size_t)(storage_elems > 0 ? storage_elems : 1) * es;
    assert_int_equal(aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    int64_t sdims[1] = {storage_elems};
    aclTensor *flat = aclCreateTensor(sdims, 1, dtype, NULL, 0, ACL_FORMAT_ND, sdims, 1, *dev);
    assert_non_null(flat);
    /* Stage in host memory with the emulator's stores, then copy like a real program does. */
    void *stage = calloc(1, bytes);
    aclTensor *host_flat = aclCreateTensor(sdims, 1, dtype, NULL, 0, ACL_FORMAT_ND, sdims, 1,
                                           stage);
    for (int64_t i = 0; i < storage_elems; i++)
        emu_store(host_flat, i, fill);
    aclTensor *host_view = aclCreateTensor(dims, (uint64_t)ndim, dtype, strides, offset, format,
                                           sdims, 1, stage);
    int64_t n = emu_test_numel(dims, ndim);
    for (int64_t i = 0; host && i < n; i++)
        emu_store(host_view, i, host[i]);
    assert_int_equal(aclrtMemcpy(*dev, bytes, stage, bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    aclDestroyTensor(host_view);
    aclDestroyTensor(host_flat);
    aclDestroyTensor(flat);
    free(stage);
    return aclCreateTensor(dims, (uint64_t)ndim, dtype, strides, offset, format, sdims, 1, *dev);
}

aclTensor *emu_test_tensor(const double *host, const int64_t *dims, int ndim, aclDataType dtype,
                           aclFormat format, void **dev)
{
    int64_t strides[EMU_MAX_DIMS];
    int64_t s = 1;
    for (int i = ndim; i-- > 0;) {
        strides[i] = s;
        s *= dims[i] > 0 ? dims[i] : 1;
    }
    return emu_test_tensor_view(host, dims, ndim, strides, 0, emu_test_numel(dims, ndim), 0.0,
                                dtype, format, dev);
}

void emu_test_read(const aclTensor *t, double *host)
{
    /* Copy the whole storage back, then read the view on the host copy. */
    int64_t storage = 1;
    for (uint64_t i = 0; i < t->storage_ndim; i++)
        storage *= t->storage_dims[i];
    size_t bytes = (size_t)(storage > 0 ? storage : 1) * emu_dtype_size(t->dtype);
    void *stage = malloc(bytes);
    assert_int_equal(aclrtMemcpy(stage, bytes, t->data, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                     ACL_SUCCESS);
    aclTensor copy = *t;
    copy.data = stage;
    int64_t n = emu_tensor_numel(t);
    for (int64_t i = 0; i < n; i++)
        host[i] = emu_load(&copy, i);
    free(stage);
}

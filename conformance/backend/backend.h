/* A device reached only through the CANN binary interface: dlopen of libascendcl.so,
 * libnnopbase.so and libopapi.so and a table of function pointers. The emulated device is just
 * the default directory. */
#ifndef ACLCTS_CONFORMANCE_BACKEND_H_
#define ACLCTS_CONFORMANCE_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

#define CTS_BACKEND_MAX_LIBS 16

typedef struct {
    char dir[1024];          /* lib64 directory the libraries came from */
    char name[32];           /* "emu", "cann", "torch" */
    bool emulated;           /* product selectable per case with ACLCTS_SOC */
    /* ascendcl, nnopbase, then the operator libraries in op-plugin's lookup order: every
     * libopapi_*.so (sorted), libopapi.so, the older libaclnn_ops_infer/_train/libaclnn_math */
    void *handles[CTS_BACKEND_MAX_LIBS];
    aclError (*aclInit)(const char *);
    aclError (*aclFinalize)(void);
    aclError (*aclrtSetDevice)(int32_t);
    aclError (*aclrtResetDevice)(int32_t);
    aclError (*aclrtCreateStream)(aclrtStream *);
    aclError (*aclrtDestroyStream)(aclrtStream);
    aclError (*aclrtSynchronizeStream)(aclrtStream);
    aclError (*aclrtMalloc)(void **, size_t, aclrtMemMallocPolicy);
    aclError (*aclrtFree)(void *);
    aclError (*aclrtMemcpy)(void *, size_t, const void *, size_t, aclrtMemcpyKind);
    aclError (*aclrtCtxSetSysParamOpt)(aclSysParamOpt, int64_t);
    aclError (*aclrtCtxGetSysParamOpt)(aclSysParamOpt, int64_t *);
    const char *(*aclrtGetSocName)(void);
    const char *(*aclGetRecentErrMsg)(void);
    aclTensor *(*aclCreateTensor)(const int64_t *, uint64_t, aclDataType, const int64_t *, int64_t,
                                  aclFormat, const int64_t *, uint64_t, void *);
    aclnnStatus (*aclDestroyTensor)(const aclTensor *);
    aclIntArray *(*aclCreateIntArray)(const int64_t *, uint64_t);
    aclnnStatus (*aclDestroyIntArray)(const aclIntArray *);
    aclBoolArray *(*aclCreateBoolArray)(const bool *, uint64_t);
    aclnnStatus (*aclDestroyBoolArray)(const aclBoolArray *);
    aclnnStatus (*aclnnAvgPool2dBackwardGetWorkspaceSize)(
        const aclTensor *, const aclTensor *, const aclIntArray *, const aclIntArray *,
        const aclIntArray *, bool, bool, int64_t, int8_t, aclTensor *, uint64_t *,
        aclOpExecutor **);
    aclnnStatus (*aclnnAvgPool2dBackward)(void *, uint64_t, aclOpExecutor *, aclrtStream);
    aclnnStatus (*aclnnGridSampler2DBackwardGetWorkspaceSize)(
        const aclTensor *, const aclTensor *, const aclTensor *, int64_t, int64_t, bool,
        const aclBoolArray *, aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
    aclnnStatus (*aclnnGridSampler2DBackward)(void *, uint64_t, aclOpExecutor *, aclrtStream);
    /* Optional, not CANN: the emulated runtime's count of live device bytes (leak check).
     * NULL on a real install. */
    size_t (*emu_live_device_bytes)(void);
} cts_backend;

/* spec: "emu" (build/ascend-emu/lib64 next to the aclcts binary, or $ACLCTS_EMU_DIR),
 * "cann" ($ASCEND_HOME_PATH/lib64), "cann:DIR", "torch" (build/ascend-torch/lib64).
 * Returns 0, or -1 with a message naming the library or symbol in err. */
int cts_backend_open(const char *spec, cts_backend *b, char *err, size_t errlen);
void cts_backend_close(cts_backend *b);

#endif

/* A client in the style of torch_npu's op-plugin (op_plugin/utils/op_api_common.{h,cpp}): it
 * includes no CANN header, declares the types and prototypes as the public headers do, finds
 * the operators in $ASCEND_HOME_PATH/lib64 the way op-plugin does (every libopapi_*.so, then
 * libopapi.so, then the older libaclnn_ops_*.so) and runs the avg-pool document example through
 * dlsym'd pointers. Expected values: facts §4 (every gradInput element is 1/16) and the
 * runtime's and opbase's public codes. Exit 0 on success; prints the first mismatch. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int aclError;
typedef int32_t aclnnStatus;
typedef void *aclrtStream;
typedef struct aclTensor aclTensor;
typedef struct aclIntArray aclIntArray;
typedef struct aclBoolArray aclBoolArray;
typedef struct aclOpExecutor aclOpExecutor;
enum { ACL_FLOAT = 0, ACL_FORMAT_NCHW = 0, ACL_FORMAT_ND = 2, ACL_MEMCPY_HOST_TO_DEVICE = 1,
       ACL_MEMCPY_DEVICE_TO_HOST = 2, ACL_MEM_MALLOC_HUGE_FIRST = 0, ACL_OPT_DETERMINISTIC = 0 };
enum { ACLNN_ERR_PARAM_NULLPTR = 161001, ACLNN_ERR_PARAM_INVALID = 161002,
       ACL_ERROR_RT_SYSPARAMOPT_NOT_SET = 107021 };

#define FAIL(...) (fprintf(stderr, "dlsym_client: " __VA_ARGS__), fputc('\n', stderr), exit(1))

static void *handles[16];
static int nhandles;

static void load(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    void *h = dlopen(path, RTLD_LAZY | RTLD_GLOBAL);
    if (h && nhandles < 16) handles[nhandles++] = h;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* op-plugin's order: libopapi_*.so (any), libopapi.so, then the feature libraries. */
static void load_operator_libs(const char *dir)
{
    char *names[16];
    int n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) && n < 16;) {
        size_t len = strlen(e->d_name);
        if (!strncmp(e->d_name, "libopapi_", 9) && len > 3 && !strcmp(e->d_name + len - 3, ".so"))
            names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) load(dir, names[i]), free(names[i]);
    load(dir, "libopapi.so");
    load(dir, "libaclnn_ops_infer.so");
    load(dir, "libaclnn_ops_train.so");
}

static void *sym(const char *name)
{
    for (int i = 0; i < nhandles; i++) {
        void *p = dlsym(handles[i], name);
        if (p) return p;
    }
    FAIL("%s not found", name);
}
/* The interface this client uses, as `X(ret, name, params)`: the public headers' prototypes. */
#define CANN_API(X)                                                                            \
    X(aclError, aclInit, (const char *))                                                       \
    X(aclError, aclFinalize, (void))                                                           \
    X(aclnnStatus, aclnnInit, (const char *))                                                  \
    X(aclnnStatus, aclnnFinalize, (void))                                                      \
    X(aclError, aclrtSetDevice, (int32_t))                                                     \
    X(aclError, aclrtResetDevice, (int32_t))                                                   \
    X(aclError, aclrtCreateStream, (aclrtStream *))                                            \
    X(aclError, aclrtSynchronizeStream, (aclrtStream))                                         \
    X(aclError, aclrtMalloc, (void **, size_t, int))                                           \
    X(aclError, aclrtFree, (void *))                                                           \
    X(aclError, aclrtMemcpy, (void *, size_t, const void *, size_t, int))                      \
    X(aclError, aclrtSetSysParamOpt, (int, int64_t))                                           \
    X(aclError, aclrtCtxGetSysParamOpt, (int, int64_t *))                                      \
    X(const char *, aclrtGetSocName, (void))                                                   \
    X(aclTensor *, aclCreateTensor, (const int64_t *, uint64_t, int, const int64_t *, int64_t, \
                                     int, const int64_t *, uint64_t, void *))                  \
    X(aclIntArray *, aclCreateIntArray, (const int64_t *, uint64_t))                           \
    X(aclBoolArray *, aclCreateBoolArray, (const bool *, uint64_t))                            \
    X(aclnnStatus, aclDestroyAclOpExecutor, (aclOpExecutor *))                                 \
    X(aclnnStatus, aclDestroyTensor, (const aclTensor *))                                      \
    X(aclnnStatus, aclDestroyIntArray, (const aclIntArray *))                                  \
    X(aclnnStatus, aclDestroyBoolArray, (const aclBoolArray *))                                \
    X(aclError, aclrtDestroyStream, (aclrtStream))                                             \
    X(aclnnStatus, aclnnAvgPool2dBackwardGetWorkspaceSize,                                     \
      (const aclTensor *, const aclTensor *, const aclIntArray *, const aclIntArray *,         \
       const aclIntArray *, bool, bool, int64_t, int8_t, aclTensor *, uint64_t *,              \
       aclOpExecutor **))                                                                      \
    X(aclnnStatus, aclnnAvgPool2dBackward, (void *, uint64_t, aclOpExecutor *, aclrtStream))   \
    X(aclnnStatus, aclnnGridSampler2DBackwardGetWorkspaceSize,                                 \
      (const aclTensor *, const aclTensor *, const aclTensor *, int64_t, int64_t, bool,        \
       const aclBoolArray *, aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **))

#define DECLARE(ret, name, params) static ret(*name) params;
CANN_API(DECLARE)

/* Every pointer bound by dlsym, as op-plugin's GET_OP_API_FUNC does. */
static void bind_api(void)
{
#define BIND(ret, name, params)                                                                \
    {                                                                                          \
        void *p_ = sym(#name);                                                                 \
        memcpy(&name, &p_, sizeof p_);                                                         \
    }
    CANN_API(BIND)
}

/* The runtime and opbase libraries, then the operator libraries, from $ASCEND_HOME_PATH/lib64. */
static void load_libraries(void)
{
    const char *home = getenv("ASCEND_HOME_PATH");
    if (!home) FAIL("ASCEND_HOME_PATH is not set");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/lib64", home);
    load(dir, "libascendcl.so");
    load(dir, "libnnopbase.so");
    int runtime_libs = nhandles;
    load_operator_libs(dir);
    if (runtime_libs != 2 || nhandles < 3) FAIL("libraries missing in %s", dir);
}

/* aclInit, device 0, the reported SoC, the deterministic option (unset, then 1), a stream. */
static aclrtStream init_runtime(void)
{
    if (aclInit(NULL) != 0 || aclnnInit(NULL) != 0 || aclrtSetDevice(0) != 0)
        FAIL("initialisation failed");
    const char *want = getenv("WANT_SOC");
    if (want && strcmp(aclrtGetSocName(), want) != 0)
        FAIL("aclrtGetSocName() = %s, expected %s", aclrtGetSocName(), want);
    int64_t v = 0;
    if (aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v) != ACL_ERROR_RT_SYSPARAMOPT_NOT_SET)
        FAIL("an unset option is not ACL_ERROR_RT_SYSPARAMOPT_NOT_SET");
    if (aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1) != 0) FAIL("aclrtSetSysParamOpt");
    aclrtStream stream;
    if (aclrtCreateStream(&stream) != 0) FAIL("aclrtCreateStream");
    return stream;
}

/* The document's example: gradOutput (1,16,1,1) of ones in d_go, self = gradInput (1,16,4,4) in
 * d_self and d_gi; two first-phase errors, an executor given back unrun, then the run, whose
 * every gradInput element is 1/16. */
static void avgpool_example(aclrtStream stream, void *d_go, void *d_self, void *d_gi)
{
    int64_t go_dims[4] = {1, 16, 1, 1}, in_dims[4] = {1, 16, 4, 4};
    int64_t go_str[4] = {16, 1, 1, 1}, in_str[4] = {256, 16, 4, 1};
    float ones[16], out[256];
    for (int i = 0; i < 16; i++) ones[i] = 1.0f;
    aclrtMemcpy(d_go, sizeof ones, ones, sizeof ones, ACL_MEMCPY_HOST_TO_DEVICE);
    aclTensor *go = aclCreateTensor(go_dims, 4, ACL_FLOAT, go_str, 0, ACL_FORMAT_NCHW, go_dims, 4, d_go);
    aclTensor *self = aclCreateTensor(in_dims, 4, ACL_FLOAT, in_str, 0, ACL_FORMAT_NCHW, in_dims, 4, d_self);
    aclTensor *gi = aclCreateTensor(in_dims, 4, ACL_FLOAT, in_str, 0, ACL_FORMAT_NCHW, in_dims, 4, d_gi);
    int64_t four[2] = {4, 4}, one[2] = {1, 1}, zero[2] = {0, 0}, bad[2] = {0, 4};
    aclIntArray *k = aclCreateIntArray(four, 2), *s = aclCreateIntArray(one, 2);
    aclIntArray *p = aclCreateIntArray(zero, 2), *kbad = aclCreateIntArray(bad, 2);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    if (aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, kbad, s, p, false, true, 0, 1, gi, &ws, &ex) !=
        ACLNN_ERR_PARAM_INVALID)
        FAIL("kernelSize 0 is not ACLNN_ERR_PARAM_INVALID");
    if (aclnnAvgPool2dBackwardGetWorkspaceSize(NULL, self, k, s, p, false, true, 0, 1, gi, &ws, &ex) !=
        ACLNN_ERR_PARAM_NULLPTR)
        FAIL("a NULL gradOutput is not ACLNN_ERR_PARAM_NULLPTR");
    /* An executor nobody runs is given back with aclDestroyAclOpExecutor. */
    if (aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, k, s, p, false, true, 0, 1, gi, &ws, &ex) ||
        aclDestroyAclOpExecutor(ex) != 0)
        FAIL("aclDestroyAclOpExecutor");
    if (aclnnAvgPool2dBackwardGetWorkspaceSize(go, self, k, s, p, false, true, 0, 1, gi, &ws, &ex))
        FAIL("first phase");
    void *work = NULL;
    if (ws && aclrtMalloc(&work, ws, ACL_MEM_MALLOC_HUGE_FIRST)) FAIL("workspace");
    if (aclnnAvgPool2dBackward(work, ws, ex, stream) || aclrtSynchronizeStream(stream))
        FAIL("second phase");
    aclrtMemcpy(out, sizeof out, d_gi, sizeof out, ACL_MEMCPY_DEVICE_TO_HOST);
    for (int i = 0; i < 256; i++)
        if (out[i] != 0.0625f) FAIL("gradInput[%d] = %g, expected 0.0625", i, out[i]);
    /* Everything created is given back, as a well-behaved client does (LeakSanitizer checks). */
    aclDestroyTensor(go), aclDestroyTensor(self), aclDestroyTensor(gi);
    aclDestroyIntArray(k), aclDestroyIntArray(s), aclDestroyIntArray(p), aclDestroyIntArray(kbad);
    if (work) aclrtFree(work);
}

/* The grid sampler lives in whichever operator library has it (op-plugin's lookup): a mask
 * selecting nothing succeeds with an executor, given back unrun. */
static void grid_sampler_empty_mask(void *d_a, void *d_b)
{
    bool none[2] = {false, false};
    aclBoolArray *mask = aclCreateBoolArray(none, 2);
    int64_t nd4[4] = {1, 1, 1, 1}, gd[4] = {1, 1, 1, 2};
    aclTensor *t4 = aclCreateTensor(nd4, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, nd4, 4, d_a);
    aclTensor *g4 = aclCreateTensor(gd, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, gd, 4, d_b);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    if (aclnnGridSampler2DBackwardGetWorkspaceSize(t4, t4, g4, 0, 0, false, mask, t4, g4, &ws, &ex) ||
        aclDestroyAclOpExecutor(ex) != 0)
        FAIL("grid sampler with an empty mask");
    aclDestroyTensor(t4), aclDestroyTensor(g4);
    aclDestroyBoolArray(mask);
}

int main(void)
{
    load_libraries();
    bind_api();
    aclrtStream stream = init_runtime();
    void *d_go, *d_self, *d_gi;
    if (aclrtMalloc(&d_go, 16 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&d_self, 256 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST) ||
        aclrtMalloc(&d_gi, 256 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST))
        FAIL("aclrtMalloc");
    avgpool_example(stream, d_go, d_self, d_gi);
    grid_sampler_empty_mask(d_go, d_self);
    aclrtFree(d_go), aclrtFree(d_self), aclrtFree(d_gi);
    aclrtDestroyStream(stream);
    if (aclrtResetDevice(0) || aclnnFinalize() || aclFinalize()) FAIL("shutdown");
    printf("dlsym client: ok on %s\n", aclrtGetSocName());
    return 0;
}

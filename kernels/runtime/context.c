/* aclInit/aclFinalize, the single emulated device, streams, and context options. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

#define STREAM_MAGIC 0x5354524du /* "STRM" */
#define MAX_STREAMS 64

typedef struct {
    uint32_t magic;
} emu_stream;

static bool initialized;
static int32_t device = -1;
/* System options (ACL_OPT_*), per context and per process; `set` says whether a value was
 * given (getting an option never set is ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, as in the runtime). */
enum { N_OPTS = 4 };
typedef struct {
    int64_t value[N_OPTS];
    bool set[N_OPTS];
} sys_opts;
static sys_opts ctx_opts, process_opts;
static uint64_t shuffle_seed;
static atomic_uint_fast64_t shuffle_calls;
static emu_stream *streams[MAX_STREAMS];

bool emu_runtime_initialized(void) { return initialized; }

/* ACLNN_EMU_SHUFFLE: a whole number (0 or unset: the natural order). */
static aclError read_shuffle_seed(uint64_t *seed)
{
    const char *s = getenv("ACLNN_EMU_SHUFFLE");
    char *end;
    *seed = 0;
    if (!s || !*s)
        return ACL_SUCCESS;
    errno = 0;
    *seed = strtoull(s, &end, 0);
    if (errno || *end || *s == '-') {
        emu_set_error("ACLNN_EMU_SHUFFLE=%s is not valid: expected a whole number >= 0 (a seed)",
                      s);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

aclError aclInit(const char *configPath)
{
    if (initialized) {
        emu_set_error("aclInit: the runtime is already initialized (call aclFinalize first)");
        return ACL_ERROR_REPEAT_INITIALIZE;
    }
    aclError rc = emu_switches_check();
    if (rc == ACL_SUCCESS)
        rc = emu_profile_load(configPath);
    if (rc == ACL_SUCCESS)
        rc = emu_fault_load();
    if (rc == ACL_SUCCESS)
        rc = read_shuffle_seed(&shuffle_seed);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Call counts start again with each session, so a process that runs many sessions (the
     * harness's long-lived workers) sees the orders a fresh process would. */
    atomic_store(&shuffle_calls, 0);
    memset(&ctx_opts, 0, sizeof ctx_opts);
    memset(&process_opts, 0, sizeof process_opts);
    initialized = true;
    return ACL_SUCCESS;
}

aclError aclFinalize(void)
{
    if (!initialized) {
        emu_set_error("aclFinalize: the runtime is not initialized");
        return ACL_ERROR_UNINITIALIZE;
    }
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i]) {
            streams[i]->magic = 0;
            free(streams[i]);
            streams[i] = NULL;
        }
    initialized = false;
    device = -1;
    return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
    if (!initialized) {
        emu_set_error("aclrtSetDevice: call aclInit first");
        return ACL_ERROR_UNINITIALIZE;
    }
    if (deviceId != 0) {
        emu_set_error("aclrtSetDevice: deviceId %d does not exist (the emulated host has device 0)",
                      (int)deviceId);
        return ACL_ERROR_INVALID_PARAM;
    }
    device = deviceId;
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId)
{
    if (deviceId != 0 || device != deviceId) {
        emu_set_error("aclrtResetDevice: device %d is not set", (int)deviceId);
        return ACL_ERROR_INVALID_PARAM;
    }
    device = -1;
    return ACL_SUCCESS;
}

static int stream_slot(aclrtStream s)
{
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i] && (void *)streams[i] == s)
            return i;
    return -1;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
    if (!stream) {
        emu_set_error("aclrtCreateStream: stream is a null pointer");
        return ACL_ERROR_INVALID_PARAM;
    }
    if (device < 0) {
        emu_set_error("aclrtCreateStream: no device is set (call aclrtSetDevice)");
        return ACL_ERROR_INVALID_PARAM;
    }
    for (int i = 0; i < MAX_STREAMS; i++)
        if (!streams[i]) {
            streams[i] = calloc(1, sizeof(emu_stream));
            if (!streams[i])
                return ACL_ERROR_BAD_ALLOC;
            streams[i]->magic = STREAM_MAGIC;
            *stream = streams[i];
            return ACL_SUCCESS;
        }
    emu_set_error("aclrtCreateStream: more than %d streams are live", MAX_STREAMS);
    return ACL_ERROR_BAD_ALLOC;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
    int i = stream_slot(stream);
    if (i < 0) {
        emu_set_error("aclrtDestroyStream: %p is not a live stream", stream);
        return ACL_ERROR_INVALID_PARAM;
    }
    free(streams[i]);
    streams[i] = NULL;
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
    /* Work runs synchronously at launch; the NULL (default) stream is valid. */
    if (stream && stream_slot(stream) < 0) {
        emu_set_error("aclrtSynchronizeStream: %p is not a live stream", stream);
        return ACL_ERROR_INVALID_PARAM;
    }
    return ACL_SUCCESS;
}

bool emu_stream_valid(aclrtStream stream) { return !stream || stream_slot(stream) >= 0; }

/* Options and values the runtime takes (hicann/runtime src/acl/aclrt_impl/context.cpp: the
 * context calls take options 0..2, the process calls 0..3); DETERMINISTIC takes 0..3, the
 * switches 0 or 1. */
static aclError set_opt(sys_opts *o, const char *api, int nopts, aclSysParamOpt opt, int64_t value)
{
    if ((int)opt < 0 || (int)opt >= nopts) {
        emu_set_error("%s: option %d is not one of ACL_OPT_DETERMINISTIC(0) .. %d", api, (int)opt,
                      nopts - 1);
        return ACL_ERROR_INVALID_PARAM;
    }
    int64_t max = opt == ACL_OPT_DETERMINISTIC ? 3 : 1;
    if (value < 0 || value > max) {
        emu_set_error("%s: option %d takes 0..%lld, not %lld", api, (int)opt, (long long)max,
                      (long long)value);
        return ACL_ERROR_RT_PARAM_INVALID;
    }
    o->value[opt] = value;
    o->set[opt] = true;
    return ACL_SUCCESS;
}

static aclError get_opt(const sys_opts *o, const char *api, int nopts, aclSysParamOpt opt,
                        int64_t *value)
{
    if ((int)opt < 0 || (int)opt >= nopts || !value) {
        emu_set_error("%s: option %d or the value pointer is invalid", api, (int)opt);
        return ACL_ERROR_INVALID_PARAM;
    }
    if (!o->set[opt]) {
        emu_set_error("%s: option %d was never set", api, (int)opt);
        return ACL_ERROR_RT_SYSPARAMOPT_NOT_SET;
    }
    *value = o->value[opt];
    return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    return set_opt(&ctx_opts, "aclrtCtxSetSysParamOpt", 3, opt, value);
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    return get_opt(&ctx_opts, "aclrtCtxGetSysParamOpt", 3, opt, value);
}

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value)
{
    return set_opt(&process_opts, "aclrtSetSysParamOpt", N_OPTS, opt, value);
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value)
{
    return get_opt(&process_opts, "aclrtGetSysParamOpt", N_OPTS, opt, value);
}

/* The context's setting wins over the process's; any non-zero DETERMINISTIC value asks for
 * a deterministic computation. */
bool emu_deterministic(void)
{
    const sys_opts *o = ctx_opts.set[ACL_OPT_DETERMINISTIC] ? &ctx_opts : &process_opts;
    return o->set[ACL_OPT_DETERMINISTIC] && o->value[ACL_OPT_DETERMINISTIC] != 0 &&
           !emu_fault_on(EMU_FAULT_IGNORE_DETERMINISTIC);
}

uint64_t emu_shuffle_seed(void)
{
    if (!shuffle_seed)
        return 0;
    /* SplitMix64 of seed + call count: a different order on every call. */
    uint64_t z = shuffle_seed + 0x9e3779b97f4a7c15ull * (atomic_fetch_add(&shuffle_calls, 1) + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 1;
}

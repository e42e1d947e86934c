/* Opening a device's CANN libraries with dlopen (backend.h). */
#include "backend.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* <directory of the running executable>/../<sub>/lib64 */
static int beside_exe(const char *sub, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = 0;
    return snprintf(out, size, "%s/../%s/lib64", exe, sub) < (int)size ? 0 : -1;
}

static int resolve_dir(const char *spec, cts_backend *b, char *err, size_t errlen)
{
    const char *env;
    if (strcmp(spec, "emu") == 0) {
        snprintf(b->name, sizeof b->name, "emu");
        b->emulated = true;
        if ((env = getenv("ACLCTS_EMU_DIR")) && *env)
            snprintf(b->dir, sizeof b->dir, "%s/lib64", env);
        else if (beside_exe("ascend-emu", b->dir, sizeof b->dir) != 0)
            return snprintf(err, errlen, "backend emu: cannot locate the executable"), -1;
    } else if (strcmp(spec, "torch") == 0) {
        /* The PyTorch-backed device takes its product from ACLCTS_SOC like the emulation. */
        snprintf(b->name, sizeof b->name, "torch");
        b->emulated = true;
        if (beside_exe("ascend-torch", b->dir, sizeof b->dir) != 0)
            return snprintf(err, errlen, "backend torch: cannot locate the executable"), -1;
    } else if (strcmp(spec, "cann") == 0) {
        snprintf(b->name, sizeof b->name, "cann");
        if (!(env = getenv("ASCEND_HOME_PATH")) || !*env)
            return snprintf(err, errlen,
                            "backend cann: ASCEND_HOME_PATH is not set (source the toolkit's "
                            "set_env.sh, or use --backend cann:DIR)"), -1;
        snprintf(b->dir, sizeof b->dir, "%s/lib64", env);
    } else if (strncmp(spec, "cann:", 5) == 0 && spec[5]) {
        snprintf(b->name, sizeof b->name, "cann");
        snprintf(b->dir, sizeof b->dir, "%s", spec + 5);
    } else {
        return snprintf(err, errlen, "unknown backend '%s' (emu, cann, cann:DIR, torch)", spec),
               -1;
    }
    return 0;
}

static void *open_lib(const cts_backend *b, const char *lib, char *err, size_t errlen)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", b->dir, lib);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(err, errlen, "backend %s: cannot load %s: %s", b->name, path, dlerror());
    return h;
}

static bool file_exists(const cts_backend *b, const char *lib)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", b->dir, lib);
    return access(path, F_OK) == 0;
}

/* Look `name` up in every loaded library; the operators may live in either opapi split. */
static int bind(cts_backend *b, const char *name, void *slot, char *err, size_t errlen)
{
    void *p = NULL;
    for (int i = 0; i < 4 && !p; i++)
        if (b->handles[i]) p = dlsym(b->handles[i], name);
    if (!p)
        return snprintf(err, errlen, "backend %s: symbol %s not found in %s", b->name, name,
                        b->dir), -1;
    memcpy(slot, &p, sizeof p); /* object pointer to function pointer, POSIX dlsym style */
    return 0;
}

int cts_backend_open(const char *spec, cts_backend *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    if (resolve_dir(spec ? spec : "emu", b, err, errlen) != 0) return -1;
    /* Order matters: libopapi needs the runtime and opbase symbols already loaded. */
    const char *libs[4] = {"libascendcl.so", "libnnopbase.so", "libopapi.so", NULL};
    if (!file_exists(b, "libopapi.so") && file_exists(b, "libopapi_nn.so")) {
        libs[2] = "libopapi_nn.so";
        libs[3] = "libopapi_cv.so";
    }
    for (int i = 0; i < 4 && libs[i]; i++)
        if (!(b->handles[i] = open_lib(b, libs[i], err, errlen))) {
            cts_backend_close(b);
            return -1;
        }
#define BIND(f) bind(b, #f, &b->f, err, errlen)
    if (BIND(aclInit) || BIND(aclFinalize) || BIND(aclrtSetDevice) || BIND(aclrtResetDevice) ||
        BIND(aclrtCreateStream) || BIND(aclrtDestroyStream) || BIND(aclrtSynchronizeStream) ||
        BIND(aclrtMalloc) || BIND(aclrtFree) || BIND(aclrtMemcpy) ||
        BIND(aclrtCtxSetSysParamOpt) || BIND(aclrtCtxGetSysParamOpt) || BIND(aclrtGetSocName) ||
        BIND(aclGetRecentErrMsg) || BIND(aclCreateTensor) || BIND(aclDestroyTensor) ||
        BIND(aclCreateIntArray) || BIND(aclDestroyIntArray) || BIND(aclCreateBoolArray) ||
        BIND(aclDestroyBoolArray) || BIND(aclnnAvgPool2dBackwardGetWorkspaceSize) ||
        BIND(aclnnAvgPool2dBackward) || BIND(aclnnGridSampler2DBackwardGetWorkspaceSize) ||
        BIND(aclnnGridSampler2DBackward)) {
        cts_backend_close(b);
        return -1;
    }
#undef BIND
    /* The emulation's leak counter, when the backend has it (never required). */
    void *live = dlsym(b->handles[0], "emu_live_device_bytes");
    memcpy(&b->emu_live_device_bytes, &live, sizeof live);
    return 0;
}

void cts_backend_close(cts_backend *b)
{
    for (int i = 3; i >= 0; i--)
        if (b->handles[i]) dlclose(b->handles[i]);
    memset(b->handles, 0, sizeof b->handles);
}

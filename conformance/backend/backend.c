/* Opening a device's CANN libraries with dlopen (backend.h). */
#include "backend.h"
#include "op_driver.h"

#include <dirent.h>
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

/* `name` in the first loaded library that has it, in load order (runtime, opbase, operators),
 * or NULL. */
static void *lookup(const cts_backend *b, const char *name)
{
    void *p = NULL;
    for (int i = 0; i < CTS_BACKEND_MAX_LIBS && !p; i++)
        if (b->handles[i]) p = dlsym(b->handles[i], name);
    return p;
}

static int bind(cts_backend *b, const char *name, void *slot, char *err, size_t errlen)
{
    void *p = lookup(b, name);
    if (!p)
        return snprintf(err, errlen, "backend %s: symbol %s not found in %s", b->name, name,
                        b->dir), -1;
    memcpy(slot, &p, sizeof p); /* object pointer to function pointer, POSIX dlsym style */
    return 0;
}

/* Both phases of every operator of the table (op_driver.h), in its order. A device without an
 * operator (both symbols missing) still opens: that operator's cases are NOT_SUPPORTED on it
 * (run_case.c). One phase without the other is a broken library, and so is a device with no
 * operator at all. */
static int bind_ops(cts_backend *b, char *err, size_t errlen)
{
    int found = 0;
    for (int i = 0; i < cts_nops && i < CTS_BACKEND_MAX_OPS; i++) {
        b->op_first[i] = lookup(b, cts_ops[i]->first_phase);
        b->op_second[i] = lookup(b, cts_ops[i]->second_phase);
        if (!b->op_first[i] != !b->op_second[i])
            return snprintf(err, errlen, "backend %s: symbol %s not found in %s", b->name,
                            b->op_first[i] ? cts_ops[i]->second_phase : cts_ops[i]->first_phase,
                            b->dir), -1;
        found += b->op_first[i] != NULL;
    }
    if (!found)
        return snprintf(err, errlen, "backend %s: symbol %s not found in %s (nor any other "
                        "operator's)", b->name, cts_ops[0]->first_phase, b->dir), -1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The operator libraries of b->dir as op-plugin finds them (op_plugin/utils/op_api_common.cpp):
 * every libopapi_*.so, then libopapi.so, then the older per-feature libaclnn_* names. Fills
 * names[] (malloc'd) and returns their count, at most max. */
static int operator_libs(const cts_backend *b, char **names, int max)
{
    int n = 0;
    DIR *d = opendir(b->dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL && n < max;) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "libopapi_", 9) == 0 && len > 12 &&
            strcmp(e->d_name + len - 3, ".so") == 0)
            names[n++] = strdup(e->d_name);
    }
    if (d) closedir(d);
    qsort(names, (size_t)n, sizeof *names, by_name);
    static const char *const later[] = {"libopapi.so", "libaclnn_ops_infer.so",
                                        "libaclnn_ops_train.so", "libaclnn_math.so"};
    for (size_t k = 0; k < sizeof later / sizeof later[0] && n < max; k++)
        if (file_exists(b, later[k])) names[n++] = strdup(later[k]);
    return n;
}

int cts_backend_open(const char *spec, cts_backend *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    if (resolve_dir(spec ? spec : "emu", b, err, errlen) != 0) return -1;
    /* Order matters: the operators need the runtime and opbase symbols already loaded. */
    char *libs[CTS_BACKEND_MAX_LIBS] = {strdup("libascendcl.so"), strdup("libnnopbase.so")};
    int rc = 0, nlibs = 2;
    for (int i = 0; rc == 0 && i < nlibs; i++)
        if (!libs[i] || !(b->handles[i] = open_lib(b, libs[i], err, errlen))) rc = -1;
    if (rc == 0) {
        nlibs += operator_libs(b, libs + 2, CTS_BACKEND_MAX_LIBS - 2);
        if (nlibs == 2) {
            snprintf(err, errlen, "backend %s: no operator library in %s (libopapi_*.so, "
                     "libopapi.so or libaclnn_ops_*.so)", b->name, b->dir);
            rc = -1;
        }
    }
    for (int i = 2; rc == 0 && i < nlibs; i++)
        if (!libs[i] || !(b->handles[i] = open_lib(b, libs[i], err, errlen))) rc = -1;
    for (int i = 0; i < nlibs; i++) free(libs[i]);
    if (rc != 0) {
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
        BIND(aclDestroyBoolArray) || bind_ops(b, err, errlen)) {
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
    for (int i = CTS_BACKEND_MAX_LIBS - 1; i >= 0; i--)
        if (b->handles[i]) dlclose(b->handles[i]);
    memset(b->handles, 0, sizeof b->handles);
}

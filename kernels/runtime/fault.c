/* Fault injection: ACLNN_EMU_FAULT=name[,name...] read at aclInit. Each fault is a realistic
 * defect the harness and the fuzzer must prove they catch (kernels/README.md lists them). */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static const char *const NAMES[EMU_FAULT_COUNT] = {
    "status", "skip-check", "window-off-by-one", "ulp", "round-truncate",
    "ignore-deterministic", "oob-write", "mutate-input", "crash", "hang", "leak",
    "dense-batch",
};

static bool on[EMU_FAULT_COUNT];
static int ulps;
static bool loaded;

const char *emu_fault_name(emu_fault f) { return f < EMU_FAULT_COUNT ? NAMES[f] : "?"; }

/* Parses one comma-separated entry; false (and the error message set) when unknown. */
static bool parse_entry(const char *s, size_t len)
{
    for (int f = 0; f < EMU_FAULT_COUNT; f++) {
        size_t n = strlen(NAMES[f]);
        if (f == EMU_FAULT_ULP && len > 4 && strncmp(s, "ulp:", 4) == 0) {
            char *end;
            long v = strtol(s + 4, &end, 10);
            if (end != s + len || v <= 0 || v > 1000000)
                break;
            on[f] = true;
            ulps = (int)v;
            return true;
        }
        if (len == n && strncmp(s, NAMES[f], n) == 0 && f != EMU_FAULT_ULP) {
            on[f] = true;
            return true;
        }
    }
    emu_set_error("ACLNN_EMU_FAULT entry '%.*s' is not a fault: expected status, skip-check, "
                  "window-off-by-one, ulp:N, round-truncate, ignore-deterministic, oob-write, "
                  "mutate-input, crash, hang, leak or dense-batch", (int)len, s);
    return false;
}

aclError emu_fault_load(void)
{
    memset(on, 0, sizeof on);
    ulps = 0;
    loaded = true;
    const char *v = getenv("ACLNN_EMU_FAULT");
    if (!v)
        return ACL_SUCCESS;
    while (*v) {
        const char *comma = strchr(v, ',');
        size_t len = comma ? (size_t)(comma - v) : strlen(v);
        if (len > 0 && !parse_entry(v, len)) {
            memset(on, 0, sizeof on);
            return ACL_ERROR_INVALID_PARAM;
        }
        v += len + (comma ? 1 : 0);
    }
    return ACL_SUCCESS;
}

bool emu_fault_on(emu_fault f)
{
    if (!loaded)
        emu_fault_load();
    return f < EMU_FAULT_COUNT && on[f];
}

int emu_fault_ulps(void) { return emu_fault_on(EMU_FAULT_ULP) ? ulps : 0; }

aclnnStatus emu_fault_status(aclnnStatus status)
{
    if (!emu_fault_on(EMU_FAULT_STATUS))
        return status;
    if (status == ACLNN_ERR_PARAM_NULLPTR)
        return ACLNN_ERR_PARAM_INVALID;
    if (status == ACLNN_ERR_PARAM_INVALID)
        return ACLNN_SUCCESS;
    return status;
}

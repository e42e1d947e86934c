/* The environment switches of the emulated device, by name. aclInit refuses an ACLNN_EMU_*
 * variable that is none of them (a typo would otherwise be silently ignored); each switch's
 * values are checked where it is read (profile.c, fault.c, context.c), every message naming
 * the variable and what it accepts. */
#include <string.h>

#include "runtime.h"

extern char **environ;

static const char *const SWITCHES[] = {
    "ACLNN_EMU_SPEC",      "ACLNN_EMU_EMPTY_TENSOR",   "ACLNN_EMU_NULL_MASK",
    "ACLNN_EMU_EMPTY_STRIDE", "ACLNN_EMU_CUBE_MATH_CODE", "ACLNN_EMU_HF32_BITS",
    "ACLNN_EMU_SHUFFLE",   "ACLNN_EMU_FAULT",          "ACLNN_EMU_NONFINITE_GRID",
};

aclError emu_switches_check(void)
{
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "ACLNN_EMU_", 10) != 0)
            continue;
        size_t len = strcspn(*e, "=");
        bool known = false;
        for (size_t i = 0; i < sizeof SWITCHES / sizeof SWITCHES[0] && !known; i++)
            known = strlen(SWITCHES[i]) == len && strncmp(*e, SWITCHES[i], len) == 0;
        if (!known) {
            emu_set_error("%.*s is not a switch of the emulated device: expected ACLNN_EMU_SPEC, "
                          "ACLNN_EMU_EMPTY_TENSOR, ACLNN_EMU_NULL_MASK, ACLNN_EMU_EMPTY_STRIDE, "
                          "ACLNN_EMU_CUBE_MATH_CODE, ACLNN_EMU_HF32_BITS, ACLNN_EMU_SHUFFLE, "
                          "ACLNN_EMU_FAULT or ACLNN_EMU_NONFINITE_GRID", (int)len, *e);
            return ACL_ERROR_INVALID_PARAM;
        }
    }
    return ACL_SUCCESS;
}

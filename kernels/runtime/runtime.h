/* Private to libascendcl: the process state behind the runtime functions. */
#ifndef ACLCTS_KERNELS_RUNTIME_H_
#define ACLCTS_KERNELS_RUNTIME_H_

#include "emu.h"

/* Reads ACLCTS_SOC, the spec switches, ACLNN_EMU_FAULT and ACLNN_EMU_SHUFFLE. Returns
 * ACL_SUCCESS or ACL_ERROR_INVALID_PARAM with the recent error message set. */
aclError emu_profile_load(const char *config_path);
aclError emu_fault_load(void);
/* Refuses an ACLNN_EMU_* variable that is not a switch (message set). */
aclError emu_switches_check(void);
bool emu_runtime_initialized(void);

#endif

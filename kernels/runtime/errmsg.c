/* The recent error message: per thread, set by whichever library saw the failure, handed out
 * once by aclGetRecentErrMsg (reading clears it, as the CANN runtime does). */
#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"

static _Thread_local char pending[1024];
static _Thread_local char handed_out[1024];

void emu_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pending, sizeof pending, fmt, ap);
    va_end(ap);
}

void emu_clear_error(void) { pending[0] = '\0'; }

const char *aclGetRecentErrMsg(void)
{
    if (!pending[0])
        return NULL;
    snprintf(handed_out, sizeof handed_out, "%s", pending);
    pending[0] = '\0';
    return handed_out;
}

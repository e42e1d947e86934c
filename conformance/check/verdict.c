/* Status names of a verdict (check.h). */
#include "check.h"

#include <string.h>

static const char *const names[CTS_STATUS_COUNT] = {
    "PASS", "FAIL", "NOT_SUPPORTED", "WAIVED", "CRASH", "TIMEOUT", "ERROR", "RESOURCE_ERROR",
    "UNDEFINED",
};

const char *cts_status_name(cts_status s)
{
    return (unsigned)s < CTS_STATUS_COUNT ? names[s] : "?";
}

int cts_status_from_name(const char *name, cts_status *out)
{
    for (int i = 0; name && i < CTS_STATUS_COUNT; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (cts_status)i;
            return 0;
        }
    return -1;
}

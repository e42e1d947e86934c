/* Error collection of the suite loader: every message is "FILE:LINE:COL: error: FIELD: text",
 * printed once (the same value reached through several expanded cases reports once), counted. */
#ifndef ACLCTS_CONFORMANCE_SUITE_DIAG_H_
#define ACLCTS_CONFORMANCE_SUITE_DIAG_H_

#include <stddef.h>
#include <stdio.h>

#include "suite.h"

typedef struct {
    FILE *err;
    int count;          /* distinct errors reported */
    char **seen;        /* messages already printed */
    size_t nseen, cap;
} cts_diag;

#if defined(__GNUC__)
#define CTS_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CTS_PRINTF(f, a)
#endif

/* line and col are 1-based. */
void cts_diag_error(cts_diag *d, const char *file, int line, int col, const char *field,
                    const char *fmt, ...) CTS_PRINTF(6, 7);
void cts_diag_free(cts_diag *d);

#endif

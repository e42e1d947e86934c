/* Console reporting while a run goes: on a terminal one live line (done/total, failures, ETA)
 * redrawn with \r at most 4 times a second; otherwise plain lines, one per failing case and a
 * progress line every `period` seconds. Failing-case lines never mix with the live line. */
#ifndef ACLCTS_CONFORMANCE_PROGRESS_H_
#define ACLCTS_CONFORMANCE_PROGRESS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "results.h"

typedef struct {
    FILE *out;
    bool tty, quiet;
    double period;           /* seconds between plain progress lines */
    double redraw_period;    /* seconds between redraws of the live line (0.25) */
    size_t total, done, failing, skipped_before;
    double t_start, t_last, t_drawn;
    bool line_shown;         /* a live line is on screen */
} cts_progress;

void cts_progress_start(cts_progress *p, FILE *out, bool quiet, size_t total);
/* One finished case: prints it if it fails (with its repro line), updates the line. */
void cts_progress_case(cts_progress *p, const cts_result *r);
/* Clears the live line; the summary follows. */
void cts_progress_end(cts_progress *p);
double cts_now(void);         /* monotonic seconds */

#endif

/* Isolation: cases run in forked children (each runs many cases, one at a time) that send back
 * each verdict through a pipe as the flat cts_verdict struct. A child killed by a signal during a
 * case is CRASH for that case (with the signal's name), except by a SIGKILL the harness did not
 * send (the OOM killer's): RESOURCE_ERROR; one that overruns the per-case timeout is killed with
 * SIGKILL and is TIMEOUT, one that exits without a verdict is ERROR; the child is replaced and
 * the run goes on. The parent never calls the device or the reference, so no
 * OpenMP runtime or device context exists in it when it forks. */
#ifndef ACLCTS_CONFORMANCE_WORKER_H_
#define ACLCTS_CONFORMANCE_WORKER_H_

#include <signal.h>
#include <stddef.h>

#include "backend.h"
#include "case.h"
#include "runner.h"
#include "verdict.h"

#define CTS_WORKER_LOG_MAX 2048

typedef struct {
    const cts_backend *backend;
    cts_run_options run;
    int jobs;                /* children at once (>= 1) */
    double timeout;          /* seconds per case; <= 0: none */
    volatile sig_atomic_t *stop; /* non-zero: start no case, kill the running ones, return */
} cts_worker_options;

/* Called in the parent for each finished case, in completion order. log is the tail (at most
 * CTS_WORKER_LOG_MAX - 1 bytes) of what the child wrote to stdout and stderr. */
typedef void (*cts_worker_done_fn)(void *ctx, size_t index, const cts_verdict *v,
                                   const char *log);

/* Runs cases[0..n) and calls done once for each. */
void cts_worker_run(const cts_case *const *cases, size_t n, const cts_worker_options *o,
                    cts_worker_done_fn done, void *ctx);

/* "SIGSEGV" for SIGSEGV, "signal N" for one without a name. */
const char *cts_signal_name(int sig, char *buf, size_t len);

#endif

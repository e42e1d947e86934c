/* The run stage: one case driven through the others (data, device, reference, checks, --dump),
 * in forked workers so a crash or hang costs one case. */
#ifndef ACLCTS_CONFORMANCE_RUN_RUN_H_
#define ACLCTS_CONFORMANCE_RUN_RUN_H_

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "suite/suite.h"
#include "check/check.h"
#include "reference.h"

/* Running one case in-process: generate inputs, call the device through the backend, ask the
 * reference, apply the checks, fill the verdict. The worker module wraps this in a fork. */

typedef struct {
    int repeat;              /* 0: the case's own repeat */
    int threads;             /* OMP threads for the determinism cross-thread run (--jobs) */
    const char *dump_dir;    /* --dump DIR, or NULL */
    const char *evidence_dir; /* --evidence DIR, or NULL */
    uint64_t max_memory;     /* host bytes a case may need (estimate); 0: no limit */
} cts_run_options;

/* For the emulated backend selects the case's product (ACLCTS_SOC) before aclInit; for a real
 * install reads aclrtGetSocName and returns NOT_SUPPORTED for cases of other products. */
void cts_run_case(const cts_backend *b, const cts_case *c, const cts_run_options *o,
                  cts_verdict *v);

/* Isolation: cases run in forked children (each runs many cases, one at a time) that send back
 * each verdict through a pipe as the flat cts_verdict struct. A child killed by a signal during a
 * case is CRASH for that case (with the signal's name), except by a SIGKILL the harness did not
 * send (the OOM killer's): RESOURCE_ERROR; one that overruns the per-case timeout is killed with
 * SIGKILL and is TIMEOUT, one that exits without a verdict is ERROR; the child is replaced and
 * the run goes on. The parent never calls the device or the reference, so no
 * OpenMP runtime or device context exists in it when it forks. */

#define CTS_WORKER_LOG_MAX 2048
/* Cases one worker runs before it is replaced by a fresh process. */
#define CTS_WORKER_MAX_CASES 256

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

/* The reference side of one case, through ref_case: the status query its operator's driver
 * builds from the case, the plan and the answers. */

ref_status_query cts_status_query(const cts_case *c);
/* The reference's plan of case c (ref_case, one call): expected status and reason, paths,
 * computed outputs, memory. */
void cts_case_plan(const cts_case *c, ref_case_answer *a);
/* The plan and the answers of every computed output from the input values the device saw
 * (in[slot], logical row-major), each chunk to fn (outputs in slot order). ref_case's result. */
int cts_case_answers(const cts_case *c, const double *const in[], ref_chunk_fn fn, void *ctx,
                     ref_case_answer *a);
/* The same for the case cut to `batches` batches (the first dim of every tensor; a batch_major
 * operator), in[] the inputs of those batches, and only output `slot` computed and streamed. */
int cts_case_answers_batches(const cts_case *c, int64_t batches, int slot,
                             const double *const in[], ref_chunk_fn fn, void *ctx,
                             ref_case_answer *a);

/* Evidence (evidence.c, replay.c): with --evidence DIR each case whose call computed outputs
 * (status 0 where 0 was expected) leaves DIR/<case id>.gz, gzip of a header line
 * "aclcts-evidence/1 seed=S generator=G hash=H bytes=N" and the N bytes of its outputs' view
 * elements in the order of the record's output_hash. With the suite (its seed regenerates the
 * inputs, the data generator's version CTS_DATA_GENERATOR must match) a verifier re-judges
 * the case without the device. */
#define CTS_EVIDENCE_FORMAT "aclcts-evidence/1"
void cts_evidence_path(const char *dir, const char *case_id, char *path, size_t len);
/* Re-judges case c from the evidence at path: v gets what run 1's numeric checks give (status,
 * check, worst errors, counts, output_hash). 0, or -1 with a message (unreadable, another seed
 * or generator, outputs that do not hash to the header's hash). */
int cts_replay_case(const cts_case *c, const char *path, cts_verdict *v, char *err,
                    size_t errlen);

#endif

/* The steps of cts_run_case (run.h), private to run/: the device session (run_session.c), the
 * memory estimate (run_memory.c), device runs (run_device.c), the checks of a run's outputs as
 * the reference streams its answers (run_outputs.c), and the driver of a case (run_case.c). */
#ifndef ACLCTS_CONFORMANCE_RUN_RUN_INTERNAL_H_
#define ACLCTS_CONFORMANCE_RUN_RUN_INTERNAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "check/check.h"
#include "dump.h"
#include "reference.h"
#include "run.h"
#include "suite/suite.h"

/* A case's device session: what run_session_open set up for run_session_close. */
typedef struct {
    const cts_backend *b;
    const cts_case *c;
    aclrtStream stream;
    bool initialized, device_set;
    bool dataless;           /* an error case too large for memory: shapes without data */
    uint64_t need;           /* the case's memory estimate (memory_estimate) */
    uint64_t max_memory;     /* --max-memory, 0: no limit */
} session;

/* The seeded values of one input (cts_fill_range), the fill's context: it lives as long as the
 * run, since a dropped sent image is made again from it after the call. */
typedef struct {
    const cts_case *c;
    int slot;
} input_fill;

/* One call of the operator: what came back. */
typedef struct {
    cts_dev_tensor d[CTS_MAX_TENSORS];
    input_fill fill[CTS_MAX_TENSORS];
    int32_t status;
    char errmsg[512];
} device_run;

/* A hash of a run's outputs in progress (run_output_hash's, in its order): h covers every
 * element before element k of slot. */
typedef struct {
    uint64_t h;
    int slot;
    int64_t k;
} output_hash_at;

/* The output checks of the first run, slot by slot: poison of outputs the call must not write,
 * and the numerics of the others judged chunk by chunk as the reference streams them (the
 * reference's outputs come in slot order). */
typedef struct {
    const cts_case *c;
    const device_run *r;
    cts_verdict *v;
    const ref_case_answer *plan;
    bool numerics;
    int next;                    /* first slot whose checks are not done */
    int slot;                    /* the output being judged, -1 none */
    cts_output_judge *j;         /* its judge; NULL: its size disagrees with the view (setup
                                    error) or memory ran out */
    cts_error_grid worst_map;    /* error map of the verdict's worst output */
    cts_dump_stream *dump;       /* --dump: the reference's arrays, or NULL */
    double *got;                 /* the device's values of the chunk being judged */
    int64_t got_cap;
    double t_judge, c_judge;     /* wall and CPU seconds spent judging (the rest of the
                                    stream is the reference's); CPU: the judging thread's */
    output_hash_at hash;         /* run 1's output hash, carried by the judge's pass over the
                                    chunks that come in the hash's order */
} output_checks;

/* One case's run in progress, shared by the steps of cts_run_case. */
typedef struct {
    session s;
    const cts_run_options *o;
    ref_case_answer plan;        /* the reference's plan: status, paths, outputs, memory */
    ref_status st;               /* the status model's answer */
    int32_t expected;            /* the status the case expects */
    output_checks oc;            /* the first run's output checks */
    bool exact[CTS_MAX_TENSORS]; /* outputs whose reference arrays --dump wrote */
    device_run *runs;
    int nruns, total;
} case_run;

/* Seconds on the monotonic clock. */
double run_now(void);

/* A moment, or a stage's time so far: wall seconds (monotonic) and CPU seconds of the process
 * (every thread, so the reference's OpenMP team counts) and of the children it waited for (a
 * case without a defined outcome runs the call in one). A worker runs one case at a time, so
 * the process's CPU in a stage is that stage's. */
typedef struct {
    double wall, cpu;
} run_clock;
run_clock run_clock_now(void);
/* Adds the time since `since` to a stage's wall and CPU seconds. */
void run_stage_add(double *wall, double *cpu, run_clock since);
/* CPU seconds of the calling thread. */
double run_thread_cpu(void);

/* ---- the session (run_session.c) ---- */

/* aclInit (product chosen by ACLCTS_SOC on emulated backends), device 0, a stream and the
 * determinism option. Non-zero: the verdict says why (ERROR or NOT_SUPPORTED). */
int run_session_open(session *s, cts_verdict *v);
void run_session_close(session *s);

/* ---- memory (run_memory.c) ---- */

/* Batches the reference answers at a time: 0 for the whole case at once, else at least 1
 * (ref_bytes: the reference's working set, ref_case_answer.work_bytes). */
int64_t run_piece_batches(const cts_case *c, uint64_t ref_bytes);
/* --max-memory: false (the verdict says why) when the case must not run; an error case too
 * large runs without data (s->dataless). */
bool run_fits_memory(session *s, const cts_run_options *o, int runs, int32_t expected,
                     uint64_t ref_bytes, cts_verdict *v);
/* The workspace of the first phase still fits --max-memory on the emulated device. */
bool run_workspace_fits(const session *s, uint64_t ws, char *err, size_t errlen);

/* ---- device runs (run_device.c) ---- */

/* Generate, poison, upload, call, read back (a later run copies run 1's sent images). */
int run_device_once(const session *s, const device_run *first, device_run *r, run_clock *gen,
                    char *err, size_t errlen);
void run_device_free(const cts_backend *b, const cts_case *c, device_run *r);
/* FNV-1a of every output's view elements, in order. */
uint64_t run_output_hash(const cts_case *c, const device_run *r);
/* The hash's start (no element hashed yet). */
output_hash_at run_output_hash_start(void);
/* Moves a past the slots it has no element left in (not outputs, null, or done). */
void run_output_hash_settle(const cts_case *c, const device_run *r, output_hash_at *a);
/* run_output_hash, the elements before a's already in a->h. */
uint64_t run_output_hash_finish(const cts_case *c, const device_run *r, output_hash_at a);

/* ---- checks of a run (run_outputs.c) ---- */

void run_check_call(const cts_case *c, const ref_status *st, int32_t expected,
                    const device_run *r, cts_verdict *v);
/* The output checks of every slot before `upto` not done yet. */
void run_outputs_until(output_checks *oc, int upto);
void run_check_later(const cts_case *c, const device_run *first, const device_run *r,
                     const char *label, cts_verdict *v);
/* The reference's answers on run 1's inputs, judged chunk by chunk. False (the verdict says
 * why) when it cannot give them. */
bool run_reference_answers(case_run *r, cts_verdict *v);

/* ---- a case without a defined outcome (run_undefined.c) ---- */

/* The call in a child process and the verdict UNDEFINED saying what it did (the session's
 * NOT_SUPPORTED or ERROR when the harness could not make the call). */
void run_undefined_case(case_run *r, cts_verdict *v);

/* ---- evidence (evidence.c) ---- */

/* DIR/<case id>.gz of run 1's outputs (run.h). 0, or -1 with a message. */
int run_evidence_write(const char *dir, const cts_case *c, const device_run *r,
                       const cts_verdict *v, char *err, size_t errlen);

#endif

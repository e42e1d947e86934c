/* cts_run_case (run.h): one case in-process, from data generation to verdict; its steps are
 * in run_session.c, run_memory.c, run_device.c and run_outputs.c. */
#include "run_internal.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A device run the harness could not complete: memory that ran out is the host's resource
 * failure, anything else a setup error. */
static void run_failed(int rc, const char *err, cts_verdict *v)
{
    if (rc == CTS_OUT_OF_MEMORY)
        cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "%s", err);
    else
        cts_verdict_fail(v, CTS_ERROR, "setup", "%s", err);
}

/* What the reference expects of the case (its plan): its status (and reason), computation
 * path, outputs and memory. */
static void expectation(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    run_clock t = run_clock_now();
    cts_case_plan(c, &r->plan);
    r->st = r->plan.status;
    r->expected = c->expect_status_model ? r->st.status : c->expect_status;
    v->expected_status = r->expected;
    snprintf(v->status_reason, sizeof v->status_reason, "%s", r->st.reason);
    snprintf(v->path, sizeof v->path, "%s", r->plan.path.name ? r->plan.path.name : "");
    run_stage_add(&v->t_ref, &v->c_ref, t);
}

/* Device runs of the case: its repeat (or --repeat), at least 2 when determinism is promised,
 * then one with 1 thread and one with --jobs threads. */
static int total_runs(const cts_case *c, const cts_run_options *o)
{
    int repeat = o && o->repeat > 0 ? o->repeat : (c->repeat > 0 ? c->repeat : 1);
    if (c->deterministic && repeat < 2) repeat = 2;
    return c->deterministic ? repeat + 2 : repeat;
}

/* A device run since `since`, of which `gen` made the sent images: generation and device. */
static void device_stage(cts_verdict *v, run_clock since, run_clock gen)
{
    run_clock now = run_clock_now();
    v->t_gen += gen.wall;
    v->c_gen += gen.cpu;
    v->t_device += now.wall - since.wall - gen.wall;
    v->c_device += now.cpu - since.cpu - gen.cpu;
}

/* Run 1: the device call, its checks, the reference's answers judged as they come when the call
 * computed something, and the output checks. False when the case cannot go on. */
static bool first_run(case_run *r, cts_verdict *v)
{
    const cts_backend *b = r->s.b;
    const cts_case *c = r->s.c;
    char err[512] = "";
    if (!(r->runs = calloc((size_t)r->total, sizeof *r->runs))) {
        cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "out of host memory");
        return false;
    }
    run_clock t = run_clock_now(), gen = {0, 0};
    r->nruns = 1;
    /* Leak check where the backend can tell (the emulation's counter; a real install cannot):
     * every byte the case allocated is freed again when its first run ends. */
    size_t live_before = b->emu_live_device_bytes ? b->emu_live_device_bytes() : 0;
    int rc = run_device_once(&r->s, NULL, &r->runs[0], &gen, err, sizeof err);
    device_stage(v, t, gen);
    if (rc != 0) {
        run_failed(rc, err, v);
        return false;
    }
    v->got_status = r->runs[0].status;
    t = run_clock_now();
    run_check_call(c, &r->st, r->expected, &r->runs[0], v);
    run_stage_add(&v->t_check, &v->c_check, t);
    r->oc = (output_checks){.c = c, .r = &r->runs[0], .v = v, .plan = &r->plan, .slot = -1,
                           .hash = run_output_hash_start()};
    r->oc.numerics =
        r->runs[0].status == 0 && r->expected == 0 && (r->st.status != 0 || r->st.runs);
    bool answered = !r->oc.numerics || run_reference_answers(r, v);
    t = run_clock_now();
    /* a pass over every output, a check's: the judge hashed what it read in order */
    v->output_hash = run_output_hash_finish(c, &r->runs[0], r->oc.hash);
    if (!answered) {
        run_stage_add(&v->t_check, &v->c_check, t);
        return false;
    }
    if (r->runs[0].status == 0) {
        run_outputs_until(&r->oc, c->ntensors);
        cts_check_unjudged(c->max_unjudged, v);
    }
    size_t live_after = b->emu_live_device_bytes ? b->emu_live_device_bytes() : 0;
    if (v->status == CTS_PASS && live_after > live_before)
        cts_verdict_fail(v, CTS_FAIL, "leak",
                         "the device holds %zu more bytes of device memory after the call than "
                         "before, with every tensor and workspace freed: a leak",
                         live_after - live_before);
    run_stage_add(&v->t_check, &v->c_check, t);
    return true;
}

/* Runs 2..total while the case passes: determinism (plus 1 thread and --jobs threads) or the
 * spread. */
static void later_runs(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    const cts_run_options *o = r->o;
    char err[512] = "";
    int saved_threads = omp_get_max_threads();
    for (int k = 1; k < r->total && v->status == CTS_PASS; k++) {
        char label[32];
        int threads = 0;
        if (c->deterministic && k == r->total - 2) threads = 1;
        if (c->deterministic && k == r->total - 1)
            threads = o && o->threads > 0 ? o->threads : omp_get_num_procs();
        if (threads) {
            omp_set_num_threads(threads);
            snprintf(label, sizeof label, "a run with %d thread%s", threads, threads > 1 ? "s" : "");
        } else {
            snprintf(label, sizeof label, "run %d", k + 1);
        }
        run_clock t = run_clock_now(), gen = {0, 0};
        int rc = run_device_once(&r->s, &r->runs[0], &r->runs[k], &gen, err, sizeof err);
        r->nruns = k + 1;
        omp_set_num_threads(saved_threads);
        device_stage(v, t, gen);
        if (rc != 0) {
            run_failed(rc, err, v);
            break;
        }
        t = run_clock_now();
        run_check_later(c, &r->runs[0], &r->runs[k], label, v);
        run_device_free(r->s.b, c, &r->runs[k]); /* judged: only run 1 is compared with */
        run_stage_add(&v->t_check, &v->c_check, t);
    }
}

/* A FAIL the case's waiver accepts whatever the failure is (no status list): WAIVED, with the
 * waiver's reason before the message. */
static void waive(const cts_case *c, cts_verdict *v)
{
    char msg[sizeof v->message + 600], w[512];
    cts_waiver_describe(c, w, sizeof w);
    snprintf(msg, sizeof msg, "waived (%s): %s", w, v->message);
    size_t n = strlen(msg) < sizeof v->message ? strlen(msg) : sizeof v->message - 1;
    memcpy(v->message, msg, n);
    v->message[n] = 0;
    v->status = CTS_WAIVED;
}

/* Whether the case's waiver is past its expiry date (UTC): it then waives nothing. */
static bool waiver_expired(const cts_case *c)
{
    char today[16];
    time_t t = time(NULL);
    struct tm tm;
    strftime(today, sizeof today, "%Y-%m-%d", gmtime_r(&t, &tm));
    return c->waiver_expires && strcmp(today, c->waiver_expires) > 0;
}

/* The failure an expired waiver would have accepted is a FAIL of check `waiver` naming it, so
 * a deviation cannot outlive its review. A status waiver's message names the waiver already. */
static void expire_waiver(const cts_case *c, cts_verdict *v)
{
    char msg[sizeof v->message + 600], w[512] = "";
    if (v->status == CTS_FAIL) {
        w[0] = ' ';
        w[1] = '(';
        cts_waiver_describe(c, w + 2, sizeof w - 4);
        strcat(w, ")");
    }
    snprintf(msg, sizeof msg, "waiver expired on %s%s: %s", c->waiver_expires, w, v->message);
    size_t n = strlen(msg) < sizeof v->message ? strlen(msg) : sizeof v->message - 1;
    memcpy(v->message, msg, n);
    v->message[n] = 0;
    v->status = CTS_FAIL;
    snprintf(v->check, sizeof v->check, "waiver");
}

/* The end of every case, however far it got: the waiver, the error map of a failure, --dump,
 * --evidence of a case whose outputs were judged,
 * and every buffer and the device session released. */
static void finish(case_run *r, cts_verdict *v)
{
    const cts_case *c = r->s.c;
    bool waivable = (v->status == CTS_FAIL && c->waiver && c->nwaiver_status == 0) ||
                    v->status == CTS_WAIVED;
    if (waivable && waiver_expired(c))
        expire_waiver(c, v);
    else if (waivable && v->status == CTS_FAIL)
        waive(c, v);
    /* the error map of a failure over the plane of its worst element (report.html) */
    if (v->status == CTS_FAIL && r->nruns > 0 && v->worst_output[0] &&
        !strcmp(r->oc.worst_map.output, v->worst_output))
        v->grid = r->oc.worst_map;
    if (r->oc.j) cts_judge_abandon(r->oc.j); /* a stream cut short */
    if (r->o && r->o->dump_dir && r->nruns > 0 && !r->s.dataless) {
        char derr[512];
        if (cts_dump_case(r->o->dump_dir, c, r->runs[0].d, r->exact, v, derr, sizeof derr) != 0)
            fprintf(stderr, "aclcts: --dump of %s: %s\n", c->id, derr);
    }
    if (r->o && r->o->evidence_dir && r->nruns > 0 && r->oc.numerics) {
        char eerr[512];
        if (run_evidence_write(r->o->evidence_dir, c, &r->runs[0], v, eerr, sizeof eerr) != 0)
            fprintf(stderr, "aclcts: --evidence of %s: %s\n", c->id, eerr);
    }
    for (int k = 0; k < r->nruns; k++) run_device_free(r->s.b, c, &r->runs[k]);
    free(r->runs);
    free(r->oc.got);
    run_session_close(&r->s);
}

void cts_run_case(const cts_backend *b, const cts_case *c, const cts_run_options *o,
                  cts_verdict *v)
{
    run_clock t0 = run_clock_now();
    memset(v, 0, sizeof *v);
    snprintf(v->case_id, sizeof v->case_id, "%s", c->id);
    v->status = CTS_PASS;
    v->worst_index = -1;
    case_run r = {.s = {.b = b, .c = c}, .o = o};
    expectation(&r, v);
    if (r.st.undefined && c->expect_status_model) {
        run_undefined_case(&r, v);
        run_stage_add(&v->t_total, &v->c_total, t0);
        return;
    }
    r.total = total_runs(c, o);
    if (run_fits_memory(&r.s, o, r.total, r.expected, r.plan.work_bytes, v) &&
        run_session_open(&r.s, v) == 0 && first_run(&r, v))
        later_runs(&r, v);
    finish(&r, v);
    run_stage_add(&v->t_total, &v->c_total, t0);
}

/* One fuzzed call through the CANN ABI with every oracle: status against the reference
 * status model, the error message, guard zones, outputs untouched on an error or when not asked
 * for, inputs unchanged, numeric bound of the reference on small successful calls, bitwise
 * repeats where determinism is promised, and (outside sanitizer builds) a heap that returns to
 * its size. The checks themselves are the harness's (conformance/check/check.h); this file decides
 * which apply and turns a failure into an abort naming the oracle. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "check/check.h"
#include "device.h"
#include "fuzz_call.h"
#include "run/run.h"

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif

typedef struct {
    const fuzz_call *fc;
    const cts_backend *b;
    cts_dev_tensor d[CTS_MAX_TENSORS];
    cts_call_args args;    /* the arrays of the list parameters */
    int32_t status;        /* first phase */
    uint64_t workspace_size;
    void *workspace;
    ref_case_answer plan;  /* a call the status model accepts: the reference's plan (its
                              computed outputs, the path they are judged under) */
} call_state;

static void describe_and_abort(const fuzz_call *fc, const char *oracle, const char *msg)
{
    fprintf(stderr, "ORACLE %s: %s\n", oracle, msg);
    fprintf(stderr, "the call, as a suite case:\n");
    fuzz_describe_call(fc, stderr);
    fflush(stderr);
    abort();
}

static void check(const call_state *s, bool ok, const char *oracle, const cts_verdict *v)
{
    if (!ok) describe_and_abort(s->fc, oracle, v->message);
}

static void create_arrays(call_state *s)
{
    s->args.c = &s->fc->c;
    cts_call_arrays_create(s->b, &s->args);
}

static void setup(call_state *s)
{
    const cts_case *c = &s->fc->c;
    char err[512];
    for (int i = 0; i < c->ntensors; i++) {
        const cts_tensor *t = &c->t[i];
        int64_t numel = fuzz_numel(t->rank, t->dims);
        double *vals = t->is_output ? NULL : fuzz_input_values(s->fc, i, numel);
        if ((!t->is_output && !vals) || cts_dev_tensor_prepare(&s->d[i], t, i, vals) != 0 ||
            cts_dev_tensor_upload(s->b, &s->d[i], err, sizeof err) != 0) {
            fprintf(stderr, "fuzz setup: tensor %s: %s\n", t->name, err);
            abort();
        }
    }
    create_arrays(s);
}

static void teardown(call_state *s)
{
    if (s->args.c) cts_call_arrays_destroy(s->b, &s->args);
    if (s->workspace) s->b->aclrtFree(s->workspace);
    for (int i = 0; i < s->fc->c.ntensors; i++) cts_dev_tensor_free(s->b, &s->d[i]);
    memset(s, 0, sizeof *s);
}

/* Both phases (only the first when first_only); the second only after a successful first.
 * Returns the second phase's status. */
static int32_t call_device(call_state *s, bool first_only)
{
    const cts_case *c = &s->fc->c;
    const cts_backend *b = s->b;
    for (int i = 0; i < c->ntensors; i++) s->args.t[i] = c->t[i].null ? NULL : s->d[i].acl;
    aclOpExecutor *ex = NULL;
    s->args.workspace_size = s->fc->workspace_size_null ? NULL : &s->workspace_size;
    s->args.executor = s->fc->executor_null ? NULL : &ex;
    b->aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, c->deterministic ? 1 : 0);
    s->status = cts_call_first_phase(b, &s->args);
    if (s->status != 0 || first_only) return 0;
    if (s->workspace_size > 0 &&
        b->aclrtMalloc(&s->workspace, s->workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != 0) {
        fprintf(stderr, "fuzz setup: workspace of %llu bytes\n",
                (unsigned long long)s->workspace_size);
        abort();
    }
    int32_t rc = cts_call_second_phase(b, c, s->workspace, s->workspace_size, ex, NULL);
    b->aclrtSynchronizeStream(NULL);
    return rc;
}

static void download(call_state *s)
{
    char err[512];
    for (int i = 0; i < s->fc->c.ntensors; i++)
        if (cts_dev_tensor_download(s->b, &s->d[i], err, sizeof err) != 0) {
            fprintf(stderr, "fuzz setup: %s\n", err);
            abort();
        }
}

static bool determinism_promised(const cts_case *c)
{
    return c->deterministic && c->op->determinism_promised(c);
}

/* Outputs the reference judges: computed, all of them small, and values the contract defines.
 * It defines finite arithmetic and, for the grid sampler, non-finite grid coordinates (out of
 * bounds); how NaN and infinite gradients or inputs propagate through a kernel's products (a
 * cube path multiplies by zero weights) it leaves open. And the reference's bound models
 * rounding, not overflow of FP16 cube operands or of FP32 intermediates, so magnitudes stay
 * below 2^14 (FP16 operands of a sum of up to 4096 weighted terms cannot overflow). */
#define FUZZ_NUMERIC_MAX_ABS 0x1p14
static bool numeric_applies(const call_state *s)
{
    const cts_case *c = &s->fc->c;
    bool any = false;
    for (int i = 0; i < c->ntensors; i++) {
        /* non-finite coordinates: out of bounds */
        if (c->t[i].is_output || c->op->tensors[i].coordinates) continue;
        for (int64_t k = 0; k < s->d[i].numel; k++)
            if (!isfinite(s->d[i].values[k])) return false;
    }
    for (int i = 0; i < c->ntensors; i++)
        for (int64_t k = 0; !c->t[i].is_output && k < s->d[i].numel; k++)
            if (fabs(s->d[i].values[k]) > FUZZ_NUMERIC_MAX_ABS && isfinite(s->d[i].values[k]))
                return false;
    for (int i = 0; i < c->ntensors; i++) {
        if (!c->t[i].is_output || !s->plan.computed[i]) continue;
        if (s->d[i].numel > FUZZ_NUMERIC_MAX_NUMEL) return false;
        any = true;
    }
    return any;
}

/* The numeric oracle's judge: the reference's answers as the harness gets them (ref_case's
 * chunks through cts_case_answers), each output judged under the `bound` policy chunk by chunk
 * as they come, the outputs in slot order. */
static const cts_tolerance numeric_policy = {.kind = CTS_TOL_BOUND, .name = "bound"};

typedef struct {
    const call_state *s;
    int slot;                /* the output being judged; -1 before the first chunk */
    cts_output_judge *j;
    cts_verdict v;
} numeric_judge;

/* The verdict of the output being judged: aborts naming the oracle when it fails. */
static void numeric_output_end(numeric_judge *nj)
{
    if (!nj->j) return;
    bool ok = cts_judge_end(nj->j, &nj->v, NULL);
    nj->j = NULL;
    if (!ok) describe_and_abort(nj->s->fc, "numeric", nj->v.message);
}

static int numeric_chunk(void *ctx, const ref_chunk *ch)
{
    numeric_judge *nj = ctx;
    const call_state *s = nj->s;
    if (ch->slot != nj->slot) {
        numeric_output_end(nj);
        const cts_tensor *t = &s->fc->c.t[ch->slot];
        cts_judged_output o = {t->name, t->dtype, t->rank, t->dims, s->d[ch->slot].numel,
                               s->d[ch->slot].values, NULL, s->fc->c.op->tensors[ch->slot].pairs};
        memset(&nj->v, 0, sizeof nj->v);
        nj->slot = ch->slot;
        nj->j = cts_judge_begin(&numeric_policy, &s->plan.judge, &o, true, NULL, &nj->v.el);
        if (!nj->j) describe_and_abort(s->fc, "numeric", "out of host memory");
    }
    cts_judge_chunk(nj->j, ch);
    return 0;
}

static void numeric_oracle(call_state *s)
{
    const cts_case *c = &s->fc->c;
    const double *in[CTS_MAX_TENSORS] = {0};
    for (int i = 0; i < c->ntensors; i++) {
        if (!c->t[i].is_output) in[i] = s->d[i].values;
        else if (s->plan.computed[i]) cts_dev_tensor_read_back(&s->d[i], s->d[i].values);
    }
    numeric_judge nj = {.s = s, .slot = -1};
    ref_case_answer answers;
    if (cts_case_answers(c, in, numeric_chunk, &nj, &answers) != 0) {
        if (nj.j) cts_judge_abandon(nj.j);
        describe_and_abort(s->fc, "reference",
                           "the status model says success but the reference rejects the "
                           "parameters");
    }
    numeric_output_end(&nj);
}

/* A second run of the same call must give the same output bytes. */
static void determinism_oracle(call_state *first)
{
    call_state again = {.fc = first->fc, .b = first->b};
    setup(&again);
    call_device(&again, false);
    download(&again);
    const cts_case *c = &first->fc->c;
    for (int i = 0; i < c->ntensors; i++) {
        if (!c->t[i].is_output) continue;
        cts_verdict v = {0};
        if (!cts_check_identical(&first->d[i], &again.d[i], "run 2", &v)) {
            teardown(&again);
            describe_and_abort(first->fc, "determinism", v.message);
        }
    }
    teardown(&again);
}

/* A call the status model rejects: its tensors in the shared poisoned arena (arena.h), the
 * first phase only (were it to succeed, the status oracle fires), then the status, errmsg and
 * "nothing written" oracles. */
static void run_rejected(const fuzz_call *fc, const cts_backend *b, ref_status want)
{
    call_state s = {.fc = fc, .b = b};
    const cts_case *c = &fc->c;
    cts_verdict v = {0};
    for (int i = 0; i < c->ntensors; i++) cts_dev_tensor_layout(&s.d[i], &c->t[i], i);
    fuzz_arena_place(b, s.d, c->ntensors);
    create_arrays(&s);
    call_device(&s, true);
    const char *msg = b->aclGetRecentErrMsg ? b->aclGetRecentErrMsg() : "";
    check(&s, cts_check_status(c, want.status, s.status, want.reason, msg, &v), "status", &v);
    check(&s, cts_check_errmsg(s.status, msg, &v), "errmsg", &v);
    const char *oracle = fuzz_arena_damage(b, s.d, c->ntensors, v.message, sizeof v.message);
    if (oracle) describe_and_abort(fc, oracle, v.message);
    teardown(&s);
}

static void run_once(const fuzz_call *fc, const cts_backend *b, ref_status want)
{
    if (want.status != 0) {
        run_rejected(fc, b, want);
        return;
    }
    call_state s = {.fc = fc, .b = b};
    const cts_case *c = &fc->c;
    cts_verdict v = {0};
    cts_case_plan(c, &s.plan);
    setup(&s);
    int32_t second = call_device(&s, false);
    const char *msg = b->aclGetRecentErrMsg ? b->aclGetRecentErrMsg() : "";
    check(&s, cts_check_status(c, want.status, s.status, want.reason, msg, &v), "status", &v);
    check(&s, cts_check_errmsg(s.status, msg, &v), "errmsg", &v);
    if (s.status == 0 && second != 0) {
        snprintf(v.message, sizeof v.message,
                 "the first phase succeeded, the second returned %d: \"%s\"", second, msg);
        describe_and_abort(fc, "second-phase", v.message);
    }
    download(&s);
    for (int i = 0; i < c->ntensors; i++) {
        check(&s, cts_check_guards(&s.d[i], &v), "guards", &v);
        if (!c->t[i].is_output) {
            check(&s, cts_check_input_unchanged(&s.d[i], &v), "inputs", &v);
        } else if (s.status != 0) {
            check(&s, cts_check_poison(&s.d[i], "the call failed", &v), "output-on-error", &v);
        } else if (!want.runs || !s.plan.computed[i]) {
            check(&s, cts_check_poison(&s.d[i], "it was not to be computed", &v),
                  "output-not-computed", &v);
        }
    }
    if (s.status == 0 && want.runs) {
        if (numeric_applies(&s)) numeric_oracle(&s);
        /* needs no reference, so it runs at every size: C above 2048 is where a kernel might
         * fall back to atomic adds */
        if (determinism_promised(c)) determinism_oracle(&s);
    }
    teardown(&s);
}

void fuzz_run_call(const fuzz_call *in)
{
    fuzz_call fc = *in;
    const cts_backend *b = fuzz_device(&fc.c.product, &fc.c.spec);
    ref_status_query q = cts_status_query(&fc.c);
    q.workspace_size_null = fc.workspace_size_null;
    q.executor_null = fc.executor_null;
    ref_status want = ref_expected_status(&q);
    /* No outcome to check (the vendor's code dereferences NULL there, and the emulation, playing
     * it, dies of SIGSEGV): the call is not made. */
    if (want.undefined) return;
#ifdef FUZZ_ASAN
    run_once(&fc, b, want); /* LeakSanitizer judges leaks */
#else
    /* A call must give back what it takes. One-time growth (thread pools, registries) is
     * forgiven once: the call is repeated and only a second growth counts. */
    for (int attempt = 0; attempt < 4; attempt++) {
        size_t before = mallinfo2().uordblks;
        run_once(&fc, b, want);
        size_t after = mallinfo2().uordblks;
        if (after <= before) return;
        if (attempt == 3) {
            char msg[160];
            snprintf(msg, sizeof msg, "the heap grew by %zu bytes over a repeated call "
                     "(something the call allocated is never freed)", after - before);
            describe_and_abort(&fc, "leak", msg);
        }
    }
#endif
}

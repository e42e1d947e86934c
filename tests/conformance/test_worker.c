/* The worker loop (worker.c) with a stand-in for cts_run_case (this file defines it, so the
 * library's is not linked): what each case does is in its id. Asserted: every case gets
 * exactly one verdict; a crash, a hang or an exit costs exactly the case that was running (the
 * cases sent behind it run on a new worker); a case's output tail is its own; workers run many
 * cases; a FAIL retires its worker, and so does its share of cases, with no case lost. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "run/run.h"

static void note_start(const cts_case *c);

void cts_run_case(const cts_backend *b, const cts_case *c, const cts_run_options *o,
                  cts_verdict *v)
{
    (void)b, (void)o;
    note_start(c);
    fprintf(stderr, "err:%s\n", c->id);
    printf("out:%s\n", c->id);
    fflush(stdout);
    snprintf(v->message, sizeof v->message, "%d", (int)getpid());
    if (!strncmp(c->id, "crash", 5)) {
        signal(SIGSEGV, SIG_DFL); /* cmocka's handler, inherited from the test, would catch it */
        raise(SIGSEGV);
    }
    if (!strncmp(c->id, "hang", 4))
        for (;;)
            pause();
    if (!strncmp(c->id, "exit", 4))
        _exit(3);
    v->status = strncmp(c->id, "fail", 4) ? CTS_PASS : CTS_FAIL;
}

/* Appends the case's id to the file $WORKER_STARTS names (when set), as the case starts. */
static void note_start(const cts_case *c)
{
    const char *f = getenv("WORKER_STARTS");
    FILE *fp = f ? fopen(f, "a") : NULL;
    if (fp) fprintf(fp, "%s\n", c->id), fclose(fp);
}

#define MAXN 300

typedef struct {
    int calls[MAXN];
    cts_verdict v[MAXN];
    char log[MAXN][CTS_WORKER_LOG_MAX];
} record;

static void on_done(void *ctx, size_t index, const cts_verdict *v, const char *log)
{
    record *r = ctx;
    r->calls[index]++;
    r->v[index] = *v;
    snprintf(r->log[index], sizeof r->log[index], "%s", log);
}

/* Runs cases named ids[0..n) with `jobs` workers; the verdicts in *r. */
static void run(const char *const *ids, size_t n, int jobs, record *r)
{
    static cts_case cases[MAXN];
    const cts_case *ptr[MAXN];
    for (size_t i = 0; i < n; i++) {
        snprintf(cases[i].id, sizeof cases[i].id, "%s", ids[i]);
        ptr[i] = &cases[i];
    }
    memset(r, 0, sizeof *r);
    cts_worker_options o = {.backend = NULL, .jobs = jobs, .timeout = 1};
    cts_worker_run(ptr, n, &o, on_done, r);
}

/* The output tail of case i is its own two lines and nobody else's. */
static void assert_own_output(const record *r, const char *const *ids, size_t n, size_t i)
{
    char out[300], err[300];
    snprintf(out, sizeof out, "out:%s\n", ids[i]);
    snprintf(err, sizeof err, "err:%s\n", ids[i]);
    assert_non_null(strstr(r->log[i], out));
    assert_non_null(strstr(r->log[i], err));
    assert_int_equal(strlen(r->log[i]), strlen(out) + strlen(err));
    (void)n;
}

static void test_many_cases_few_workers(void **state)
{
    (void)state;
    static char names[40][16];
    const char *ids[40];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "pass.%d", i);
        ids[i] = names[i];
    }
    static record r;
    run(ids, 40, 2, &r);
    int pids[40], npids = 0;
    for (int i = 0; i < 40; i++) {
        assert_int_equal(r.calls[i], 1);
        assert_int_equal(r.v[i].status, CTS_PASS);
        assert_string_equal(r.v[i].case_id, ids[i]);
        assert_own_output(&r, ids, 40, (size_t)i);
        int pid = atoi(r.v[i].message), seen = 0;
        for (int k = 0; k < npids; k++)
            seen |= pids[k] == pid;
        if (!seen)
            pids[npids++] = pid;
    }
    assert_int_equal(npids, 2); /* two workers ran all 40 */
}

static void test_faults_cost_one_case(void **state)
{
    (void)state;
    const char *ids[] = {"pass.0", "crash.1", "pass.2", "hang.3", "pass.4", "exit.5", "pass.6",
                         "fail.7", "pass.8", "pass.9"};
    const cts_status want[] = {CTS_PASS, CTS_CRASH, CTS_PASS, CTS_TIMEOUT, CTS_PASS, CTS_ERROR,
                               CTS_PASS, CTS_FAIL, CTS_PASS, CTS_PASS};
    static record r;
    run(ids, 10, 1, &r);
    for (size_t i = 0; i < 10; i++) {
        assert_int_equal(r.calls[i], 1);
        assert_int_equal(r.v[i].status, want[i]);
        assert_string_equal(r.v[i].case_id, ids[i]);
        if (want[i] != CTS_TIMEOUT && want[i] != CTS_ERROR)
            assert_own_output(&r, ids, 10, i);
    }
    assert_non_null(strstr(r.v[1].message, "SIGSEGV"));
    assert_non_null(strstr(r.v[3].message, "timeout"));
    assert_non_null(strstr(r.v[5].message, "status 3 without a verdict"));
    /* the case after a crash, and after a FAIL, runs on a new worker; passes share one */
    assert_int_not_equal(atoi(r.v[0].message), atoi(r.v[2].message));
    assert_int_not_equal(atoi(r.v[6].message), atoi(r.v[8].message));
    assert_int_equal(atoi(r.v[8].message), atoi(r.v[9].message));
}

static void test_faults_with_parallel_workers(void **state)
{
    (void)state;
    const char *ids[] = {"crash.0", "pass.1", "fail.2", "pass.3", "crash.4", "pass.5",
                         "exit.6", "pass.7", "pass.8", "crash.9", "pass.10", "pass.11"};
    static record r;
    run(ids, 12, 3, &r);
    for (size_t i = 0; i < 12; i++) {
        assert_int_equal(r.calls[i], 1);
        cts_status want = ids[i][0] == 'c' ? CTS_CRASH : ids[i][0] == 'f' ? CTS_FAIL
                        : ids[i][0] == 'e' ? CTS_ERROR : CTS_PASS;
        assert_int_equal(r.v[i].status, want);
        if (want != CTS_ERROR)
            assert_own_output(&r, ids, 12, i);
    }
}

/* A worker retires after CTS_WORKER_MAX_CASES without starting a case it would then lose: each
 * of 300 cases starts exactly once, the first CTS_WORKER_MAX_CASES on one worker, the rest on
 * a second. */
static void test_worker_share_loses_no_case(void **state)
{
    (void)state;
    static char names[MAXN][16];
    const char *ids[MAXN];
    for (int i = 0; i < MAXN; i++) {
        snprintf(names[i], sizeof names[i], "pass.%d", i);
        ids[i] = names[i];
    }
    char starts[] = "/tmp/aclcts-test-worker.XXXXXX";
    int fd = mkstemp(starts);
    assert_true(fd >= 0);
    close(fd);
    setenv("WORKER_STARTS", starts, 1);
    static record r;
    run(ids, MAXN, 1, &r);
    unsetenv("WORKER_STARTS");
    FILE *f = fopen(starts, "r");
    assert_non_null(f);
    char line[32];
    int started = 0;
    while (fgets(line, sizeof line, f)) started++;
    fclose(f);
    unlink(starts);
    assert_int_equal(started, MAXN);
    for (int i = 0; i < MAXN; i++) {
        assert_int_equal(r.calls[i], 1);
        assert_int_equal(r.v[i].status, CTS_PASS);
        if (i > 0 && i != CTS_WORKER_MAX_CASES) /* same worker as the case before */
            assert_int_equal(atoi(r.v[i].message), atoi(r.v[i - 1].message));
        if (i == CTS_WORKER_MAX_CASES) /* a new one */
            assert_int_not_equal(atoi(r.v[i].message), atoi(r.v[i - 1].message));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_cases_few_workers),
        cmocka_unit_test(test_faults_cost_one_case),
        cmocka_unit_test(test_faults_with_parallel_workers),
        cmocka_unit_test(test_worker_share_loses_no_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* ref_team_run (reference/common/team.c; declared here: the library exports reference.h
 * alone): the calling thread runs fn(ctx, 0) itself, a helper thread joins the same call, the
 * call returns only after a helper inside fn has left it, concurrent callers each finish, a
 * forked child gets helpers of its own (the parent's are not in it), and a new helper starts on
 * a CPU other than its caller's, then may run on all the caller's CPUs. */
#define _DEFAULT_SOURCE /* usleep */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

void ref_team_run(int nth, void (*fn)(void *ctx, int t), void *ctx);

typedef struct {
    pthread_t caller, ran_as_0;
    int helper_in;   /* atomic: a helper entered fn */
    int helper_done; /* atomic: that helper is about to leave fn */
    int saw_helper;  /* fn(ctx, 0) saw a helper inside before returning */
    bool alone;      /* fn(ctx, 0) does not wait for a helper */
} record;

/* Until *flag is set or 5 s pass: whether it was set. */
static bool await(const int *flag)
{
    for (int i = 0; i < 5000; i++) {
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
            return true;
        usleep(1000);
    }
    return false;
}

/* Thread 0 waits for a helper to come in; the helper stays 20 ms, then marks itself done. */
static void meet(void *ctx, int t)
{
    record *r = ctx;
    if (t == 0) {
        r->ran_as_0 = pthread_self();
        r->saw_helper = !r->alone && await(&r->helper_in);
        return;
    }
    __atomic_store_n(&r->helper_in, 1, __ATOMIC_RELEASE);
    usleep(20000);
    __atomic_store_n(&r->helper_done, 1, __ATOMIC_RELEASE);
}

static void run_meet(record *r)
{
    *r = (record){.caller = pthread_self()};
    ref_team_run(2, meet, r);
}

static void check_meet(const record *r)
{
    assert_true(pthread_equal(r->caller, r->ran_as_0));
    assert_true(r->saw_helper);
    assert_int_equal(__atomic_load_n(&r->helper_done, __ATOMIC_ACQUIRE), 1);
}

/* Twice: the first call starts the helper, the second finds it parked. */
static void test_caller_runs_share_0_and_waits_for_a_helper_inside(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        record r;
        run_meet(&r);
        check_meet(&r);
    }
}

/* One thread alone: fn(ctx, 0) on the caller, and no helper comes in later either. */
static void test_one_thread_runs_alone(void **state)
{
    (void)state;
    record r = {.caller = pthread_self(), .alone = true};
    ref_team_run(1, meet, &r);
    assert_true(pthread_equal(r.caller, r.ran_as_0));
    usleep(30000);
    assert_int_equal(__atomic_load_n(&r.helper_in, __ATOMIC_ACQUIRE), 0);
}

static void count(void *ctx, int t)
{
    (void)t;
    __atomic_add_fetch((int *)ctx, 1, __ATOMIC_RELAXED);
    usleep(2000);
}

static void *count_caller(void *arg)
{
    for (int k = 0; k < 20; k++)
        ref_team_run(2, count, arg);
    return NULL;
}

/* Two callers at once, 20 calls each: every call runs its caller's share (a caller that finds
 * the helpers taken computes alone) and returns. */
static void test_concurrent_callers_finish(void **state)
{
    (void)state;
    int n[2] = {0, 0};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, count_caller, &n[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < 2; i++)
        assert_true(n[i] >= 20 && n[i] <= 40);
}

/* After the parent's helper exists: the child's call still meets a helper (exit 0), which it
 * must start itself. */
static void test_forked_child_gets_its_own_helper(void **state)
{
    (void)state;
    record r;
    run_meet(&r);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        run_meet(&r);
        _exit(r.saw_helper && r.helper_done ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

typedef struct {
    int helper_in;       /* atomic */
    int caller_cpu;      /* the caller's CPU inside fn(ctx, 0) */
    int helper_cpu;      /* the helper's CPU as it entered fn */
    cpu_set_t helper_may; /* the CPUs the helper may run on, there */
} placement;

static void place(void *ctx, int t)
{
    placement *p = ctx;
    if (t == 0) {
        p->caller_cpu = sched_getcpu();
        (void)await(&p->helper_in);
        return;
    }
    p->helper_cpu = sched_getcpu();
    (void)pthread_getaffinity_np(pthread_self(), sizeof p->helper_may, &p->helper_may);
    __atomic_store_n(&p->helper_in, 1, __ATOMIC_RELEASE);
}

/* Tasks runnable on the machine now, this one included (/proc/stat's procs_running); 0 when
 * that cannot be read. */
static int runnable_now(void)
{
    FILE *f = fopen("/proc/stat", "r");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f) && sscanf(line, "procs_running %d", &n) != 1) {
    }
    if (f) fclose(f);
    return n;
}

/* A fresh process's first call (its helper new): 0 placed apart and free again, 1 the helper
 * confined to fewer CPUs than the caller's, 2 on the caller's CPU, 3 not judged (the caller
 * moved, the helper never came, or other tasks were runnable around the call: then the
 * scheduler may move a helper onto its caller's CPU before it looks), 77 fewer than two CPUs
 * to run on. */
static int first_call_placement(void)
{
    cpu_set_t mine;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) < 2)
        return 77;
    placement p = {.helper_cpu = -1};
    usleep(2000); /* the parent into waitpid: not runnable */
    bool busy = runnable_now() > 1;
    int before = sched_getcpu();
    ref_team_run(2, place, &p);
    busy = busy || runnable_now() > 2; /* the helper may not be asleep yet */
    if (!__atomic_load_n(&p.helper_in, __ATOMIC_ACQUIRE) || busy)
        return 3;
    if (!CPU_EQUAL(&p.helper_may, &mine))
        return 1;
    if (before != p.caller_cpu)
        return 3;
    return p.helper_cpu == p.caller_cpu ? 2 : 0;
}

/* 40 fresh processes: helpers start apart from their callers (without start_away, 40 of 40
 * started on the caller's CPU here, and in avg-pool's bench 8 of 60 shared it for
 * milliseconds), and each may then run anywhere its caller may. At most 2 of the judged ones
 * seen on the caller's CPU: a helper preempted between being placed and looking may have been
 * moved. Calls made while other tasks were runnable are not judged (with a parallel test run
 * on a 2-CPU VM, 10 of 40 were seen on the caller's CPU); fewer than 10 judged: skipped. */
static void test_new_helper_starts_apart_then_runs_anywhere(void **state)
{
    (void)state;
    int seen[4] = {0}, skipped = 0;
    for (int k = 0; k < 40; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
            _exit(first_call_placement());
        int st;
        assert_int_equal(waitpid(pid, &st, 0), pid);
        assert_true(WIFEXITED(st));
        int rc = WEXITSTATUS(st);
        if (rc == 77) {
            skipped++;
            continue;
        }
        assert_in_range(rc, 0, 3);
        seen[rc]++;
    }
    if (skipped == 40)
        skip();
    print_message("placement: %d apart, %d on the caller's CPU, %d judged out (caller moved "
                  "or machine busy)\n", seen[0], seen[2], seen[3]);
    assert_int_equal(seen[1], 0);
    if (seen[0] + seen[2] < 10)
        skip();
    assert_true(seen[2] <= 2);
    assert_true(seen[0] >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_caller_runs_share_0_and_waits_for_a_helper_inside),
        cmocka_unit_test(test_one_thread_runs_alone),
        cmocka_unit_test(test_concurrent_callers_finish),
        cmocka_unit_test(test_forked_child_gets_its_own_helper),
        cmocka_unit_test(test_new_helper_starts_apart_then_runs_anywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* ref_team_run (ref_internal.h): a reference team whose calling thread starts at once. An
 * OpenMP region's first team makes its caller wait until every new thread has run (libgomp's
 * dock), and on a loaded machine a new thread waits for a core: 4.4 ms at p90 of avg-pool's
 * cold call (docs/performance.md). Here the helpers are threads of a pool of the library's own,
 * started once and parked on a condition variable between calls (as OpenMP's passive policy
 * parks its own); a call posts its work and starts computing, and the helpers join it when
 * they arrive. One that arrives after the caller's share ended runs nothing. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>

#include "ref_internal.h"

typedef struct {
    void (*fn)(void *ctx, int t);
    void *ctx;
    int nth;
} team_job;

/* The pool; every field under mu but busy. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;   /* a job posted */
static pthread_cond_t left = PTHREAD_COND_INITIALIZER; /* the last helper left the job */
static int helpers;          /* helper threads started, numbered 1 .. helpers */
static uint64_t gen;         /* jobs posted */
static const team_job *job;  /* the job helpers may join (NULL: none) */
static int inside;           /* helpers inside the job's fn */
static int busy;             /* atomic: a caller holds the pool */
static bool atfork_set;

/* The CPUs the process may run on, when a helper was started away from its creator's CPU. */
static cpu_set_t allowed;
static bool started_away;

static void *helper(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_mutex_lock(&mu);
    if (started_away) /* placed: from here on the scheduler's to move */
        (void)pthread_setaffinity_np(pthread_self(), sizeof allowed, &allowed);
    for (uint64_t seen = gen - 1;;) { /* started by a post: its job first */
        while (gen == seen)
            pthread_cond_wait(&cv, &mu);
        seen = gen;
        const team_job *j = job;
        if (!j || t >= j->nth)
            continue;
        inside++;
        pthread_mutex_unlock(&mu);
        j->fn(j->ctx, t);
        pthread_mutex_lock(&mu);
        if (--inside == 0)
            pthread_cond_signal(&left);
    }
    return NULL;
}

/* A forked child has none of the parent's helpers (nor a caller in the pool). */
static void after_fork_child(void)
{
    pthread_mutex_init(&mu, NULL);
    pthread_cond_init(&cv, NULL);
    pthread_cond_init(&left, NULL);
    helpers = 0;
    job = NULL;
    inside = 0;
    busy = 0;
}

/* New helpers start on a CPU other than the caller's, where there is one. A new thread is
 * placed on its creator's CPU, and the caller computes at once: the two shared that CPU until
 * the scheduler's balancing moved one, for milliseconds (avg-pool's first call: 7 of 8 such
 * calls over 12.5 ms against 1 of 52 otherwise, warm 10.3 ms). The helper widens its CPUs back
 * once it runs (helper). */
static void start_away(pthread_attr_t *at)
{
    int self = sched_getcpu();
    cpu_set_t away;
    started_away = false;
    if (self < 0 || self >= CPU_SETSIZE || sched_getaffinity(0, sizeof allowed, &allowed) != 0 ||
        CPU_COUNT(&allowed) < 2 || !CPU_ISSET(self, &allowed))
        return;
    away = allowed;
    CPU_CLR(self, &away);
    started_away = pthread_attr_setaffinity_np(at, sizeof away, &away) == 0;
}

/* Helpers up to nth − 1 (under mu): as many as could be started. */
static void pool_grow(int nth)
{
    if (!atfork_set)
        atfork_set = pthread_atfork(NULL, NULL, after_fork_child) == 0;
    pthread_attr_t at;
    if (!atfork_set || pthread_attr_init(&at) != 0)
        return;
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    start_away(&at);
    pthread_t id;
    while (helpers < nth - 1 &&
           pthread_create(&id, &at, helper, (void *)(intptr_t)(helpers + 1)) == 0)
        helpers++;
    pthread_attr_destroy(&at);
}

void ref_team_run(int nth, void (*fn)(void *ctx, int t), void *ctx)
{
    /* one caller at a time (another, concurrent, computes alone) */
    if (nth <= 1 || __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE)) {
        fn(ctx, 0);
        return;
    }
    team_job j = {fn, ctx, nth};
    pthread_mutex_lock(&mu);
    job = &j;
    gen++;
    pool_grow(nth);
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    fn(ctx, 0);
    pthread_mutex_lock(&mu);
    job = NULL; /* helpers not yet inside stay out; those inside are leaving (asleep meanwhile:
                   a yielding loop here cost CPU while a preempted helper waited for a core) */
    while (inside > 0)
        pthread_cond_wait(&left, &mu);
    pthread_mutex_unlock(&mu);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

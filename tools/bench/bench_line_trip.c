/* Driver of tools/bench-reference's first and last lines: how long two CPUs take to hand one
 * cache line back and forth (a round trip: each side waits for the other's write, then writes),
 * the first two CPUs the process may run on, one thread pinned to each. A team's threads pay
 * this for every line one writes and the other then reads or writes; on the VM of
 * docs/performance.md it is 100 ns in some periods and 450-900 ns in others, and the reference's
 * and the emulated kernel's times move with it. Prints "line round trip N ns (CPUs a and b)",
 * N the median of 5 runs of 20000 trips, or why not; a run that passes a second (the partner's
 * CPU busy with another process: each trip then waits for a time slice) ends them all. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TRIPS = 20000, RUNS = 5 };

static _Alignas(64) volatile int64_t line; /* odd: the partner's turn; even: ours; -1: done */
static int cpu_of[2];

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    (void)pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *partner(void *arg)
{
    (void)arg;
    pin(cpu_of[1]);
    for (int64_t v; (v = line) >= 0;)
        if (v & 1)
            line = v + 1;
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    cpu_set_t may;
    int found = 0;
    if (sched_getaffinity(0, sizeof may, &may) != 0)
        return perror("sched_getaffinity"), 1;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &may))
            cpu_of[found++] = c;
    if (found < 2) {
        printf("line round trip: one CPU, nothing to hand over\n");
        return 0;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, partner, NULL) != 0)
        return perror("pthread_create"), 1;
    pin(cpu_of[0]);
    double ns[RUNS];
    int64_t v = 0;
    int r = 0, i = 0;
    for (; r < RUNS; r++) {
        double t0 = now();
        for (i = 0; i < TRIPS && (i % 1024 || now() - t0 < 1); i++, v += 2) {
            line = v + 1;
            while (line != v + 2)
                continue;
        }
        ns[r] = (now() - t0) * 1e9 / i;
        if (i < TRIPS)
            break;
    }
    line = -1;
    pthread_join(t, NULL);
    if (r < RUNS) {
        printf("line round trip: over %.0f ns on average (CPUs %d and %d busy with others?)\n",
               ns[r], cpu_of[0], cpu_of[1]);
        return 0;
    }
    qsort(ns, RUNS, sizeof *ns, by_value);
    printf("line round trip %.0f ns (CPUs %d and %d)\n", ns[RUNS / 2], cpu_of[0], cpu_of[1]);
    return 0;
}

/* ref_wait_until, ref_share_next and ref_team_slots (ref_internal.h): how the threads of a
 * reference team share a chunk pipeline's items, wait for each other's progress (avg-pool's
 * pipe, the grid sampler's input_grad stream) and lay out what they sort together. */
#define _DEFAULT_SOURCE /* sched_yield, nanosleep */
#include <limits.h>
#include <sched.h>
#include <time.h>

#include "ref_internal.h"

bool ref_wait_until(const int64_t *at, int64_t least, const int *stop)
{
    for (int spin = 0; !__atomic_load_n(stop, __ATOMIC_RELAXED); spin += spin < INT_MAX) {
        if (__atomic_load_n(at, __ATOMIC_ACQUIRE) >= least)
            return true;
        if (spin > 256)
            nanosleep(&(struct timespec){0, 50000}, NULL);
        else if (spin > 64)
            sched_yield();
    }
    return false;
}

/* The j-th item thread t of nth tries in a round of n. */
static int64_t share_order(int64_t j, int t, int nth, int64_t n)
{
    int64_t s = n * t / nth, e = n * (t + 1) / nth;
    if (j < e - s)
        return s + j;
    j -= e - s;
    return j < s ? s - 1 - j : n - 1 - (j - s);
}

/* Whether the calling thread claimed the item of *at for the round `key`. */
static bool claim_for(int64_t *at, int64_t key)
{
    for (int64_t v = __atomic_load_n(at, __ATOMIC_RELAXED); v < key;)
        if (__atomic_compare_exchange_n(at, &v, key, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return true; /* else v is the claim made meanwhile */
    return false;
}

int64_t ref_share_next(int64_t *claim, int64_t n, int64_t *j, int t, int nth, int64_t key)
{
    while (*j < n) {
        int64_t k = share_order((*j)++, t, nth, n);
        if (claim_for(&claim[k], key))
            return k;
    }
    return -1;
}

int64_t ref_team_slots(const int64_t *cnt, int64_t n, int t, int nth, int64_t *slot,
                       int64_t *start, int64_t *most)
{
    int64_t at = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t a0 = at;
        if (start)
            start[i] = at;
        for (int k = 0; k < nth; k++) {
            slot[i] = k == t ? at : slot[i];
            at += cnt[k * n + i];
        }
        m = at - a0 > m ? at - a0 : m;
    }
    if (most)
        *most = m;
    return at;
}

/* ref_wait_until (ref_internal.h): how a thread of a reference team waits for another's
 * progress through a chunk pipeline (avg-pool's pipe, the grid sampler's input_grad stream). */
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

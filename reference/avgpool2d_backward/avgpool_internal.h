/* Private to reference/avgpool2d_backward/: the window geometry the exact values, the documented
 * path and the status model share, and the one global-pooling predicate. */
#ifndef ACLCTS_REFERENCE_AVGPOOL_INTERNAL_H_
#define ACLCTS_REFERENCE_AVGPOOL_INTERNAL_H_

#include "ref_internal.h"

/* Avg-pool window o of one axis (s stride, pad padding, k kernel, in input length): the clipped
 * range [*a, *b) and *full, its length counting padding (facts §4). */
void ref_avgpool_window(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t in, int64_t *a,
                        int64_t *b, int64_t *full);

/* Global pooling as the documents name it: the kernel covers self's H×W, no padding, no
 * divisorOverride. It selects the 950's cube lowering (ref_avgpool_path) and limits the
 * cubeMathType rules on the 950 (the doc status model). */
static inline bool ref_avgpool_global_pooling(int64_t kh, int64_t kw, int64_t h, int64_t w,
                                              int64_t ph, int64_t pw, int64_t divisor_override)
{
    return kh == h && kw == w && ph == 0 && pw == 0 && divisor_override == 0;
}

#endif

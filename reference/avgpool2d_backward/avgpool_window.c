/* ref_avgpool_window: the clipped extent of one pooling window on one axis (facts §4). */
#include "avgpool_internal.h"

/* One axis of window o: [*a, *b) clipped, *full its length counting padding (facts §4). h0 + k
 * saturates at the padded end: the kernel may be near INT64_MAX. */
void ref_avgpool_window(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t in, int64_t *a,
                        int64_t *b, int64_t *full)
{
    int64_t h0 = o * s - pad, h1 = in + pad, end;
    if (!__builtin_add_overflow(h0, k, &end))
        h1 = end < h1 ? end : h1;
    *full = h1 - h0;
    *a = h0 > 0 ? h0 : 0;
    *b = h1 < in ? h1 : in;
}

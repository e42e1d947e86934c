/* Private to reference/avgpool2d_backward/: the window geometry the exact values and the
 * documented path share, the one global-pooling predicate, and the status rules the doc and
 * vendor readings share (status_avgpool_rules.c). */
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

/* Global pooling as the vendor's lowering tests it (docs/contract.md A10, L1): divisorOverride
 * 0, the kernel covers self's H×W with both >= 10, gradOutput 1×1; padding is not looked at. It
 * skips the vendor's later checks (status_vendor_avgpool2d_backward.c) and divides
 * (ref_avgpool_vendor_path). */
static inline bool ref_avgpool_vendor_global(int64_t kh, int64_t kw, int64_t h, int64_t w,
                                             int64_t oh, int64_t ow, int64_t divisor_override)
{
    return divisor_override == 0 && kh == h && kw == w && h >= 10 && w >= 10 && oh == 1 && ow == 1;
}

/* The status models' names of t[0..2]: gradOutput, self, gradInput. */
extern const char *const ref_avgpool_tensor_names[3];
/* gradOutput, self, kernelSize, padding, gradInput present (stride may be NULL): else 161001. */
bool ref_status_avgpool_pointers_ok(const ref_status_query *q, ref_status *fail);
/* A known product the op ships on (all but the Atlas 200I/500 A2): else 161002. */
bool ref_status_avgpool_product_ok(const ref_status_query *q, ref_status *fail);
/* The int8_t the device receives for the widened cubeMathType (reference.h). */
int64_t ref_status_avgpool_cube_math_type(const ref_status_query *q);
/* That value in 0..3: else 161002 (161001 under vendor-old). */
bool ref_status_avgpool_cube_range_ok(const ref_status_query *q, ref_status *fail);

#endif

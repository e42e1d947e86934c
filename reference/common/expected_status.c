/* The expected-status model: which code the first phase of each operator must return for a
 * parameter set, and why. Written from the operator documents' error tables (spec/000_*,
 * spec/003_*), their per-product and cubeMathType rules, facts.md §3 (what the vendor code
 * checks) and docs/contract.md (the order of the checks and the choices the documents leave
 * open); never from kernels/. Three contracts: `doc` (the documents, status_avgpool2d_backward.c
 * and status_grid_sampler2d_backward.c) and the vendor releases read from the vendor's code,
 * `vendor` (release 9.0) and `vendor-old` (release 8.5), in status_vendor_*.c. The first failing check decides
 * the code; `runs` says whether a successful call has anything for the second phase to compute.
 * This file holds the dispatch and the helpers both per-op models share. */
#include <stdarg.h>
#include <stdio.h>

#include "status_internal.h"

ref_status ref_status_make(int32_t status, bool runs, const char *fmt, ...)
{
    ref_status r = {.status = status, .runs = runs};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r.reason, sizeof r.reason, fmt, ap);
    va_end(ap);
    return r;
}

int ref_status_negative_axis(const ref_tensor_desc *t)
{
    for (int i = 0; i < t->rank && i < REF_MAX_DIMS; i++)
        if (t->dims[i] < 0)
            return i;
    return -1;
}

int ref_status_zero_axis(const ref_tensor_desc *t)
{
    for (int i = 0; i < t->rank && i < REF_MAX_DIMS; i++)
        if (t->dims[i] == 0)
            return i;
    return -1;
}

bool ref_status_same_shape(const ref_tensor_desc *a, const ref_tensor_desc *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank && i < REF_MAX_DIMS; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    return true;
}

const char *ref_status_shape_str(const ref_tensor_desc *t, char *buf, size_t size)
{
    size_t used = 0;
    int n = snprintf(buf, size, "[");
    used = n > 0 ? (size_t)n : 0;
    for (int i = 0; i < t->rank && i < REF_MAX_DIMS && used < size; i++) {
        n = snprintf(buf + used, size - used, "%s%lld", i ? "," : "", (long long)t->dims[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
    return buf;
}

ref_spec ref_status_spec(const ref_status_query *q)
{
    return q->spec == REF_SPEC_VENDOR || q->spec == REF_SPEC_VENDOR_OLD ? q->spec : REF_SPEC_DOC;
}

ref_status ref_expected_status(const ref_status_query *q)
{
    if (q == NULL)
        return ref_status_make(REF_STATUS_NULLPTR, false, "the query is NULL");
    /* contract "Both operators" (derived): a success must write both out-pointers, so their
     * NULL is refused before anything else, even before the vendor's outputMask shortcut. */
    if (q->workspace_size_null)
        return ref_status_make(REF_STATUS_NULLPTR, false, "workspaceSize is a null pointer");
    if (q->executor_null)
        return ref_status_make(REF_STATUS_NULLPTR, false, "executor is a null pointer");
    const bool vendor = ref_status_spec(q) != REF_SPEC_DOC;
    switch (q->op) {
    case REF_OP_AVGPOOL2D_BACKWARD:
        return vendor ? ref_status_vendor_avgpool2d_backward(q) : ref_status_avgpool2d_backward(q);
    case REF_OP_GRID_SAMPLER2D_BACKWARD:
        return vendor ? ref_status_vendor_grid_sampler2d_backward(q)
                      : ref_status_grid_sampler2d_backward(q);
    }
    return ref_status_make(REF_STATUS_INVALID, false, "op %d is not one of the two operators",
                           (int)q->op);
}

bool ref_status_grid_modes_ok(const ref_status_query *q, ref_status *fail)
{
    if (q->interpolation_mode < 0 || q->interpolation_mode > 1)
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "interpolationMode %lld is not 0 (bilinear) or 1 (nearest)",
                                (long long)q->interpolation_mode);
    else if (q->padding_mode < 0 || q->padding_mode > 2)
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "paddingMode %lld is not 0 (zeros), 1 (border) or 2 (reflection)",
                                (long long)q->padding_mode);
    else
        return true;
    return false;
}

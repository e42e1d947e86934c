/* The checks every status model words the same way (status_internal.h). */
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

bool ref_status_first_null(const ref_tensor_desc *t, const char *const *names, int n,
                           ref_status *fail)
{
    for (int i = 0; i < n; i++)
        if (!t[i].present) {
            *fail = ref_status_make(REF_STATUS_NULLPTR, false, "%s is a null pointer", names[i]);
            return true;
        }
    return false;
}

bool ref_status_product_ok(const ref_status_query *q, const char *op_name, bool shipped,
                           ref_status *fail)
{
    if (ref_product_family(q->product) == REF_FAMILY_UNKNOWN)
        *fail = ref_status_make(REF_STATUS_INVALID, false, "product %d is unknown",
                                (int)q->product);
    else if (!shipped)
        *fail = ref_status_make(REF_STATUS_INVALID, false, "%s is not supported on %s", op_name,
                                ref_product_id(q->product));
    else
        return true;
    return false;
}

bool ref_status_first_negative(const ref_tensor_desc *t, const char *const *names, int n,
                               ref_status *fail)
{
    for (int i = 0; i < n; i++) {
        int ax = ref_status_negative_axis(&t[i]);
        if (ax >= 0) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s dim %d is negative (%lld)",
                                    names[i], ax, (long long)t[i].dims[ax]);
            return true;
        }
    }
    return false;
}

bool ref_status_first_empty(const ref_tensor_desc *t, const char *const *names, int n,
                            ref_status *done)
{
    for (int i = 0; i < n; i++) {
        int ax = ref_status_zero_axis(&t[i]);
        if (ax >= 0) {
            *done = ref_status_make(REF_STATUS_SUCCESS, false,
                                    "%s is empty (dim %d is 0): success with nothing to compute",
                                    names[i], ax);
            return true;
        }
    }
    return false;
}

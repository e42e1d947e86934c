/* The checks of a tensor's image read back from the device against what was sent (check.h):
 * the poison of an output left unwritten, an input left unchanged, the guard zones and the
 * storage outside a strided view. */
#include "check.h"

#include <stdio.h>
#include <stdlib.h>

/* Where byte i of a buffer lies: "guard before", "guard after" or the element holding it. */
static const char *where(const cts_dev_tensor *d, size_t i, char *buf, size_t size)
{
    size_t data_end = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    if (i < CTS_GUARD_BYTES)
        snprintf(buf, size, "guard zone before the data, %zu bytes before it", CTS_GUARD_BYTES - i);
    else if (i >= data_end)
        snprintf(buf, size, "guard zone after the data, %zu bytes after it", i - data_end);
    else {
        int64_t pos = (int64_t)((i - CTS_GUARD_BYTES) / d->esize);
        for (int64_t k = 0; k < d->numel; k++)
            if (cts_dev_tensor_pos(d, k) == pos) {
                char idx[96];
                snprintf(buf, size, "element %s (storage element %lld)",
                         cts_multi_index(d->t->rank, d->t->dims, k, idx, sizeof idx),
                         (long long)pos);
                return buf;
            }
        snprintf(buf, size, "storage element %lld, outside the view", (long long)pos);
    }
    return buf;
}

/* First byte in [from, to) where what came back differs from what was sent (the poison where no
 * image of it is kept), or -1; counts the differing bytes. */
static long long first_diff(const cts_dev_tensor *d, size_t from, size_t to, size_t *count)
{
    long long first = -1;
    *count = 0;
    if (!d->back) return -1; /* read back and found identical (back_same) */
    for (size_t i = from; i < to; i++)
        if (d->back[i] != (d->sent ? d->sent[i] : cts_poison_byte(i))) {
            if (first < 0) first = (long long)i;
            (*count)++;
        }
    return first;
}

bool cts_check_poison(const cts_dev_tensor *d, const char *why, cts_verdict *v)
{
    size_t n;
    long long i = first_diff(d, 0, d->bytes, &n);
    if (i < 0) return true;
    char at[160];
    cts_verdict_fail(v, CTS_FAIL, "poison",
                     "%s was written although %s: %zu bytes differ from the pre-call poison, "
                     "first at %s (byte 0x%02x, poison 0x%02x)",
                     d->t->name, why, n, where(d, (size_t)i, at, sizeof at), d->back[i],
                     cts_dev_tensor_sent_byte(d, (size_t)i));
    return false;
}

bool cts_check_input_unchanged(const cts_dev_tensor *d, cts_verdict *v)
{
    size_t n;
    size_t from = CTS_GUARD_BYTES, to = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    long long i = first_diff(d, from, to, &n);
    if (i < 0) return true;
    char at[160];
    size_t e = ((size_t)i - from) / d->esize * d->esize + from;
    cts_verdict_fail(v, CTS_FAIL, "inputs",
                     "input %s was modified by the call: %zu bytes changed, first at %s "
                     "(sent %.9g, now %.9g)",
                     d->t->name, n, where(d, (size_t)i, at, sizeof at),
                     cts_decode(d->t->dtype, d->sent + e), cts_decode(d->t->dtype, d->back + e));
    return false;
}

bool cts_check_guards(const cts_dev_tensor *d, cts_verdict *v)
{
    size_t n1, n2, data_end = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    long long i = first_diff(d, 0, CTS_GUARD_BYTES, &n1);
    long long j = first_diff(d, data_end, d->bytes, &n2);
    char at[160];
    if (i >= 0 || j >= 0) {
        long long k = i >= 0 ? i : j;
        cts_verdict_fail(v, CTS_FAIL, "guards",
                         "write outside %s: %zu guard bytes damaged, first in the %s",
                         d->t->name, n1 + n2, where(d, (size_t)k, at, sizeof at));
        return false;
    }
    if (!d->t->is_output || d->storage == 0 || cts_dev_tensor_plain(d)) return true; /* no gaps */
    /* Storage elements the view does not cover (strided outputs) must keep their poison. */
    unsigned char *in_view = calloc((size_t)d->storage, 1);
    if (!in_view) return true;
    for (int64_t k = 0; k < d->numel; k++) in_view[cts_dev_tensor_pos(d, k)] = 1;
    bool ok = true;
    for (int64_t p = 0; p < d->storage && ok; p++) {
        size_t b = CTS_GUARD_BYTES + (size_t)p * d->esize;
        size_t diff;
        if (!in_view[p] && first_diff(d, b, b + d->esize, &diff) >= 0) {
            cts_verdict_fail(v, CTS_FAIL, "guards",
                             "write outside the view of %s: %s no longer holds its poison",
                             d->t->name, where(d, b, at, sizeof at));
            ok = false;
        }
    }
    free(in_view);
    return ok;
}

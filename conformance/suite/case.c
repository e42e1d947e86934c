/* Ownership of an expanded case: its strings and value lists are its own heap copies, so a
 * case list outlives the suite files and the YAML trees it came from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_driver.h"
#include "suite_case.h"

static const char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static double *dup_doubles(const double *v, size_t n)
{
    if (!v || !n)
        return NULL;
    double *d = malloc(n * sizeof *d);
    if (!d)
        abort();
    memcpy(d, v, n * sizeof *d);
    return d;
}

void cts_case_clear(cts_case *c)
{
    free((void *)c->suite);
    free((void *)c->name);
    free((void *)c->mark.file);
    free((void *)c->waiver);
    free((void *)c->waiver_tracking);
    free((void *)c->waiver_owner);
    free((void *)c->waiver_expires);
    free((void *)c->tolerance.name);
    for (int s = 0; s < CTS_MAX_TENSORS; s++) {
        free(c->t[s].gen.values);
        free(c->expect_values[s].values);
    }
    memset(c, 0, sizeof *c);
}

void cts_case_copy(cts_case *dst, const cts_case *src)
{
    *dst = *src;
    dst->suite = dup_str(src->suite);
    dst->name = dup_str(src->name);
    dst->mark.file = dup_str(src->mark.file);
    dst->waiver = dup_str(src->waiver);
    dst->waiver_tracking = dup_str(src->waiver_tracking);
    dst->waiver_owner = dup_str(src->waiver_owner);
    dst->waiver_expires = dup_str(src->waiver_expires);
    dst->tolerance.name = dup_str(src->tolerance.name);
    for (int s = 0; s < CTS_MAX_TENSORS; s++) {
        dst->t[s].gen.values = dup_doubles(src->t[s].gen.values, src->t[s].gen.nvalues);
        dst->expect_values[s].values =
            dup_doubles(src->expect_values[s].values, src->expect_values[s].nvalues);
    }
}

void cts_waiver_describe_fields(const char *reason, const char *tracking, const char *owner,
                                const char *expires, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%s", reason ? reason : "");
    const char *name[3] = {"tracking", "owner", "expires"};
    const char *val[3] = {tracking, owner, expires};
    for (int i = 0; i < 3; i++)
        if (val[i] && *val[i] && k >= 0 && (size_t)k < n)
            k += snprintf(buf + k, n - (size_t)k, "; %s %s", name[i], val[i]);
}

void cts_waiver_describe(const cts_case *c, char *buf, size_t n)
{
    cts_waiver_describe_fields(c->waiver, c->waiver_tracking, c->waiver_owner, c->waiver_expires,
                               buf, n);
}

void cts_case_list_free(cts_case_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->ncases; i++)
        cts_case_clear(&l->cases[i]);
    free(l->cases);
    l->cases = NULL;
    l->ncases = 0;
}

/* ---- the parameters of a case, as one hash ---- */

typedef struct {
    uint64_t h;
} hasher;

static void hbytes(hasher *x, const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x->h = (x->h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
}

#define H(x, v) do { __typeof__(v) h_v_ = (v); hbytes((x), &h_v_, sizeof h_v_); } while (0)

static void hstr(hasher *x, const char *s)
{
    H(x, s != NULL);
    if (s)
        hbytes(x, s, strlen(s) + 1);
}

static void hdoubles(hasher *x, const double *v, size_t n)
{
    H(x, n);
    for (size_t i = 0; i < n; i++)
        H(x, v[i]);
}

static void hparam(hasher *x, const cts_param *a)
{
    H(x, a->null);
    H(x, a->len);
    for (int i = 0; i < a->len && i < CTS_MAX_DIMS; i++)
        H(x, a->v[i]);
    H(x, a->real);
}

static void htensor(hasher *x, const cts_tensor *t)
{
    H(x, t->null);
    H(x, t->rank);
    for (int d = 0; d < t->rank && d < CTS_MAX_DIMS; d++) {
        H(x, t->dims[d]);
        H(x, t->has_strides ? t->strides[d] : -1);
    }
    H(x, t->offset);
    H(x, (int)t->dtype);
    H(x, (int)t->format);
    H(x, (int)t->gen.kind);
    H(x, t->gen.a);
    H(x, t->gen.b);
    hdoubles(x, t->gen.values, t->gen.nvalues);
}

uint64_t cts_case_param_hash(const cts_case *c)
{
    hasher x = {0xcbf29ce484222325ull};
    hstr(&x, c->op ? c->op->name : NULL);
    H(&x, (int)c->dtype);
    H(&x, (int)c->spec);
    H(&x, c->seed);
    H(&x, c->ntensors);
    for (int s = 0; s < c->ntensors && s < CTS_MAX_TENSORS; s++) {
        htensor(&x, &c->t[s]);
        H(&x, c->expect_values[s].any);
        hdoubles(&x, c->expect_values[s].values, c->expect_values[s].nvalues);
    }
    for (int i = 0; i < CTS_MAX_PARAMS; i++)
        hparam(&x, &c->param[i]);
    H(&x, c->expect_status_model);
    H(&x, c->expect_status);
    H(&x, (int)c->tolerance.kind);
    hstr(&x, c->tolerance.name);
    H(&x, c->tolerance.ulps);
    H(&x, c->tolerance.rtol);
    H(&x, c->tolerance.atol);
    H(&x, c->tolerance.rel);
    H(&x, c->tolerance.min_share);
    H(&x, c->tolerance.small_threshold);
    H(&x, c->deterministic);
    H(&x, c->repeat);
    hstr(&x, c->waiver);
    H(&x, c->nwaiver_status);
    for (int i = 0; i < c->nwaiver_status && i < 4; i++)
        H(&x, c->waiver_status[i]);
    if (c->waiver_tracking || c->waiver_owner || c->waiver_expires) { /* older ids' hashes kept */
        hstr(&x, c->waiver_tracking);
        hstr(&x, c->waiver_owner);
        hstr(&x, c->waiver_expires);
    }
    x.h ^= x.h >> 31; /* splitmix64 finalizer: FNV's low bits are weak */
    x.h *= 0x94d049bb133111ebull;
    x.h ^= x.h >> 29;
    return x.h;
}

size_t cts_dtype_size(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_INT8: case REF_DT_UINT8: case REF_DT_BOOL: case REF_DT_STRING: return 1;
    case REF_DT_FLOAT16: case REF_DT_BF16: case REF_DT_INT16: case REF_DT_UINT16: return 2;
    case REF_DT_INT64: case REF_DT_UINT64: case REF_DT_DOUBLE: case REF_DT_COMPLEX64: return 8;
    case REF_DT_COMPLEX128: return 16;
    default: return 4;
    }
}

bool cts_tensor_layout(const cts_tensor *t, int64_t strides[CTS_MAX_DIMS], cts_tensor_extent *e)
{
    bool ok = true;
    int64_t s = 1, numel = 1;
    for (int i = 0; i < t->rank; i++)
        if (t->dims[i] <= 0) numel = 0;
        else if (numel) ok &= !__builtin_mul_overflow(numel, t->dims[i], &numel);
    for (int i = t->rank - 1; i >= 0; i--) {
        strides[i] = t->has_strides ? t->strides[i] : s;
        if (t->dims[i] > 0 && ok) ok &= !__builtin_mul_overflow(s, t->dims[i], &s);
    }
    int64_t storage = t->offset > 0 ? t->offset : 0;
    if (numel > 0 && ok) {
        int64_t last = t->offset, span;
        for (int i = 0; i < t->rank && ok; i++)
            if (strides[i] > 0)
                ok = !__builtin_mul_overflow(t->dims[i] - 1, strides[i], &span) &&
                     !__builtin_add_overflow(last, span, &last);
        ok = ok && !__builtin_add_overflow(last, 1, &storage);
    }
    int64_t bytes = 0;
    ok = ok && !__builtin_mul_overflow(storage, (int64_t)cts_dtype_size(t->dtype), &bytes) &&
         !__builtin_add_overflow(bytes, 2 * (int64_t)CTS_GUARD_BYTES, &bytes);
    e->numel = ok ? numel : 0;
    e->storage = ok ? storage : 0;
    e->bytes = ok ? bytes : 0;
    return ok;
}

bool cts_tensor_extent_of(const cts_tensor *t, cts_tensor_extent *e)
{
    int64_t strides[CTS_MAX_DIMS];
    return cts_tensor_layout(t, strides, e);
}

/* Counter-based data generation (benchdnn style: the value of element i is a pure function of
 * its key and i, so any chunking or thread count produces the same tensor). */
#include "data.h"

#include <float.h>
#include <math.h>
#include <string.h>

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hash_str(uint64_t h, const char *s, size_t n)
{
    /* FNV-1a over the bytes, then mixed: the key of a tensor */
    uint64_t f = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        f = (f ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return splitmix64(h ^ f);
}

/* Random 64 bits for (key, counter). */
static uint64_t bits(uint64_t key, uint64_t i)
{
    return splitmix64(key ^ splitmix64(i));
}

/* Uniform in [0, 1) with 53 random bits. */
static double unit(uint64_t key, uint64_t i)
{
    return (double)(bits(key, i) >> 11) * 0x1p-53;
}

double cts_draw_unit(uint64_t seed, const char *key)
{
    return unit(hash_str(splitmix64(seed), key, strlen(key)), 0);
}

static bool is_float(ref_dtype dt)
{
    return dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 || dt == REF_DT_DOUBLE;
}

static void int_range(ref_dtype dt, double *lo, double *hi)
{
    switch (dt) {
    case REF_DT_INT8: *lo = -128, *hi = 127; break;
    case REF_DT_UINT8: *lo = 0, *hi = 255; break;
    case REF_DT_INT16: *lo = -32768, *hi = 32767; break;
    case REF_DT_UINT16: *lo = 0, *hi = 65535; break;
    case REF_DT_INT32: *lo = -2147483648.0, *hi = 2147483647.0; break;
    case REF_DT_UINT32: *lo = 0, *hi = 4294967295.0; break;
    case REF_DT_INT64: *lo = -0x1p63, *hi = 0x1p63 - 1024; break;
    case REF_DT_UINT64: *lo = 0, *hi = 0x1p64 - 2048; break;
    case REF_DT_BOOL: *lo = 0, *hi = 1; break;
    default: *lo = -INFINITY, *hi = INFINITY; break;
    }
}

/* x as a tensor of dtype dt holds it. */
static double to_dtype(double x, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT) /* the conversion rounds to nearest even, subnormals and overflow
                               included, as ref_round_to does (test_datagen checks it) */
        return (float)x;
    if (is_float(dt))
        return ref_round_to(x, dt);
    if (dt == REF_DT_BOOL)
        return x != 0 && !isnan(x);
    double lo, hi;
    int_range(dt, &lo, &hi);
    if (isnan(x))
        return 0;
    x = nearbyint(x);
    return x < lo ? lo : x > hi ? hi : x;
}

/* NaN, +Inf, -Inf, +0, -0, ±smallest subnormal, largest subnormal, smallest normal, ±max
 * finite, ±1: each exact in its dtype. */
#define SPECIALS(tsub, maxsub, minnorm, maxf) \
    {NAN, INFINITY, -INFINITY, 0.0, -0.0, tsub, -(tsub), maxsub, minnorm, maxf, -(maxf), 1, -1}
static const double special_fp16[] = SPECIALS(0x1p-24, 0x1.ff8p-15, 0x1p-14, 65504.0);
static const double special_bf16[] = SPECIALS(0x1p-133, 0x1.fcp-127, 0x1p-126, 0x1.fep127);
static const double special_fp32[] = SPECIALS(0x1p-149, 0x1.fffffcp-127, 0x1p-126, FLT_MAX);
static const double special_fp64[] = SPECIALS(0x1p-1074, 0x0.fffffffffffffp-1022, DBL_MIN,
                                              DBL_MAX);
/* integer dtypes: saturated to the dtype's range when filled */
static const double special_int[] = {0, 1, -1, 2, -0x1p70, 0x1p70};

int cts_special_values(ref_dtype dt, const double **out)
{
    switch (dt) {
    case REF_DT_FLOAT16: *out = special_fp16; return 13;
    case REF_DT_BF16: *out = special_bf16; return 13;
    case REF_DT_FLOAT: *out = special_fp32; return 13;
    case REF_DT_DOUBLE: *out = special_fp64; return 13;
    default: *out = special_int; return 6;
    }
}

/* Key of a tensor's data: seed, the case id without its last (product) component, the name. */
static uint64_t tensor_key(const cts_case *c, const char *name)
{
    const char *dot = strrchr(c->id, '.');
    size_t n = dot ? (size_t)(dot - c->id) : strlen(c->id);
    uint64_t k = hash_str(splitmix64(c->seed), c->id, n);
    return hash_str(k, name, strlen(name));
}

void cts_fill(const cts_case *c, int slot, double *out, int64_t n)
{
    cts_fill_range(c, slot, 0, out, n);
}

void cts_fill_range(const cts_case *c, int slot, int64_t first, double *out, int64_t n)
{
    const cts_tensor *t = &c->t[slot];
    const cts_datagen *g = &t->gen;
    ref_dtype dt = t->dtype;
    uint64_t key = tensor_key(c, t->name ? t->name : "");
    const double *special = NULL;
    int nspecial = g->kind == CTS_GEN_SPECIAL ? cts_special_values(dt, &special) : 0;
    bool narrow = dt == REF_DT_FLOAT16 || dt == REF_DT_BF16; /* to_dtype: ref_round_to */
    for (int64_t i = first; i < first + n; i++) {
        double x;
        switch (g->kind) {
        case CTS_GEN_ONES: x = 1; break;
        case CTS_GEN_ZEROS: x = 0; break;
        case CTS_GEN_ARANGE: x = g->a + g->b * (double)i; break;
        case CTS_GEN_UNIFORM: x = g->a + (g->b - g->a) * unit(key, (uint64_t)i); break;
        case CTS_GEN_NORMAL: {
            /* Box-Muller from two independent counters of this element */
            double u1 = 1.0 - unit(key, 2 * (uint64_t)i), u2 = unit(key, 2 * (uint64_t)i + 1);
            x = g->a + g->b * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
            break;
        }
        case CTS_GEN_INT: {
            uint64_t span = (uint64_t)(g->b - g->a) + 1;
            x = g->a + (double)(bits(key, (uint64_t)i) % span);
            break;
        }
        case CTS_GEN_SPECIAL:
            /* every third element special, cycling through the whole table so that even a
             * small tensor holds each value; the rest uniform in [-2, 2] */
            if (i % 3 == 1)
                x = special[(i / 3) % nspecial];
            else
                x = -2 + 4 * unit(key, (uint64_t)i);
            break;
        case CTS_GEN_VALUES: x = g->nvalues ? g->values[i % (int64_t)g->nvalues] : 0; break;
        default: x = 0; break;
        }
        out[i - first] = narrow ? x : to_dtype(x, dt);
    }
    if (narrow) /* rounded all at once: a call per element was a fifth of a FLOAT16 fill */
        ref_round_to_array(out, n, dt);
}

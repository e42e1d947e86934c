/* Counter-based data generation (benchdnn style: the value of element i is a pure function of
 * its key and i, so any chunking or thread count produces the same tensor). */
#include "data.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The generators' loops compiled for x86-64-v4 (AVX-512: 64-bit multiplies and conversions
 * of whole vectors), AVX2 and the baseline, the one the CPU runs chosen when the program loads.
 * Integer hashing and IEEE +, -, *, conversions give the same bits in any lane, and ISO C mode
 * contracts nothing into an FMA, so every clone fills what the scalar code does.
 * -DCTS_DATAGEN_NO_CLONES keeps the baseline alone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(CTS_DATAGEN_NO_CLONES)
#define GEN_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GEN_CLONES
#endif

/* Elements a block at a time: the normal generator's second uniforms wait on the stack, and
 * rounding finds the few values its vector code leaves. */
#define GEN_BLOCK 256

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

/* x[0..n-1] as FLOAT holds them: the conversion rounds as to_dtype's (a vector conversion
 * rounds each lane alike). */
GEN_CLONES static void to_float(double *x, int64_t n)
{
#pragma omp simd
    for (int64_t j = 0; j < n; j++) x[j] = (float)x[j];
}

/* x[0..n-1] rounded to nearest, ties to even, at p significant bits where |x| is a normal
 * number of the format whose exponents run from emin to emax, as ref_round_to's integer
 * shortcut does it: half an ulp (less one, plus the kept last bit) added to the magnitude's
 * bits and the dropped bits cleared, a carry landing in the exponent, past emax infinity. Free
 * of branches, so it runs over whole vectors; any other x (below the format's normal range,
 * zero, inf, NaN) is left as it is. Returns how many were left. */
GEN_CLONES static int64_t round_normal(double *x, int64_t n, int p, int emin, int emax)
{
    const uint64_t sign = 1ull << 63, low = (1ull << (53 - p)) - 1, inf = 0x7ffull << 52;
    const uint64_t lo = (uint64_t)(1023 + emin) << 52, top = (uint64_t)(1023 + emax + 1) << 52;
    int64_t left = 0;
#pragma omp simd reduction(+ : left)
    for (int64_t j = 0; j < n; j++) {
        uint64_t u;
        memcpy(&u, &x[j], sizeof u);
        uint64_t mag = u & ~sign, r = (mag + (low >> 1) + (mag >> (53 - p) & 1)) & ~low;
        bool normal = mag >= lo && mag < inf;
        r = (r >= top ? inf : r) | (u & sign);
        left += !normal;
        u = normal ? r : u;
        memcpy(&x[j], &u, sizeof u);
    }
    return left;
}

/* FP16 (11 bits, exponents -14 to 15) or BF16 (8, -126 to 127) values of x[0..n-1]:
 * ref_round_to's, a block at a time, the few values round_normal leaves given to it. */
static void round_narrow(double *x, int64_t n, ref_dtype dt)
{
    bool fp16 = dt == REF_DT_FLOAT16;
    double least = fp16 ? 0x1p-14 : 0x1p-126; /* the smallest normal */
    for (int64_t j0 = 0; j0 < n; j0 += GEN_BLOCK) {
        int64_t m = n - j0 < GEN_BLOCK ? n - j0 : GEN_BLOCK;
        double *b = x + j0;
        if (!(fp16 ? round_normal(b, m, 11, -14, 15) : round_normal(b, m, 8, -126, 127)))
            continue;
        for (int64_t j = 0; j < m; j++)
            if (!(fabs(b[j]) >= least && fabs(b[j]) < INFINITY)) b[j] = ref_round_to(b[j], dt);
    }
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

/* unit(key, stride * (first + j) + offset) for j < n: the element's counters of a generator
 * drawing `stride` uniforms per element. */
GEN_CLONES static void units(uint64_t key, int64_t first, uint64_t stride, uint64_t offset,
                             double *out, int64_t n)
{
#pragma omp simd
    for (int64_t j = 0; j < n; j++)
        out[j] = unit(key, stride * (uint64_t)(first + j) + offset);
}

GEN_CLONES static void uniform(uint64_t key, double a, double b, int64_t first, double *out,
                               int64_t n)
{
    double w = b - a;
#pragma omp simd
    for (int64_t j = 0; j < n; j++)
        out[j] = a + w * unit(key, (uint64_t)(first + j));
}

/* Box-Muller from two independent counters of each element (2i and 2i + 1); libm's log and
 * cos, one call each per element. */
static void normal(uint64_t key, double a, double b, int64_t first, double *out, int64_t n)
{
    double u2[GEN_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += GEN_BLOCK) {
        int64_t m = n - j0 < GEN_BLOCK ? n - j0 : GEN_BLOCK;
        double *x = out + j0;
        units(key, first + j0, 2, 0, x, m);
        units(key, first + j0, 2, 1, u2, m);
        for (int64_t j = 0; j < m; j++)
            x[j] = a + b * sqrt(-2 * log(1.0 - x[j])) * cos(2 * M_PI * u2[j]);
    }
}

/* Every third element special, cycling through the whole table so that even a small tensor
 * holds each value; the rest uniform in [-2, 2]. */
static void special(uint64_t key, ref_dtype dt, int64_t first, double *out, int64_t n)
{
    const double *table;
    int ntable = cts_special_values(dt, &table);
    uniform(key, -2, 2, first, out, n);
    int64_t i = first + ((1 - first % 3) + 3) % 3; /* the first i >= first with i % 3 == 1 */
    for (; i < first + n; i += 3)
        out[i - first] = table[(i / 3) % ntable];
}

/* The fill's values before rounding to the dtype. */
static void generate(const cts_datagen *g, ref_dtype dt, uint64_t key, int64_t first,
                     double *out, int64_t n)
{
    switch (g->kind) {
    case CTS_GEN_ONES:
        for (int64_t j = 0; j < n; j++) out[j] = 1;
        return;
    case CTS_GEN_ARANGE:
        for (int64_t j = 0; j < n; j++) out[j] = g->a + g->b * (double)(first + j);
        return;
    case CTS_GEN_UNIFORM: uniform(key, g->a, g->b, first, out, n); return;
    case CTS_GEN_NORMAL: normal(key, g->a, g->b, first, out, n); return;
    case CTS_GEN_INT: {
        uint64_t span = (uint64_t)(g->b - g->a) + 1;
        for (int64_t j = 0; j < n; j++)
            out[j] = g->a + (double)(bits(key, (uint64_t)(first + j)) % span);
        return;
    }
    case CTS_GEN_SPECIAL: special(key, dt, first, out, n); return;
    case CTS_GEN_VALUES:
        for (int64_t j = 0; j < n; j++)
            out[j] = g->nvalues ? g->values[(first + j) % (int64_t)g->nvalues] : 0;
        return;
    default: /* CTS_GEN_ZEROS */
        memset(out, 0, (size_t)n * sizeof *out);
        return;
    }
}

void cts_fill_range(const cts_case *c, int slot, int64_t first, double *out, int64_t n)
{
    const cts_tensor *t = &c->t[slot];
    ref_dtype dt = t->dtype;
    uint64_t key = tensor_key(c, t->name ? t->name : "");
    /* a block generated and rounded while it is in the first-level cache */
    for (int64_t j0 = 0; j0 < n; j0 += 4 * GEN_BLOCK) {
        int64_t m = n - j0 < 4 * GEN_BLOCK ? n - j0 : 4 * GEN_BLOCK;
        double *x = out + j0;
        generate(&t->gen, dt, key, first + j0, x, m);
        if (dt == REF_DT_FLOAT16 || dt == REF_DT_BF16)
            round_narrow(x, m, dt);
        else if (dt == REF_DT_FLOAT)
            to_float(x, m);
        else if (dt != REF_DT_DOUBLE)
            for (int64_t j = 0; j < m; j++) x[j] = to_dtype(x[j], dt);
    }
}

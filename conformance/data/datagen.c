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

static inline __attribute__((always_inline)) uint64_t splitmix64(uint64_t x)
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
static inline __attribute__((always_inline)) uint64_t bits(uint64_t key, uint64_t i)
{
    return splitmix64(key ^ splitmix64(i));
}

/* m < 2^53 as a double, exactly as (double)m: its top 21 and low 32 bits placed in the
 * significands of 2^84 and 2^52 (both sums exact), the difference and the sum of exact values
 * again exact. AVX2 has no vector conversion from 64-bit integers, so GCC kept the clone's
 * loops scalar for the cast; these are integer and double operations it has. */
static inline __attribute__((always_inline)) double u53_to_double(uint64_t m)
{
    uint64_t hb = 0x4530000000000000ull | m >> 32, lb = 0x4330000000000000ull | (m & 0xffffffffull);
    double h, l;
    memcpy(&h, &hb, sizeof h);
    memcpy(&l, &lb, sizeof l);
    return (h - (0x1p84 + 0x1p52)) + l;
}

/* Uniform in [0, 1) with 53 random bits. */
static inline __attribute__((always_inline)) double unit(uint64_t key, uint64_t i)
{
    return u53_to_double(bits(key, i) >> 11) * 0x1p-53;
}

double cts_u53_to_double(uint64_t m) { return u53_to_double(m); }

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

/* unit(key, 2 · (first + j) + offset) for j < n: the element's counters of a generator
 * drawing two uniforms per element (the stride a constant: no 64-bit multiply for it). */
GEN_CLONES static void units(uint64_t key, int64_t first, uint64_t offset, double *out,
                             int64_t n)
{
#pragma omp simd
    for (int64_t j = 0; j < n; j++)
        out[j] = unit(key, 2 * (uint64_t)(first + j) + offset);
}

GEN_CLONES static void uniform(uint64_t key, double a, double b, int64_t first, double *out,
                               int64_t n)
{
    double w = b - a;
#pragma omp simd
    for (int64_t j = 0; j < n; j++)
        out[j] = a + w * unit(key, (uint64_t)(first + j));
}

/* Box-Muller of one element with libm's log and cos: the values the fill is defined by. */
static double box_muller(double a, double b, double u1, double u2)
{
    return a + b * sqrt(-2 * log(1.0 - u1)) * cos(2 * M_PI * u2);
}

bool cts_datagen_libm_only;

/* log(x), x a positive normal double: x = 2^k·m, m in [√½, √2), log m = 2·atanh(f) with
 * f = (m - 1)/(m + 1) (m - 1 exact, f within 2 ulps), |f| <= 0.1716, by its Taylor series to
 * f^25 (the rest < 2^-70 of the sum), or `narrow` to f^11 (the rest z^6/13 < 2^-34, z = f²).
 * k·ln2_hi is exact; k comes from the exponent bits. Each result is within 2^-49 of log x
 * relative to it, narrow within 2^-33 (k = -1 and log m > 0 cannot cancel: the sum is at
 * least half of |k·ln2|). */
static inline __attribute__((always_inline)) double log_one(double x, bool narrow)
{
    const double ln2_hi = 0x1.62e42fefa3800p-1, ln2_lo = 0x1.ef35793c76730p-45;
    const uint64_t frac = 0xfffffffffffffull;
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    /* 1 where m would be >= √2 (then halved), by a carry: integer ops SSE2 has */
    uint64_t big = ((u & frac) + (0x10000000000000ull - 0x6a09e667f3bcdull)) >> 52;
    uint64_t mb = (u & frac) | (1023 - big) << 52, kb = 0x4330000000000000ull | ((u >> 52) + big);
    double m, kd;
    memcpy(&m, &mb, sizeof m);
    memcpy(&kd, &kb, sizeof kd);
    kd = kd - 0x1p52 - 1023; /* k, exact */
    double f = (m - 1) / (m + 1), z = f * f, s;
    if (narrow) {
        s = 1.0 / 7 + z * (1.0 / 9 + z * (1.0 / 11));
    } else {
        s = 1.0 / 21 + z * (1.0 / 23 + z * (1.0 / 25));
        s = 1.0 / 15 + z * (1.0 / 17 + z * (1.0 / 19 + z * s));
        s = 1.0 / 9 + z * (1.0 / 11 + z * (1.0 / 13 + z * s));
        s = 1.0 / 7 + z * s;
    }
    s = 1 + z * (1.0 / 3 + z * (1.0 / 5 + z * s));
    return kd * ln2_hi + (kd * ln2_lo + 2 * f * s);
}

/* cos(t), 0 <= t < 2π + 1: r = t - q·π/2, |r| <= π/4 + 2^-50, with π/2 in parts of 33, 33 and
 * 53 bits (q·P1, q·P2 exact for q <= 4, t - q·P1 exact by Sterbenz): r within 2 ulps plus
 * 2^-118. Then ±cos r or ±r·(sin r / r) by Taylor series (the rest < 2^-57; `narrow` to z^5
 * of each, z = r², the rest < z^6/12! < 2^-32 of cos r >= 0.707 and z^6/13! < 2^-36 of
 * sin r / r >= 0.9). Within 2^-49 of cos t relative to it, narrow 2^-32, while |r| > 2^-60;
 * the doubles t = 2π·u2 come no nearer than 2^-54 to π/2 and 3π/2 (test_datagen_normal checks
 * both). */
static inline __attribute__((always_inline)) double cos_one(double t, bool narrow)
{
    const double P1 = 0x1.921fb544p+0, P2 = 0x1.0b4611a6p-34, P3 = 0x1.3198a2e037073p-69;
    double y = t * 0x1.45f306dc9c883p-1 + 0x1.8p52; /* q = t·2/π to an integer */
    uint64_t yb, cb, sb;
    memcpy(&yb, &y, sizeof yb);
    double q = y - 0x1.8p52, r = ((t - q * P1) - q * P2) - q * P3, z = r * r, c, s;
    if (narrow) {
        c = 1.0 / 40320 + z * (-1.0 / 3628800);
        s = 1.0 / 362880 + z * (-1.0 / 39916800);
    } else {
        c = 1.0 / 40320 + z * (-1.0 / 3628800 + z * (1.0 / 479001600 +
            z * (-1.0 / 87178291200.0 + z * (1.0 / 20922789888000.0))));
        s = 1.0 / 362880 + z * (-1.0 / 39916800 + z * (1.0 / 6227020800.0 +
            z * (-1.0 / 1307674368000.0 + z * (1.0 / 355687428096000.0))));
    }
    c = 1 + z * (-1.0 / 2 + z * (1.0 / 24 + z * (-1.0 / 720 + z * c)));
    s = r + r * (z * (-1.0 / 6 + z * (1.0 / 120 + z * (-1.0 / 5040 + z * s))));
    memcpy(&cb, &c, sizeof cb);
    memcpy(&sb, &s, sizeof sb);
    uint64_t odd = 0 - (yb & 1); /* quadrants 1 and 3 take sin, 1 and 2 are negative */
    uint64_t vb = ((sb & odd) | (cb & ~odd)) ^ ((yb + 1) & 2) << 62;
    double v;
    memcpy(&v, &vb, sizeof v);
    return v;
}

/* L[j] = log x[j] and C[j] = cos t[j], the series of `narrow` or the full ones (a constant in
 * each loop: no test an element) */
GEN_CLONES static void vec_log_cos(const double *x, const double *t, double *L, double *C,
                                   int64_t n, bool narrow)
{
    if (narrow) {
#pragma omp simd
        for (int64_t j = 0; j < n; j++) L[j] = log_one(x[j], true);
#pragma omp simd
        for (int64_t j = 0; j < n; j++) C[j] = cos_one(t[j], true);
    } else {
#pragma omp simd
        for (int64_t j = 0; j < n; j++) L[j] = log_one(x[j], false);
#pragma omp simd
        for (int64_t j = 0; j < n; j++) C[j] = cos_one(t[j], false);
    }
}

/* [lo, hi] holding every a + b·sqrt(-2·L')·C' (the libm path's IEEE operations, in its order)
 * over |L' - L| <= eps·|L|, |C' - C| <= eps·|C|: each operation rounds monotonically, so the
 * ends come from the ends (a product's from its four corners). The square root's ends are
 * s·(1 ∓ eps) rounded, s = sqrt(-2·L): one root, not two. sqrt(-2·L') is within
 * (eps/2 + 2^-52)·s of s (a root halves a relative error; s is within 2^-53 of the exact
 * root), and eps/2 leaves room for that 2^-52 and the products' own 2^-53. -2·L is exact and
 * ±0 or at least 2^-52: nothing here is subnormal. */
/* Vector code only without errno (-fno-math-errno, conformance/CMakeLists.txt): sqrt's
 * operand is never negative here, but errno's branch would stop the vectorizer. */
GEN_CLONES static void enclose(double a, double b, const double *L, const double *C,
                               double *lo, double *hi, int64_t n, double eps)
{
#pragma omp simd
    for (int64_t j = 0; j < n; j++) {
        double dc = fabs(C[j]) * eps + 0x1p-1022, s = sqrt(-2 * L[j]);
        double q1 = b * (s * (1 - eps)), q2 = b * (s * (1 + eps));
        double c1 = C[j] - dc, c2 = C[j] + dc;
        double p1 = q1 * c1, p2 = q1 * c2, p3 = q2 * c1, p4 = q2 * c2;
        double mn = p1 < p2 ? p1 : p2, mx = p1 < p2 ? p2 : p1;
        mn = p3 < mn ? p3 : mn, mx = p3 > mx ? p3 : mx;
        mn = p4 < mn ? p4 : mn, mx = p4 > mx ? p4 : mx;
        lo[j] = a + mn, hi[j] = a + mx;
    }
}

/* The relative error the enclosure allows L and C for dtype dt: FLOAT's 24 bits need the full
 * series (within 2^-49, eps 2^-40), FLOAT16's 11 and BF16's 8 bits the narrow ones (log within
 * 2^-33, cos 2^-32; eps 2^-30: an enclosure then 2^-19 of a FLOAT16 ulp wide, which rounds to
 * one value for all but a few elements in 10^6, test_fallback_rate) */
static bool narrow_dtype(ref_dtype dt) { return dt == REF_DT_FLOAT16 || dt == REF_DT_BF16; }

double cts_normal_eps(ref_dtype dt) { return narrow_dtype(dt) ? 0x1p-30 : 0x1p-40; }

void cts_normal_enclose(double a, double b, const double *L, const double *C, double *lo,
                        double *hi, int64_t n, double eps)
{
    enclose(a, b, L, C, lo, hi, n, eps);
}

void cts_normal_log_cos(ref_dtype dt, const double *x, const double *t, double *L, double *C,
                        int64_t n)
{
    vec_log_cos(x, t, L, C, n, narrow_dtype(dt));
}

GEN_CLONES static void log_cos_args(const double *u1, const double *u2, double *w, double *t,
                                    int64_t n)
{
#pragma omp simd
    for (int64_t j = 0; j < n; j++) w[j] = 1.0 - u1[j], t[j] = 2 * M_PI * u2[j];
}

/* Both ends of the enclosure are the same dtype value, a signed zero's sign included: the same
 * bits and not NaN (so lo == hi with the same sign), in operations that run as vector code. */
static inline bool decided(double lo, double hi)
{
    uint64_t x, y;
    memcpy(&x, &lo, sizeof x);
    memcpy(&y, &hi, sizeof y);
    return (x == y) & (lo == lo);
}

/* out[j] = lo[j] where decided, out[j] kept elsewhere (it may be the element's u1, which the
 * fallback still reads); returns how many are undecided. */
GEN_CLONES static int64_t take_decided(const double *lo, const double *hi, double *out,
                                       int64_t n)
{
    int64_t undecided = 0;
#pragma omp simd reduction(+ : undecided)
    for (int64_t j = 0; j < n; j++) {
        bool d = decided(lo[j], hi[j]);
        out[j] = d ? lo[j] : out[j];
        undecided += !d;
    }
    return undecided;
}

int64_t cts_normal_rounded(double a, double b, ref_dtype dt, const double *u1, const double *u2,
                           double *out, int64_t n)
{
    double L[GEN_BLOCK], C[GEN_BLOCK], lo[GEN_BLOCK], hi[GEN_BLOCK];
    int64_t slow = 0;
    for (int64_t j0 = 0; j0 < n; j0 += GEN_BLOCK) {
        int64_t m = n - j0 < GEN_BLOCK ? n - j0 : GEN_BLOCK;
        log_cos_args(u1 + j0, u2 + j0, L, C, m);
        cts_normal_log_cos(dt, L, C, L, C, m);
        enclose(a, b, L, C, lo, hi, m, cts_normal_eps(dt));
        if (dt == REF_DT_FLOAT) {
            to_float(lo, m);
            to_float(hi, m);
        } else {
            round_narrow(lo, m, dt);
            round_narrow(hi, m, dt);
        }
        if (!take_decided(lo, hi, out + j0, m)) continue;
        for (int64_t j = 0; j < m; j++)
            if (!decided(lo[j], hi[j])) {
                out[j0 + j] = to_dtype(box_muller(a, b, u1[j0 + j], u2[j0 + j]), dt);
                slow++;
            }
    }
    return slow;
}

/* Box-Muller from two independent counters of each element (2i and 2i + 1). For FP16, BF16
 * and FLOAT (and vector code in reach) the value is taken from log_one and cos_one whenever
 * both ends of its enclosure round to the same dtype value, which is then the rounded libm
 * value too (glibc's log and cos err < 1 ulp, far inside eps); else box_muller. */
static void normal(uint64_t key, double a, double b, ref_dtype dt, int64_t first, double *out,
                   int64_t n)
{
    double u2[GEN_BLOCK];
    bool fast = !cts_datagen_libm_only &&
                (dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 || dt == REF_DT_FLOAT);
    for (int64_t j0 = 0; j0 < n; j0 += GEN_BLOCK) {
        int64_t m = n - j0 < GEN_BLOCK ? n - j0 : GEN_BLOCK;
        double *x = out + j0;
        units(key, first + j0, 0, x, m);
        units(key, first + j0, 1, u2, m);
        if (!fast) {
            for (int64_t j = 0; j < m; j++) x[j] = box_muller(a, b, x[j], u2[j]);
            continue;
        }
        cts_normal_rounded(a, b, dt, x, u2, x, m);
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
    case CTS_GEN_NORMAL: normal(key, g->a, g->b, dt, first, out, n); return;
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

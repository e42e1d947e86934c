/* cts_fill: determinism (same case → same data; product, order and n do not matter; tensor names
 * and seeds do), generator ranges and rounding. Expected properties come from the definitions
 * in suites/README.md and the formats' definitions (FP16: 11-bit significand, emin -14,
 * subnormals down to 2^-24, max 65504; BF16: 8 bits, FP32 range), checked here without the
 * rounding function the fill uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avgpool2d_backward/avgpool2d_backward.h"
#include "data/data.h"

static cts_case make(const char *id, ref_dtype dt, cts_gen_kind kind, double a, double b)
{
    cts_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "%s", id);
    c.seed = 7;
    c.op = &cts_op_avgpool2d_backward;
    c.ntensors = 3;
    const char *names[] = {"grad_output", "self", "grad_input"};
    for (int s = 0; s < 3; s++) {
        c.t[s].name = names[s];
        c.t[s].dtype = dt;
        c.t[s].gen.kind = kind;
        c.t[s].gen.a = a;
        c.t[s].gen.b = b;
    }
    return c;
}

#define N 4096

static bool same_bits(const double *x, const double *y, int64_t n)
{
    return memcmp(x, y, (size_t)n * sizeof *x) == 0;
}

static void test_determinism(void **state)
{
    (void)state;
    static double a[N], b[N], c2[N];
    cts_case c = make("s.case.dtype=float32.ascend910b", REF_DT_FLOAT, CTS_GEN_UNIFORM, -1, 1);
    cts_fill(&c, 0, a, N);
    cts_fill(&c, 0, b, N);
    assert_true(same_bits(a, b, N));
    /* another product: same data */
    cts_case p = c;
    snprintf(p.id, sizeof p.id, "s.case.dtype=float32.ascend950");
    cts_fill(&p, 0, b, N);
    assert_true(same_bits(a, b, N));
    /* a prefix is the shorter fill (no dependence on n or chunking) */
    cts_fill(&c, 0, b, 17);
    assert_true(same_bits(a, b, 17));
    /* another tensor name differs (in almost every element) */
    cts_fill(&c, 1, b, N);
    int equal = 0;
    for (int i = 0; i < N; i++)
        equal += a[i] == b[i];
    assert_true(equal < 8);
    /* another seed differs */
    p = c;
    p.seed = 8;
    cts_fill(&p, 0, c2, N);
    equal = 0;
    for (int i = 0; i < N; i++)
        equal += a[i] == c2[i];
    assert_true(equal < 8);
    /* another case differs */
    p = c;
    snprintf(p.id, sizeof p.id, "s.case.dtype=float16.ascend910b");
    cts_fill(&p, 0, c2, N);
    equal = 0;
    for (int i = 0; i < N; i++)
        equal += a[i] == c2[i];
    assert_true(equal < 8);
}

/* x is a finite FP16 value: |x| <= 65504 and x·2^24 an integer with at most 11 significant
 * bits. */
static bool is_fp16(double x)
{
    if (!isfinite(x))
        return true;
    if (fabs(x) > 65504)
        return false;
    double m = ldexp(fabs(x), 24);
    if (m != floor(m))
        return false;
    while (m >= 2048) { /* strip trailing zero bits: the significand must fit 11 bits */
        if (fmod(m, 2) != 0)
            return false;
        m /= 2;
    }
    return true;
}

static bool is_bf16(double x)
{
    if (!isfinite(x) || x == 0)
        return true;
    int e;
    double m = frexp(fabs(x), &e); /* m in [0.5, 1) */
    if (e - 1 < -126)              /* subnormal: multiple of 2^-133 */
        return ldexp(fabs(x), 133) == floor(ldexp(fabs(x), 133));
    double s = ldexp(m, 8);        /* 8 significant bits */
    return s == floor(s) && fabs(x) <= 0x1.fep127;
}

static void test_uniform_rounded(void **state)
{
    (void)state;
    static double v[N];
    cts_case c = make("s.u.ascend910", REF_DT_FLOAT16, CTS_GEN_UNIFORM, -3, 5);
    cts_fill(&c, 0, v, N);
    double lo = INFINITY, hi = -INFINITY, mean = 0;
    for (int i = 0; i < N; i++) {
        assert_true(is_fp16(v[i]));
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
        mean += v[i] / N;
    }
    assert_true(lo >= -3 && hi <= 5);
    assert_true(lo < -2.9 && hi > 4.9);        /* spread over the whole range */
    assert_true(fabs(mean - 1) < 0.15);         /* mean of U(-3, 5) is 1; sd/sqrt(N) ~ 0.036 */
    /* an FP16 fill is not the FP32 fill: values really are rounded */
    c = make("s.u.ascend910", REF_DT_BF16, CTS_GEN_UNIFORM, -3, 5);
    cts_fill(&c, 0, v, N);
    int not_fp16 = 0;
    for (int i = 0; i < N; i++) {
        assert_true(is_bf16(v[i]));
        not_fp16 += !is_fp16(v[i]);
    }
    assert_int_equal(not_fp16, 0); /* BF16 values in [-3, 5] have 8 bits: all are FP16 too */
    c = make("s.u.ascend910", REF_DT_FLOAT, CTS_GEN_UNIFORM, -3, 5);
    cts_fill(&c, 0, v, N);
    for (int i = 0; i < N; i++)
        assert_true((double)(float)v[i] == v[i]);
}

static void test_int_normal_arange_values(void **state)
{
    (void)state;
    static double v[N];
    cts_case c = make("s.i.ascend910", REF_DT_FLOAT16, CTS_GEN_INT, -4, 4);
    cts_fill(&c, 0, v, N);
    int seen[9] = {0};
    for (int i = 0; i < N; i++) {
        assert_true(v[i] == floor(v[i]) && v[i] >= -4 && v[i] <= 4);
        seen[(int)v[i] + 4]++;
    }
    for (int k = 0; k < 9; k++)
        assert_true(seen[k] > N / 9 / 2); /* every integer of [lo, hi], both ends included */

    c = make("s.n.ascend910", REF_DT_DOUBLE, CTS_GEN_NORMAL, 2, 0.5);
    cts_fill(&c, 0, v, N);
    double m = 0, s2 = 0;
    for (int i = 0; i < N; i++)
        m += v[i] / N;
    for (int i = 0; i < N; i++)
        s2 += (v[i] - m) * (v[i] - m) / (N - 1);
    assert_true(fabs(m - 2) < 0.05);            /* sd of the mean 0.5/64 ~ 0.008 */
    assert_true(fabs(sqrt(s2) - 0.5) < 0.05);

    c = make("s.a.ascend910", REF_DT_FLOAT16, CTS_GEN_ARANGE, 0, 1);
    cts_fill(&c, 0, v, 3000);
    assert_true(v[0] == 0 && v[1] == 1 && v[2047] == 2047 && v[2048] == 2048);
    assert_true(v[2049] == 2048); /* 2049 is a tie between 2048 and 2050 in FP16: even wins */
    c.t[0].gen.a = 1;
    c.t[0].gen.b = 0.5;
    cts_fill(&c, 0, v, 4);
    assert_true(v[0] == 1 && v[1] == 1.5 && v[3] == 2.5);

    double list[] = {1, 2, 40, 0.1};
    c = make("s.v.ascend910", REF_DT_FLOAT16, CTS_GEN_VALUES, 0, 0);
    c.t[0].gen.values = list;
    c.t[0].gen.nvalues = 4;
    cts_fill(&c, 0, v, 9);
    assert_true(v[0] == 1 && v[1] == 2 && v[2] == 40 && v[4] == 1 && v[8] == 1);
    /* 0.1 in FP16 is 1638/16384 = 0.0999755859375 (nearest of 0.1·2^14 = 1638.4) */
    assert_true(v[3] == 0.0999755859375 && v[7] == v[3]);

    c = make("s.o.ascend910", REF_DT_FLOAT, CTS_GEN_ONES, 0, 0);
    cts_fill(&c, 0, v, 5);
    assert_true(v[0] == 1 && v[4] == 1);
    c.t[0].gen.kind = CTS_GEN_ZEROS;
    cts_fill(&c, 0, v, 5);
    assert_true(v[0] == 0 && !signbit(v[0]) && v[4] == 0);
}

/* FLOAT values are rounded to nearest, ties to even, with FP32's subnormals and overflow: the
 * expected values below are derived by hand from the format (24-bit significand, smallest
 * subnormal 2^-149, max finite (2 - 2^-23)·2^127). */
static void test_float_rounding(void **state)
{
    (void)state;
    double list[] = {0.1, FLT_MAX + 0x1p103, FLT_MAX + 0x1p102, 0x1p-150, 3 * 0x1p-150,
                     1 + 0x1p-24, 1 + 3 * 0x1p-24, -0.0, -INFINITY, NAN, -0x1.fffffffffffffp-127};
    enum { NL = sizeof list / sizeof list[0] };
    double v[NL];
    cts_case c = make("s.f.ascend910", REF_DT_FLOAT, CTS_GEN_VALUES, 0, 0);
    c.t[0].gen.values = list;
    c.t[0].gen.nvalues = NL;
    cts_fill(&c, 0, v, NL);
    assert_true(v[0] == 0x1.99999ap-4);       /* 0.1 = 0x1.999999...p-4: the 25th bit 1, rest > 0 */
    assert_true(v[1] == INFINITY);            /* the midpoint to 2^128: FLT_MAX is odd, 2^128 wins */
    assert_true(v[2] == FLT_MAX);             /* below the midpoint */
    assert_true(v[3] == 0 && !signbit(v[3])); /* half the smallest subnormal: tie to 0 (even) */
    assert_true(v[4] == 0x1p-148);            /* 1.5 subnormal steps: tie to 2 (even) */
    assert_true(v[5] == 1);                   /* tie between 1 and 1 + 2^-23: even */
    assert_true(v[6] == 1 + 0x1p-22);         /* tie between 1 + 2^-23 and 1 + 2^-22: even */
    assert_true(v[7] == 0 && signbit(v[7]));
    assert_true(v[8] == -INFINITY && isnan(v[9]));
    assert_true(v[10] == -0x1p-126);          /* just below the smallest normal rounds up to it */
}

/* A piece of a fill is the same elements of the whole fill. */
static void test_fill_range(void **state)
{
    (void)state;
    static double whole[N], piece[N];
    cts_case c = make("s.r.ascend910", REF_DT_FLOAT16, CTS_GEN_NORMAL, 1, 3);
    cts_fill(&c, 1, whole, N);
    cts_fill_range(&c, 1, 1000, piece, 77);
    assert_true(same_bits(whole + 1000, piece, 77));
    c.t[1].gen.kind = CTS_GEN_SPECIAL; /* position-dependent pattern (every third element) */
    cts_fill(&c, 1, whole, N);
    cts_fill_range(&c, 1, 5, piece, 100);
    assert_true(same_bits(whole + 5, piece, 100));
}

static void test_special(void **state)
{
    (void)state;
    static double v[64];
    cts_case c = make("s.sp.ascend910", REF_DT_FLOAT16, CTS_GEN_SPECIAL, 0, 0);
    cts_fill(&c, 0, v, 64); /* 64 elements hold the whole table (every third element) */
    bool nan = false, pinf = false, ninf = false, pz = false, nz = false, sub = false,
         maxsub = false, maxf = false, nmaxf = false, plain = false;
    for (int i = 0; i < 64; i++) {
        double x = v[i];
        assert_true(is_fp16(x));
        nan |= isnan(x);
        pinf |= x == INFINITY;
        ninf |= x == -INFINITY;
        pz |= x == 0 && !signbit(x);
        nz |= x == 0 && signbit(x);
        sub |= fabs(x) == 0x1p-24;               /* smallest FP16 subnormal */
        maxsub |= x == 0x1p-14 - 0x1p-24;        /* largest FP16 subnormal */
        maxf |= x == 65504;
        nmaxf |= x == -65504;
        plain |= isfinite(x) && fabs(x) > 0.01 && fabs(x) < 2 && x != 1 && x != -1;
    }
    assert_true(nan && pinf && ninf && pz && nz && sub && maxsub && maxf && nmaxf && plain);
    /* FP32: its own extremes */
    c = make("s.sp.ascend910", REF_DT_FLOAT, CTS_GEN_SPECIAL, 0, 0);
    cts_fill(&c, 0, v, 64);
    bool fsub = false, fmax = false;
    for (int i = 0; i < 64; i++) {
        fsub |= v[i] == 0x1p-149;
        fmax |= v[i] == FLT_MAX;
    }
    assert_true(fsub && fmax);
    /* BF16 max finite (2 - 2^-7)·2^127 and smallest subnormal 2^-133 */
    c = make("s.sp.ascend910", REF_DT_BF16, CTS_GEN_SPECIAL, 0, 0);
    cts_fill(&c, 0, v, 64);
    bool bmax = false, bsub = false;
    for (int i = 0; i < 64; i++) {
        assert_true(is_bf16(v[i]));
        bmax |= v[i] == 0x1.fep127;
        bsub |= v[i] == 0x1p-133;
    }
    assert_true(bmax && bsub);
}

static void test_integer_dtypes(void **state)
{
    (void)state;
    static double v[64];
    cts_case c = make("s.int.ascend910", REF_DT_INT8, CTS_GEN_VALUES, 0, 0);
    double list[] = {1.4, -2.6, 300, -300, NAN};
    c.t[0].gen.values = list;
    c.t[0].gen.nvalues = 5;
    cts_fill(&c, 0, v, 5);
    assert_true(v[0] == 1 && v[1] == -3 && v[2] == 127 && v[3] == -128 && v[4] == 0);
    c.t[0].dtype = REF_DT_BOOL;
    cts_fill(&c, 0, v, 5);
    assert_true(v[0] == 1 && v[1] == 1 && v[4] == 0);
}

/* Rounding to FP16 and BF16 on hand-picked values, each derived from the format (FP16: 11-bit
 * significand, normal from 2^-14, subnormal step 2^-24, max 65504 = (2 - 2^-10)·2^15; BF16:
 * 8 bits, normal from 2^-126, step 2^-133, max (2 - 2^-7)·2^127): ties to even at 1, in the
 * subnormals, at the top of the subnormals and at the overflow threshold, ±0, inf and NaN.
 * Filled cyclically into 1000 elements, so each lands in every vector lane and in blocks with
 * and without values the vector code leaves to ref_round_to. */
static void check_rounded(ref_dtype dt, const double *in, const double *want, int n)
{
    static double v[1000];
    cts_case c = make("s.nr.ascend910", dt, CTS_GEN_VALUES, 0, 0);
    c.t[0].gen.values = (double *)in;
    c.t[0].gen.nvalues = (size_t)n;
    cts_fill(&c, 0, v, 1000);
    for (int i = 0; i < 1000; i++) {
        double w = want[i % n];
        if (isnan(w) ? !isnan(v[i]) : memcmp(&v[i], &w, sizeof w) != 0)
            fail_msg("%s element %d: %a rounds to %a, not %a", ref_dtype_name(dt), i,
                     in[i % n], v[i], w);
    }
}

static void test_narrow_rounding(void **state)
{
    (void)state;
    const double h16[][2] = {
        {1 + 0x1p-11, 1},                   /* tie: even 1 */
        {1 + 3 * 0x1p-11, 1 + 0x1p-9},      /* tie: even above */
        {1 + 0x1.8p-11, 1 + 0x1p-10},       /* above the tie */
        {65519, 65504},                     /* below the overflow threshold 65520 */
        {65520, INFINITY},                  /* the threshold: a tie, 2^16 is even */
        {-65520, -INFINITY},
        {0x1p-25, 0},                       /* half the smallest subnormal: even 0 */
        {3 * 0x1p-25, 0x1p-23},             /* 1.5 steps: even 2 */
        {0x1p-24, 0x1p-24},
        {1023.5 * 0x1p-24, 0x1p-14},        /* between the largest subnormal and 2^-14 */
        {0x1p-14 * (1 + 0x1p-11), 0x1p-14}, /* tie at the smallest normal */
        {-1e-9, -0.0},                      /* to zero, keeping the sign */
        {-0.0, -0.0},
        {0.1, 0.0999755859375},             /* 1638.4·2^-14 */
        {NAN, NAN},
        {-INFINITY, -INFINITY},
        {-3.0000001, -3},
    };
    const double b16[][2] = {
        {1 + 0x1p-8, 1},
        {1 + 3 * 0x1p-8, 1 + 0x1p-6},
        {0x1.fep127 + 0x1p119, INFINITY},   /* the overflow threshold: a tie, 2^128 even */
        {0x1.fep127 + 0x1.fffp118, 0x1.fep127},
        {0x1p-134, 0},                      /* half the smallest subnormal */
        {3 * 0x1p-134, 0x1p-132},
        {0x1p-126 * (1 + 0x1p-8), 0x1p-126},
        {-0.0, -0.0},
        {NAN, NAN},
        {INFINITY, INFINITY},
        {0.1, 0x1.9ap-4},                   /* 0x1.99999...p-4: 8 bits 1.1001101 */
    };
    enum { N16 = sizeof h16 / sizeof h16[0], NB = sizeof b16 / sizeof b16[0] };
    double in[N16], want[N16];
    for (int i = 0; i < N16; i++) in[i] = h16[i][0], want[i] = h16[i][1];
    check_rounded(REF_DT_FLOAT16, in, want, N16);
    for (int i = 0; i < NB; i++) in[i] = b16[i][0], want[i] = b16[i][1];
    check_rounded(REF_DT_BF16, in, want, NB);
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Every generator under every kind of dtype fills, bit for bit, what the per-element code of
 * ffa7b5b filled (that code's digests, FNV-1a over 5000 doubles per dtype): the fills and
 * their rounding are vectorised and cloned per CPU, the data may not move. A piece at odd
 * offsets (not a multiple of the block or of the special table's period) is the whole fill's. */
static void test_fill_digests(void **state)
{
    (void)state;
    enum { M = 5000 };
    static double v[M], piece[M];
    double list[] = {0.1, -7, 1e6, NAN, -0.0};
    const struct { cts_gen_kind kind; double a, b; uint64_t digest; } gen[] = {
        {CTS_GEN_ONES, 0, 0, 0x414b81fe66a635a5ull},
        {CTS_GEN_ZEROS, 0, 0, 0x219fb3ca72598c25ull},
        {CTS_GEN_ARANGE, -700.5, 0.375, 0x0de01e9cea3b3722ull},
        {CTS_GEN_UNIFORM, -3, 4.1, 0x489a7b0b91579088ull},
        {CTS_GEN_NORMAL, 1, 3, 0x3f02ba085dd92092ull},
        {CTS_GEN_INT, -4, 4, 0x82a510fd9badbc0dull},
        {CTS_GEN_SPECIAL, 0, 0, 0x74e9b4234530dcf4ull},
        {CTS_GEN_VALUES, 0, 0, 0x7f4133c879b70cc5ull},
    };
    const ref_dtype dts[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT, REF_DT_DOUBLE,
                             REF_DT_INT8};
    for (size_t k = 0; k < sizeof gen / sizeof gen[0]; k++) {
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
            cts_case c = make("s.digest.ascend910", dts[d], gen[k].kind, gen[k].a, gen[k].b);
            c.ntensors = 1;
            c.t[0].gen.values = list;
            c.t[0].gen.nvalues = 5;
            cts_fill(&c, 0, v, M);
            h = fnv1a(h, v, sizeof v);
            cts_fill_range(&c, 0, 301, piece, 2999);
            assert_true(same_bits(v + 301, piece, 2999));
        }
        if (h != gen[k].digest) print_error("generator %d: digest %016llx\n", (int)k,
                                             (unsigned long long)h);
        assert_true(h == gen[k].digest);
    }
}

/* The draws' conversion of their 53 random bits against C's cast, exact below 2^53 (C11
 * 6.3.1.4): the ends, either side of the 32-bit split, single bits, and a walk through the
 * range. */
static void test_u53_to_double(void **state)
{
    (void)state;
    const uint64_t top = (1ull << 53) - 1;
    const uint64_t edge[] = {0, 1, 2, 0xfffffffeull, 0xffffffffull, 0x100000000ull,
                             0x100000001ull, 0x1fffffffffull, top - 1, top, 1ull << 52};
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
        assert_true(cts_u53_to_double(edge[i]) == (double)edge[i]);
    for (int b = 0; b < 53; b++) {
        assert_true(cts_u53_to_double(1ull << b) == ldexp(1, b));
        assert_true(cts_u53_to_double((1ull << b) - 1) == ldexp(1, b) - 1);
    }
    for (uint64_t m = 12345, k = 0; k < 100000; k++, m = (m * 6364136223846793005ull + 1) >> 11)
        assert_true(cts_u53_to_double(m) == (double)m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_uniform_rounded),
        cmocka_unit_test(test_int_normal_arange_values),
        cmocka_unit_test(test_float_rounding),
        cmocka_unit_test(test_fill_range),
        cmocka_unit_test(test_special),
        cmocka_unit_test(test_integer_dtypes),
        cmocka_unit_test(test_fill_digests),
        cmocka_unit_test(test_u53_to_double),
        cmocka_unit_test(test_narrow_rounding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

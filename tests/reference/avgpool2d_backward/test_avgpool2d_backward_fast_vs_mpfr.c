/* Avg-pool: the double-double fast path (with Ziv's fallback) and pure MPFR (force_mpfr) must
 * give bitwise identical answers (same_output.h) on ≥ 10^5 random elements per dtype (inputs
 * rounded to the dtype), across pooling variants (ceil mode, countIncludePad, divisorOverride,
 * clipped windows), and on the one-divisor decision's edges (divisors). Also: results do not
 * depend on the thread count, and the fast path decides most elements. The expected side is MPFR (exact terms, one correctly rounded division). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"
#include "same_output.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static const ref_dtype DTS[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT, REF_DT_DOUBLE};

static void avgpool(void **state)
{
    (void)state;
    for (int d = 0; d < 4; d++) { /* per dtype a pooling variant: ceil, override, clipped */
        ref_avgpool_params p = {.n = 2, .c = 8, .h = 80, .w = 80, .kh = 3, .kw = 3, .sh = 2, .sw = 2,
                                .ph = 1, .pw = 1, .ceil_mode = d == 1 || d == 3,
                                .count_include_pad = d < 2, .divisor_override = d == 2 ? -7 : 0};
        p.oh = (p.h + 2 * p.ph - p.kh + (p.ceil_mode ? p.sh - 1 : 0)) / p.sh + 1;
        p.ow = p.oh;
        int64_t ng = p.n * p.c * p.oh * p.ow;
        double *g = malloc((size_t)ng * sizeof *g);
        for (int64_t i = 0; i < ng; i++)
            g[i] = ref_round_to((urand() - 0.5) * 8, DTS[d]);
        ref_options fo = {.threads = 1}, mo = {.force_mpfr = true, .threads = 2}; /* 1 vs 2 threads */
        ref_output f, m;
        assert_int_equal(ref_avgpool2d_backward(&p, g, &fo, &f), 0);
        assert_int_equal(ref_avgpool2d_backward(&p, g, &mo, &m), 0);
        assert_true(f.numel >= 100000);
        same_output(&f, &m);
        print_message("avgpool dtype %d: %lld elements, fast %lld, fallback %lld\n", DTS[d],
                      (long long)f.numel, (long long)fo.fast_hits, (long long)fo.mpfr_fallbacks);
        assert_true(fo.fast_hits > 9 * fo.mpfr_fallbacks);
        ref_output_free(&f);
        ref_output_free(&m);
        free(g);
    }
}

/* One thread's fast path bitwise pure MPFR's on gradOutput g, deciding more than `ratio` times
 * as many elements itself as it leaves to the fallback (ratio 0: any number). */
static void fast_equals_mpfr(const ref_avgpool_params *p, const double *g, int ratio)
{
    ref_options fo = {.threads = 1}, mo = {.force_mpfr = true, .threads = 1};
    ref_output f, m;
    assert_int_equal(ref_avgpool2d_backward(p, g, &fo, &f), 0);
    assert_int_equal(ref_avgpool2d_backward(p, g, &mo, &m), 0);
    same_output(&f, &m);
    if (ratio > 0)
        assert_true(fo.fast_hits > ratio * fo.mpfr_fallbacks);
    ref_output_free(&f);
    ref_output_free(&m);
}

/* The same, deciding over 90% itself. */
static void fast_equals_mpfr_mostly(const ref_avgpool_params *p, const double *g)
{
    fast_equals_mpfr(p, g, 9);
}

/* The fast path's direct decision of one divisor d (Σg/d correctly rounded, the remainder's
 * quotient rounded to REF_LO_BITS): divisors that split the quotient in two (at most 26 bits)
 * and that need fma, negative, up to 2^53; gradients of few bits (exact quotients, short
 * remainders) and of 24 bits, so exact, small and large remainders all occur. */
static void divisors(void **state)
{
    (void)state;
    const int64_t ds[] = {3, -7, 9, 6, ((int64_t)1 << 26) - 1, ((int64_t)1 << 26) + 1,
                          ((int64_t)1 << 33) + 7, ((int64_t)1 << 53) - 1, (int64_t)1 << 53};
    for (size_t k = 0; k < sizeof ds / sizeof *ds; k++) {
        ref_avgpool_params p = {.n = 1, .c = 2, .h = 40, .w = 40, .oh = 39, .ow = 39, .kh = 2,
                                .kw = 2, .sh = 1, .sw = 1, .divisor_override = ds[k]};
        int64_t ng = p.n * p.c * p.oh * p.ow;
        double *g = malloc((size_t)ng * sizeof *g);
        for (int64_t i = 0; i < ng; i++) /* channel 0: multiples of 1/8; channel 1: FP32 */
            g[i] = i < ng / 2 ? floor(urand() * 64 - 32) / 8
                              : ref_round_to((urand() - 0.5) * 8, REF_DT_FLOAT);
        fast_equals_mpfr_mostly(&p, g);
        free(g);
    }
}

/* The shapes that choose between the fast path's routes (four-lane groups of a row: affine,
 * gathered; one element at a time; no window at all): kernel smaller than the stride (columns
 * and rows no window covers), a kernel as wide as the row with stride 1 (every column the same
 * windows: not affine, gathered), rows narrower than a group, an odd row length with clipped
 * windows, a stride near INT64_MAX; planes that are not regular (a gradient of 2^15, one of 2^-900, an infinity, a NaN)
 * beside regular ones. */
static void shapes(void **state)
{
    (void)state;
    const ref_avgpool_params ps[] = {
        {.n = 2, .c = 3, .h = 30, .w = 31, .oh = 3, .ow = 3, .kh = 2, .kw = 3, .sh = 9, .sw = 10},
        {.n = 1, .c = 4, .h = 9, .w = 40, .oh = 1, .ow = 1, .kh = 9, .kw = 40, .sh = 1, .sw = 1},
        {.n = 1, .c = 5, .h = 20, .w = 40, .oh = 12, .ow = 32, .kh = 9, .kw = 9, .sh = 1, .sw = 1,
         .ph = 0, .pw = 0},
        {.n = 3, .c = 4, .h = 17, .w = 3, .oh = 9, .ow = 2, .kh = 3, .kw = 2, .sh = 2, .sw = 2,
         .ph = 1, .pw = 1, .count_include_pad = true},
        {.n = 1, .c = 6, .h = 33, .w = 37, .oh = 17, .ow = 19, .kh = 4, .kw = 5, .sh = 2, .sw = 2,
         .ph = 2, .pw = 2, .ceil_mode = true},
        /* a stride near INT64_MAX: no group of a residue fits (3·sw overflowed, UBSan, fuzzing) */
        {.n = 2, .c = 3, .h = 6, .w = 9, .oh = 1, .ow = 1, .kh = 2, .kw = 3, .sh = INT64_MAX,
         .sw = INT64_MAX},
    };
    const double odd[] = {0x1p15, 0x1p-900, INFINITY, NAN};
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
        ref_avgpool_params p = ps[k];
        int64_t plane = p.oh * p.ow, ng = p.n * p.c * plane;
        double *g = malloc((size_t)ng * sizeof *g);
        for (int64_t i = 0; i < ng; i++)
            g[i] = ref_round_to((urand() - 0.5) * 8, REF_DT_FLOAT);
        for (int64_t c = 1; c < p.n * p.c; c += 2) /* every other plane not regular */
            g[c * plane + (c * 7) % plane] = odd[(c / 2) % 4];
        ref_options fo = {.threads = 2}, mo = {.force_mpfr = true, .threads = 1};
        ref_output f, m;
        assert_int_equal(ref_avgpool2d_backward(&p, g, &fo, &f), 0);
        assert_int_equal(ref_avgpool2d_backward(&p, g, &mo, &m), 0);
        same_output(&f, &m);
        print_message("shape %zu: %lld elements, fast %lld, fallback %lld\n", k, (long long)f.numel,
                      (long long)fo.fast_hits, (long long)fo.mpfr_fallbacks);
        /* a 2^-900 plane is MPFR's wherever a window holds that value: a quarter at most */
        assert_true(fo.fast_hits >= 2 * fo.mpfr_fallbacks);
        ref_output_free(&f);
        ref_output_free(&m);
        free(g);
    }
}

/* Planes whose every window sum is exact in any order skip the two-sum error checks: float32
 * values (24 significant bits) whose exponents span at most 30 − 1 − ceil(log2 terms) (here 9
 * terms: 25). Either side of that edge, against MPFR: plane 0 spans 25 (the checks skipped,
 * sums exact); plane 1 spans 27 with sums that are not exact (eight values just below 2 and one
 * of 2^-27·(1 + 2^-23): the sum needs 54 bits), which a looser bound would decide as exact;
 * plane 2 spans 60 (1 and 2^-60); plane 3 holds doubles of 53 bits. */
static void exact_sums(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 4, .h = 10, .w = 10, .oh = 8, .ow = 8, .kh = 3, .kw = 3,
                            .sh = 1, .sw = 1};
    double g[4 * 64];
    for (int i = 0; i < 64; i++) {
        double sign = urand() < 0.5 ? -1 : 1;
        g[i] = sign * ldexp(ref_round_to(1 + urand(), REF_DT_FLOAT), -(i % 26));
        g[64 + i] = i % 9 == 4 ? 0x1p-27 * (1 + 0x1p-23) : 2 - 0x1p-23;
        g[128 + i] = i % 5 == 2 ? 0x1p-60 : sign;
        g[192 + i] = sign * (1 + urand());
    }
    ref_options fo = {.threads = 2}, mo = {.force_mpfr = true, .threads = 1};
    ref_output f, m;
    assert_int_equal(ref_avgpool2d_backward(&p, g, &fo, &f), 0);
    assert_int_equal(ref_avgpool2d_backward(&p, g, &mo, &m), 0);
    same_output(&f, &m);
    assert_true(fo.mpfr_fallbacks > 0); /* plane 1's and 2's inexact sums */
    ref_output_free(&f);
    ref_output_free(&m);
}

/* Exact planes (PLANE_EXACT), where the four-lane path skips its exponent tests, against MPFR:
 * one term per element (a 1x1 kernel) divided by a divisorOverride of 23-25 bits, the values
 * float32s whose remainder's quotient, computed, rounds to the other side of a REF_LO_BITS
 * rounding tie than the exact one (found by search), which the test of its low bits must still
 * leave to the fallback; then
 * planes of one binade at 2^-700 (exact: the tests skipped), 2^-701 and 2^-847 (regular: made),
 * with divisors up to 2^52, the quotients' exponents lowest. */
static void exact_planes_near_ties(void **state)
{
    (void)state;
    static const struct { int64_t d; double g[8]; } near[] = {
        {12345679, {0x1.e1d348p+0, 0x1.0fb1f4p+0, 0x1.f1377p+0, 0x1.f8e984p+0, 0x1.004dccp+0,
                    0x1.e1d348p+0, 0x1.0fb1f4p+0, 0x1.f1377p+0}},
        {33554393, {0x1.4150fap+0, 0x1.ecbab2p+0, 0x1.b96a82p+0, 0x1.5f575cp+0, 0x1.4150fap+0,
                    0x1.ecbab2p+0, 0x1.b96a82p+0, 0x1.5f575cp+0}},
        {9999991, {0x1.1a7b94p+0, 0x1.c5db08p+0, 0x1.a2a3bp+0, 0x1.8bf256p+0, 0x1.7f6c58p+0,
                   0x1.1a7b94p+0, 0x1.c5db08p+0, 0x1.a2a3bp+0}}};
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 2, .w = 8, .oh = 2, .ow = 8, .kh = 1, .kw = 1,
                            .sh = 1, .sw = 1};
    for (int k = 0; k < 3; k++) {
        double g[16];
        for (int i = 0; i < 16; i++)
            g[i] = (i % 3 ? 1 : -1) * near[k].g[i % 8];
        p.divisor_override = k == 1 ? -near[k].d : near[k].d;
        fast_equals_mpfr(&p, g, 0);
    }
    p = (ref_avgpool_params){.n = 1, .c = 1, .h = 24, .w = 24, .oh = 22, .ow = 22, .kh = 3,
                             .kw = 3, .sh = 1, .sw = 1};
    const int exps[] = {-700, -701, -847};
    const int64_t ovs[] = {0, 3LL << 48, (1LL << 52) + (1LL << 27), -(5LL << 49) - 1};
    double g[22 * 22];
    for (int e = 0; e < 3; e++)
        for (int o = 0; o < 4; o++) {
            for (int i = 0; i < 22 * 22; i++)
                g[i] = (urand() < 0.5 ? -1 : 1) *
                       ldexp(ref_round_to(1 + urand(), REF_DT_FLOAT), exps[e]);
            p.divisor_override = ovs[o];
            fast_equals_mpfr(&p, g, 9);
        }
}

/* Each lane of a four-lane group its own divisor's fields (min_weight, sum_abs): windows as
 * wide as the stride, clipped at both edges, so no residue has four columns and the gathered
 * groups' columns have the divisors 2, 2, 3, 3 and 3, 2, 2, 3 (rows 2, 3, 2). Run last: the
 * tests above keep the random values they were written for. */
static void lane_divisors(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 2, .c = 3, .h = 8, .w = 7, .oh = 3, .ow = 3, .kh = 3, .kw = 3,
                            .sh = 3, .sw = 3, .ph = 1, .pw = 1};
    double g[2 * 3 * 9];
    for (int i = 0; i < 2 * 3 * 9; i++)
        g[i] = ref_round_to((urand() - 0.5) * 8, REF_DT_FLOAT);
    fast_equals_mpfr_mostly(&p, g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(avgpool), cmocka_unit_test(divisors),
                                       cmocka_unit_test(shapes), cmocka_unit_test(exact_sums),
                                       cmocka_unit_test(lane_divisors),
                                       cmocka_unit_test(exact_planes_near_ties)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

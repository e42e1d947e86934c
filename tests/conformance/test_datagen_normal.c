/* The normal generator's vector path (log_one, cos_one and the enclosure in datagen.c) against
 * its definition, Box-Muller with libm's log and cos per element (cts_datagen_libm_only, and
 * box_muller written out again here): bit for bit on 1.2e7 random elements per dtype over
 * several (a, b), and on crafted uniforms: 2π·u2 at and around π/2 and 3π/2 (cos crossing
 * zero), u1 at and near 0 and 1, and values on the dtypes' rounding midpoints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "avgpool2d_backward/avgpool2d_backward.h"
#include "data/data.h"

#define CHUNK (1 << 20)
#define U53 0x1p-53

static const ref_dtype dtypes[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT, REF_DT_DOUBLE};
static const double params[][2] = {{0, 1}, {0, 1e-3}, {0, 1e3}, {2, 0.5}, {-3, 1e-3}, {1e3, 7}};

static cts_case make(ref_dtype dt, double a, double b)
{
    cts_case c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "s.normal.dtype=%d.ascend910b", (int)dt);
    c.seed = 11;
    c.op = &cts_op_avgpool2d_backward;
    c.ntensors = 1;
    c.t[0].name = "self";
    c.t[0].dtype = dt;
    c.t[0].gen.kind = CTS_GEN_NORMAL;
    c.t[0].gen.a = a;
    c.t[0].gen.b = b;
    return c;
}

/* cts_fill_range of the fast path and of libm alone, 2e6 elements per (a, b): 1.2e7 a dtype */
static void test_random_fills(void **state)
{
    (void)state;
    double *x = malloc(CHUNK * sizeof *x), *y = malloc(CHUNK * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
        for (size_t p = 0; p < sizeof params / sizeof *params; p++) {
            cts_case c = make(dtypes[d], params[p][0], params[p][1]);
            for (int64_t first = 0; first < 2 * CHUNK; first += CHUNK) {
                cts_datagen_libm_only = false;
                cts_fill_range(&c, 0, first, x, CHUNK);
                cts_datagen_libm_only = true;
                cts_fill_range(&c, 0, first, y, CHUNK);
                cts_datagen_libm_only = false;
                if (memcmp(x, y, CHUNK * sizeof *x) != 0) {
                    for (int64_t j = 0; j < CHUNK; j++)
                        if (memcmp(&x[j], &y[j], sizeof *x) != 0)
                            fail_msg("dtype %d a %g b %g element %lld: %a, libm %a",
                                     (int)dtypes[d], params[p][0], params[p][1],
                                     (long long)(first + j), x[j], y[j]);
                }
            }
        }
    free(x);
    free(y);
}

/* The definition, rounded as the fill rounds (FLOAT: ref_round_to is the (float) conversion,
 * test_datagen.c checks it). */
static double oracle(ref_dtype dt, double a, double b, double u1, double u2)
{
    return ref_round_to(a + b * sqrt(-2 * log(1.0 - u1)) * cos(2 * M_PI * u2), dt);
}

/* cts_normal_rounded on u1[], u2[] against the oracle; returns its fallbacks */
static int64_t check(ref_dtype dt, double a, double b, const double *u1, const double *u2,
                     int64_t n)
{
    double *out = malloc((size_t)n * sizeof *out);
    assert_non_null(out);
    int64_t slow = cts_normal_rounded(a, b, dt, u1, u2, out, n);
    for (int64_t j = 0; j < n; j++) {
        double want = oracle(dt, a, b, u1[j], u2[j]);
        if (memcmp(&out[j], &want, sizeof want) != 0)
            fail_msg("dtype %d a %a b %a u1 %a u2 %a: %a, libm %a", (int)dt, a, b, u1[j], u2[j],
                     out[j], want);
    }
    free(out);
    return slow;
}

#define NEAR 2048 /* uniforms k·2^-53 either side of a point */

/* u2 on and around 1/4 and 3/4 (cos crossing zero), u1 around 0 and 1 - small, crossed */
static void test_crafted_uniforms(void **state)
{
    (void)state;
    static double u1[4 * NEAR], u2[4 * NEAR];
    const double at[] = {0.25, 0.75, 0.5, 0.0};
    const double u1s[] = {0, U53, 0.5, 1 - U53, 1 - 0x1p-30, 0x1p-20};
    for (size_t p = 0; p < sizeof at / sizeof *at; p++)
        for (size_t q = 0; q < sizeof u1s / sizeof *u1s; q++) {
            int64_t n = 0;
            for (int k = -NEAR; k < NEAR; k++) {
                double v = at[p] + k * U53;
                if (v < 0 || v >= 1) continue;
                u2[n] = v;
                double w = u1s[q] + (k & 63) * U53 * (u1s[q] < 0.5 ? 1 : -1);
                u1[n++] = w < 0 ? 0 : w >= 1 ? 1 - U53 : w;
            }
            for (size_t d = 0; d < 3; d++)
                for (size_t r = 0; r < sizeof params / sizeof *params; r++)
                    check(dtypes[d], params[r][0], params[r][1], u1, u2, n);
        }
}

/* a + b·sqrt(-2·log(1 - u1)) on or next to a rounding midpoint of each dtype: u2 = 0 (cos 1),
 * u1 swept around 1 - exp(-y²/2) for y half-way between two neighbours; and a itself a
 * midpoint with u2 around 1/4, where the product's sign flips. */
static void test_midpoints(void **state)
{
    (void)state;
    static double u1[4 * NEAR], u2[4 * NEAR];
    const struct { ref_dtype dt; int p; } f[] = {
        {REF_DT_FLOAT16, 11}, {REF_DT_BF16, 8}, {REF_DT_FLOAT, 24}};
    const double ys[] = {1, 1.5, 3, 0.75, 2.5, 0.09375}; /* in every dtype */
    for (size_t d = 0; d < 3; d++)
        for (size_t i = 0; i < sizeof ys / sizeof *ys; i++) {
            int e;
            frexp(ys[i], &e);
            double y = ys[i] + ldexp(1, e - 1 - f[d].p); /* half an ulp above */
            double c = -expm1(-y * y / 2);             /* u1 with sqrt(-2 log(1 - u1)) = y */
            c = nearbyint(c / U53) * U53;
            int64_t n = 0, slow = 0;
            for (int k = -NEAR; k < NEAR; k++) {
                u1[n] = c + k * U53;
                u2[n++] = 0;
            }
            slow += check(f[d].dt, 0, 1, u1, u2, n);
            n = 0;
            for (int k = -NEAR; k < NEAR; k++) {
                u1[n] = 0.3 + k * U53;
                u2[n++] = 0.25 + k * U53;
            }
            check(f[d].dt, y, 1, u1, u2, n);
            check(f[d].dt, y, 0x1p-40, u1, u2, n);
            assert_true(slow > 0); /* the sweep reached the midpoint: libm decided there */
        }
}

/* On random uniforms the vector path decides nearly every element: fallbacks under 1e-4 */
static void test_fallback_rate(void **state)
{
    (void)state;
    const int64_t n = 1 << 20;
    double *u1 = malloc(n * sizeof *u1), *u2 = malloc(n * sizeof *u2);
    assert_non_null(u1);
    assert_non_null(u2);
    uint64_t s = 12345;
    for (int64_t j = 0; j < n; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        u1[j] = (double)(s >> 11) * U53;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        u2[j] = (double)(s >> 11) * U53;
    }
    for (size_t d = 0; d < 3; d++) {
        int64_t slow = check(dtypes[d], 0, 1, u1, u2, n);
        printf("dtype %d: %lld of %lld elements by libm\n", (int)dtypes[d], (long long)slow,
               (long long)n);
        assert_true(slow * 1e4 < (double)n);
    }
    free(u1);
    free(u2);
}

/* x + d rounded, or the next double toward x when rounding took it past |d|. */
static double step_inside(double x, double d)
{
    double y = x + d;
    return fabs(y - x) > fabs(d) ? nextafter(y, x) : y;
}

/* Relative error of x against MPFR's value m (|m| > 0) */
static double rel_err(double x, mpfr_t m)
{
    mpfr_t d;
    mpfr_init2(d, 200);
    mpfr_sub_d(d, m, x, MPFR_RNDN);
    mpfr_div(d, d, m, MPFR_RNDN);
    double r = fabs(mpfr_get_d(d, MPFR_RNDU));
    mpfr_clear(d);
    return r;
}

/* cts_normal_log_cos within cts_normal_eps(dt) / 2 of log x and cos t (MPFR at 200 bits, the
 * exact values to far below the bound), each dtype's series: on random x = 1 - u1 and
 * t = 2π·u2, and where the series are at their worst: x whose m lies next to √½ and √2
 * (|f| largest) and next to 1 - 2^-53 and 2^-53, t next to the odd multiples of π/4 (|r|
 * largest) and, for cos crossing 0, next to π/2 and 3π/2 (the doubles 2π·u2 nearest them). */
static void test_log_cos_accuracy(void **state)
{
    (void)state;
    enum { NR = 1 << 16, N = NR + 8 * 64 };
    static double x[N], t[N], L[N], C[N];
    uint64_t s = 77;
    for (int j = 0; j < NR; j++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x[j] = 1.0 - (double)(s >> 11) * U53;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        t[j] = 2 * M_PI * ((double)(s >> 11) * U53);
    }
    const double xs[] = {M_SQRT1_2, M_SQRT2 / 2 * 0x1p-20, M_SQRT2 * 0x1p-40, M_SQRT1_2 * 0x1p-52,
                         1 - U53, 0x1p-53 * 64, M_SQRT2 * 0x1p-27, 0.75};
    const double ts[] = {M_PI / 4, 3 * M_PI / 4, 5 * M_PI / 4, 7 * M_PI / 4, M_PI / 2,
                         3 * M_PI / 2, M_PI, 0.1};
    for (int p = 0, n = NR; p < 8; p++)
        for (int k = -32; k < 32; k++, n++) {
            double v = xs[p] + k * (xs[p] < 0.5 ? 0x1p-60 * xs[p] : U53);
            x[n] = v > 1 ? 1 : v;
            t[n] = 2 * M_PI * (nearbyint(ts[p] / (2 * M_PI) / U53) + k) * U53;
        }
    const ref_dtype dts[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT};
    mpfr_t m;
    mpfr_init2(m, 200);
    for (int d = 0; d < 3; d++) {
        double half = cts_normal_eps(dts[d]) / 2, worst_l = 0, worst_c = 0;
        cts_normal_log_cos(dts[d], x, t, L, C, N);
        for (int j = 0; j < N; j++) {
            if (x[j] == 1) continue; /* log 1 = 0: asked apart below */
            mpfr_set_d(m, x[j], MPFR_RNDN);
            mpfr_log(m, m, MPFR_RNDN);
            worst_l = fmax(worst_l, rel_err(L[j], m));
        }
        for (int j = 0; j < N; j++) {
            mpfr_set_d(m, t[j], MPFR_RNDN);
            mpfr_cos(m, m, MPFR_RNDN);
            worst_c = fmax(worst_c, rel_err(C[j], m));
        }
        printf("dtype %d: worst relative error log %a, cos %a (allowed %a)\n", (int)dts[d],
               worst_l, worst_c, half);
        assert_true(worst_l <= half && worst_c <= half);
        double one = 1, zero = 0;
        cts_normal_log_cos(dts[d], &one, &zero, L, C, 1);
        assert_true(L[0] == 0 && C[0] == 1);
    }
    mpfr_clear(m);
}

/* The enclosure's promise (data.h) at its corners: L' and C' the doubles nearest to L·(1 ± e)
 * and C·(1 ± e) within reach, a + b·sqrt(-2·L')·C' computed as the libm path computes it,
 * inside [lo, hi], over random L (|L| from 2^-54 to 32), C, a and b; test_enclosure_corners
 * asks it at cts_normal_eps's e, 2^-40 and 2^-30. Expected: the IEEE operations here, on
 * their own. */
static void enclosure_corners(double e)
{
    uint64_t s = 2024;
    for (int i = 0; i < 200000; i++) {
        double r[5];
        for (int k = 0; k < 5; k++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            r[k] = (double)(s >> 11) * U53;
        }
        double L = -ldexp(0.5 + r[0] / 2, (int)(r[1] * 59) - 53), C = 2 * r[2] - 1;
        double a = (r[3] - 0.5) * 200, b = 60 * r[4] - 10, lo, hi;
        cts_normal_enclose(a, b, &L, &C, &lo, &hi, 1, e);
        double Ls[2] = {step_inside(L, L * e), step_inside(L, -L * e)};
        double Cs[2] = {step_inside(C, C * e), step_inside(C, -C * e)};
        for (int p = 0; p < 2; p++)
            for (int q = 0; q < 2; q++) {
                double v = a + b * sqrt(-2 * Ls[p]) * Cs[q];
                if (!(lo <= v && v <= hi))
                    fail_msg("L %a C %a a %a b %a: %a outside [%a, %a]", L, C, a, b, v, lo, hi);
            }
    }
}

static void test_enclosure_corners(void **state)
{
    (void)state;
    for (int w = 0; w < 2; w++)
        enclosure_corners(w ? 0x1p-30 : 0x1p-40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crafted_uniforms),
        cmocka_unit_test(test_midpoints),
        cmocka_unit_test(test_enclosure_corners),
        cmocka_unit_test(test_log_cos_accuracy),
        cmocka_unit_test(test_fallback_rate),
        cmocka_unit_test(test_random_fills),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

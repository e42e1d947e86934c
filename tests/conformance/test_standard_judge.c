/* The standards' judges (report/standard_judge.c) on a few elements whose metrics are worked
 * out by hand from each standard's formula, in particular at near-zero goldens, where each
 * standard's own provision (ATK's 1e-7, msprobe's small values and ULP floor, the mixed
 * tolerance's atol) decides. Thresholds as in standards/ (cited there). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "standard.h"

/* cmocka compares floats as float; these numbers need double */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

static void param(cts_std_param *p, int *n, const char *name, double v)
{
    snprintf(p[*n].name, sizeof p->name, "%s", name);
    p[(*n)++].v = v;
}

static cts_std_input input(int64_t n, const double *got, const double *golden,
                           const double *bench)
{
    static unsigned char all[32];
    static const double units[32] = {0};
    memset(all, 1, sizeof all);
    return (cts_std_input){n, got, golden, bench, units, all, CTS_STD_F32};
}

/* ATK single_bm, FLOAT32 (T = 2^-13 = 1.22e-4): rel = |a - g| / (|g| + 1e-7). A golden of 0
 * with an error of 1e-11 is 1e-4 relative (below T); a golden of 1e-8 with an error of 1e-8 is
 * 1e-8 / 1.1e-7 = 1/11, far beyond 10 T: the 1e-7 excuses no more than that. */
static void relative_near_zero(void **state)
{
    (void)state;
    cts_standard s = {.method = CTS_STD_RELATIVE};
    param(s.rule, &s.nrule, "denominator_eps", 1e-7);
    param(s.rule, &s.nrule, "max_factor", 10);
    s.dt[CTS_STD_F32].set = true;
    param(s.dt[CTS_STD_F32].p, &s.dt[CTS_STD_F32].n, "threshold", 0x1p-13);
    double golden[] = {0, 1e-8}, got[] = {1e-11, 2e-8};
    cts_std_input in = input(1, got, golden, NULL);
    cts_std_verdict v;
    signed char elem[2];
    double em[2];
    cts_std_judge(&s, &in, &v, elem, em);
    assert_true(v.judged && v.pass);
    assert_near(v.m[1], 1e-4, 1e-15);
    in.n = 2;
    cts_std_judge(&s, &in, &v, elem, em);
    assert_false(v.pass);
    assert_near(v.m[1], 1.0 / 11, 1e-12);
    assert_near(v.m[0], (1e-4 + 1.0 / 11) / 2, 1e-12);
    assert_int_equal(elem[0], 1);
    assert_int_equal(elem[1], 0);
}

/* msprobe's benchmark method as Ascend/mstt benchmark_compare.py@4c1f8e9 has it: limits on four
 * ratios (the error balance is reported, not judged), each ratio's denominator floored at the
 * dtype's minimum error (FLOAT32 2^-14, FLOAT16 2^-11), eps of the raised-precision golden
 * (FLOAT64 for FLOAT32, FLOAT32 for FLOAT16). */
static cts_standard benchmark_std(void)
{
    cts_standard s = {.method = CTS_STD_BENCHMARK};
    const char *lim[] = {"limits.small_value_err_ratio", "limits.rmse", "limits.max_rel_err",
                         "limits.mean_rel_err"};
    const double val[] = {2, 2, 10, 2};
    for (int i = 0; i < 4; i++) param(s.rule, &s.nrule, lim[i], val[i]);
    const int dts[] = {CTS_STD_F32, CTS_STD_F16};
    const double sv[] = {0x1p-20, 0x1p-10}, atol[] = {0x1p-30, 1e-16};
    const double eps[] = {0x1p-52, 0x1p-23}, min_err[] = {0x1p-14, 0x1p-11};
    for (int d = 0; d < 2; d++) {
        s.dt[dts[d]].set = true;
        cts_std_param *p = s.dt[dts[d]].p;
        int *n = &s.dt[dts[d]].n;
        param(p, n, "small_value", sv[d]);
        param(p, n, "small_value_atol", atol[d]);
        param(p, n, "eps", eps[d]);
        param(p, n, "min_err", min_err[d]);
    }
    return s;
}

/* msprobe benchmark, FLOAT32: a golden of 2^-21 is a small value (<= 2^-20), judged
 * absolutely: an error of 2^-29 > 2^-30 makes the small-value error ratio 1 (of 1), against
 * an exact benchmark's 0 floored to 2^-14: a ratio of 2^14, over the limit 2. The other
 * element, golden 1 with error 2^-23 on both devices, has relative error 2^-23 / (1 + 2^-52)
 * on each, below the floor: ratio 2^-23/(1+2^-52) / 2^-14 = 2^-9 / (1 + 2^-52). Error
 * balance: the device is above twice, the benchmark once: (2/2) / (1/2) = 2. */
static void benchmark_small_values(void **state)
{
    (void)state;
    cts_standard s = benchmark_std();
    double golden[] = {0x1p-21, 1}, got[] = {0x1p-21 + 0x1p-29, 1 + 0x1p-23};
    double bench[] = {0x1p-21, 1 + 0x1p-23};
    cts_std_input in = input(2, got, golden, bench);
    cts_std_verdict v;
    cts_std_judge(&s, &in, &v, NULL, NULL);
    assert_true(v.judged);
    assert_false(v.pass);
    assert_near(v.m[0], 0x1p14, 0);
    assert_near(v.m[2], 0x1p-9 / (1 + 0x1p-52), 1e-15); /* floored denominator */
    assert_near(v.m[4], 2.0, 0);
    assert_near(v.margin, 0x1p14 / 2, 0);
    in.bench = NULL; /* no benchmark: not judged */
    cts_std_judge(&s, &in, &v, NULL, NULL);
    assert_false(v.judged);
}

/* msprobe ULP, FLOAT32: the unit is 2^(eb - 23), eb = floor(log2 |golden|) but at least
 * -126, and 0 for a zero golden: an error of 2^-20 on golden 0 is 2^-20 x 2^23 = 8 ULP
 * (within 32); on golden 2^-30 (eb -30) it is 2^33 ULP. Proportion beyond 32: 1/2, not below
 * 0.05; mean (8 + 2^33) / 2, not below 64; the benchmark exact, its proportion 0 floored to
 * 2^-14: ratio 2^13, not below 1: FAIL. Without a benchmark output the method is not judged
 * (api_precision_compare.py compares the device's row with the benchmark's). */
static cts_standard ulp_fp32(void)
{
    cts_standard s = {.method = CTS_STD_ULP};
    param(s.rule, &s.nrule, "proportion_ratio", 1);
    s.dt[CTS_STD_F32].set = true;
    cts_std_param *p = s.dt[CTS_STD_F32].p;
    int *n = &s.dt[CTS_STD_F32].n;
    param(p, n, "min_err", 0x1p-14);
    param(p, n, "mantissa_bits", 23);
    param(p, n, "min_eb", -126);
    param(p, n, "ulp_threshold", 32);
    param(p, n, "max_proportion", 0.05);
    param(p, n, "mean_ulp", 64);
    return s;
}

static void ulp_binade(void **state)
{
    (void)state;
    cts_standard s = ulp_fp32();
    double golden[] = {0, 0x1p-30}, got[] = {0x1p-20, 0x1p-30 + 0x1p-20};
    cts_std_input in = input(2, got, golden, golden);
    cts_std_verdict v;
    signed char elem[2];
    double em[2];
    cts_std_judge(&s, &in, &v, elem, em);
    assert_near(em[0], 8, 0);
    assert_near(em[1], 0x1p33, 0);
    assert_near(v.m[1], 0.5, 0);
    assert_near(v.m[2], 0x1p13, 0);
    assert_false(v.pass);
    assert_int_equal(elem[0], 1);
    assert_int_equal(elem[1], 0);
    in.bench = NULL;
    cts_std_judge(&s, &in, &v, elem, em);
    assert_false(v.judged);
    assert_int_equal(v.na, CTS_NA_NO_BENCH);
}

/* msprobe ULP, FLOAT32, non-finite values as its checker computes them (compare.py,
 * compare_utils.py check_inf_or_nan): 21 elements of golden 1, the device exact but inf at
 * element 0. Its ULP error there is inf, so the mean is inf and the proportion beyond 32 is
 * 1/21 = 0.0476 < 0.05. A benchmark with inf there too: its mean is inf as well, consistent:
 * PASS on the proportion. A benchmark finite there: means inconsistent, ERROR. A NaN golden (element 1, device NaN) gives a NaN ULP error, counted
 * neither beyond the threshold nor within (element criterion -1), and a NaN mean: the
 * benchmark with NaN there as well is consistent. */
static void ulp_nonfinite(void **state)
{
    (void)state;
    cts_standard s = ulp_fp32();
    double golden[21], got[21], bench[21];
    for (int i = 0; i < 21; i++) golden[i] = got[i] = bench[i] = 1;
    got[0] = bench[0] = INFINITY;
    cts_std_input in = input(21, got, golden, bench);
    cts_std_verdict v;
    signed char elem[21];
    double em[21];
    cts_std_judge(&s, &in, &v, elem, em);
    assert_true(isinf(v.m[0]));
    assert_near(v.m[1], 1.0 / 21, 1e-15);
    assert_true(v.pass);
    assert_int_equal(elem[0], 0);
    bench[0] = 1;
    cts_std_judge(&s, &in, &v, elem, em);
    assert_false(v.pass);
    golden[1] = got[1] = bench[1] = NAN;
    bench[0] = INFINITY;
    cts_std_judge(&s, &in, &v, elem, em);
    assert_true(isnan(v.m[0]));
    assert_near(v.m[1], 1.0 / 21, 1e-15);
    assert_int_equal(elem[1], -1);
    assert_true(v.pass);
}

/* msprobe benchmark, FLOAT16: a ratio's denominator is floored at FLOAT16's minimum error,
 * 2^-11 (benchmark_compare.py@4c1f8e9 passes calc_ratio the row's dtype string, the key of
 * standard_config.py@a428263's _minmum_err; aclcts floored at 2^-14 before). Golden 1, the
 * device 1 + 2^-10 (one ULP), the benchmark exact: RMSE 2^-10 sqrt(1/1.0001 + 1e-4)
 * (algorithm.py get_rmse, no element masked) over 2^-11 = 2 sqrt(1/1.0001 + 1e-4) > 2: FAIL
 * on the RMSE; the relative errors 2^-10 / (1 + 2^-23) (eps of the FLOAT32 golden) give
 * ratios 2 / (1 + 2^-23), within 10 and below 2. */
static void benchmark_dtype_floor(void **state)
{
    (void)state;
    cts_standard s = benchmark_std();
    double golden[] = {1}, got[] = {1 + 0x1p-10}, bench[] = {1};
    cts_std_input in = input(1, got, golden, bench);
    in.dt = CTS_STD_F16;
    cts_std_verdict v;
    cts_std_judge(&s, &in, &v, NULL, NULL);
    double rmse = 2 * sqrt(1 / 1.0001 + 1e-4);
    assert_near(v.m[1], rmse, 1e-12);
    assert_near(v.m[2], 2 / (1 + 0x1p-23), 1e-12);
    assert_near(v.m[3], 2 / (1 + 0x1p-23), 1e-12);
    assert_false(v.pass);
    assert_near(v.margin, rmse / 2, 1e-12);
}

/* msprobe benchmark, FLOAT16: the error balance compares the device with the golden cast to
 * FLOAT16 (algorithm.py: bench_data.astype(device_data.dtype)) and stays out of the verdict.
 * Golden G = 1024.5 + 2^-9, in FLOAT16 1025; the device 1024 (below it), the benchmark 1025
 * (equal): balance 1 against 0, ratio 1 / 2^-11 = 2048, reported only. Errors 0.5 + 2^-9 and
 * 0.5 - 2^-9: RMSE ratio (0.5 + 2^-9) / (0.5 - 2^-9) (get_rmse's factor cancels); relative
 * errors (0.5 -+ 2^-9) / (G + 2^-23), the benchmark's below 2^-11 and floored there: ratio
 * (0.5 + 2^-9) / (G + 2^-23) / 2^-11. Both within their limits: PASS. */
static void benchmark_error_balance_reported(void **state)
{
    (void)state;
    cts_standard s = benchmark_std();
    const double G = 1024.5 + 0x1p-9;
    double golden[] = {G}, got[] = {1024}, bench[] = {1025};
    cts_std_input in = input(1, got, golden, bench);
    in.dt = CTS_STD_F16;
    cts_std_verdict v;
    cts_std_judge(&s, &in, &v, NULL, NULL);
    assert_near(v.m[4], 2048, 0);
    double r = (0.5 + 0x1p-9) / (0.5 - 0x1p-9), rel = (0.5 + 0x1p-9) / (G + 0x1p-23) / 0x1p-11;
    assert_near(v.m[1], r, 1e-12);
    assert_near(v.m[2], rel, 1e-12);
    assert_near(v.m[3], rel, 1e-12);
    assert_true(v.pass);
    assert_near(v.margin, fmax(r, rel) / 2, 1e-12);
}

/* Mixed tolerance 233ee24, FLOAT32 (rtol = atol = 2^-13, limit 1e-2): near zero the atol
 * decides: error 1e-4 on golden 0 passes (1e-4 <= 2^-13 = 1.22e-4), 2e-4 does not; 1 of 2
 * matched is below 0.99. Non-finite values of one class are equal; of two, an infinite error. */
static void mixed_atol(void **state)
{
    (void)state;
    cts_standard s = {.method = CTS_STD_MIXED};
    param(s.rule, &s.nrule, "matched_ratio", 0.99);
    param(s.rule, &s.nrule, "cap_ulps", 32);
    s.dt[CTS_STD_F32].set = true;
    cts_std_param *p = s.dt[CTS_STD_F32].p;
    int *n = &s.dt[CTS_STD_F32].n;
    param(p, n, "rtol", 0x1p-13);
    param(p, n, "atol", 0x1p-13);
    param(p, n, "max_abs", 1e-2);
    double golden[] = {0, 0, INFINITY, NAN}, got[] = {1e-4, 2e-4, INFINITY, NAN};
    cts_std_input in = input(4, got, golden, NULL);
    cts_std_verdict v;
    signed char elem[4];
    double em[4];
    cts_std_judge(&s, &in, &v, elem, em);
    assert_int_equal(elem[0], 1);
    assert_int_equal(elem[1], 0);
    assert_int_equal(elem[2], 1);
    assert_int_equal(elem[3], 1);
    assert_near(v.m[0], 0.75, 0);
    assert_false(v.pass);
    assert_near(v.m[1], 2e-4 / 1e-2, 1e-15); /* the cap: max(1e-2, 32 ULP of 0) */
    got[3] = INFINITY;
    cts_std_judge(&s, &in, &v, elem, em);
    assert_int_equal(elem[3], 0);
    assert_true(isinf(v.m[1]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(relative_near_zero),
        cmocka_unit_test(benchmark_small_values),
        cmocka_unit_test(ulp_binade),
        cmocka_unit_test(ulp_nonfinite),
        cmocka_unit_test(benchmark_dtype_floor),
        cmocka_unit_test(benchmark_error_balance_reported),
        cmocka_unit_test(mixed_atol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

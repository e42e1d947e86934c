/* Checks and tolerance policies on synthetic data (no device). Expected numbers are derived by
 * hand in the comments: FP16 has 11 significant bits, so its spacing is 2^-10 on [1, 2) and
 * 2^-11 on [0.5, 1) (facts §5); the bound policy's first term is u_out·|exact| with
 * u_out = 2^-11 for FP16 (DESIGN "Checks and tolerances"), and the other terms only add. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <mpfr.h>

#include "check/check.h"
#include "tolerance.h"

/* The judgement of one value or element for dtype dt on path (the basis built per call). */
static cts_elem_err judge_value(const cts_tolerance *t, ref_dtype dt, const ref_path *path,
                                double got, const ref_value *v)
{
    cts_judge_basis b;
    cts_judge_basis_init(&b, dt, path);
    return cts_judge_value(t, &b, got, v);
}

static cts_elem_err judge_element(const cts_tolerance *t, ref_dtype dt, const ref_path *path,
                                  double got, const ref_output *out, int64_t k)
{
    cts_judge_basis b;
    cts_judge_basis_init(&b, dt, path);
    return cts_judge_element(t, &b, got, out, k);
}

static const ref_path vector_fp32 = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT,
                                     .name = "vector-fp32"};

static ref_value value(double hi, double lo, double sum_abs, int64_t nterms)
{
    ref_value v = {.hi = hi, .lo = lo, .sum_abs = sum_abs, .nterms = nterms, .nops = 1};
    return v;
}

static cts_tolerance policy(cts_tol_kind kind, const char *name)
{
    cts_tolerance t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.name = name;
    return t;
}

static void new_verdict(cts_verdict *v)
{
    memset(v, 0, sizeof *v);
    v->status = CTS_PASS;
    v->worst_index = -1;
}

/* A 2x2 FP16 output whose element [0,1] is exact = 1 + 2^-11 + 2^-26: just above the midpoint
 * of 1 and 1 + 2^-10, so it correctly rounds to 1 + 2^-10. The other elements are exact 0.5. */
typedef struct {
    int64_t dims[2];
    ref_value v[4];
    uint8_t flags[4];
    int64_t alt_first[4];
    int32_t alt_count[4];
    ref_output out;
    double got[4];
} fixture;

static void make_fixture(fixture *f, double got01)
{
    memset(f, 0, sizeof *f);
    f->dims[0] = f->dims[1] = 2;
    for (int k = 0; k < 4; k++) {
        f->v[k] = value(0.5, 0, 0.5, 4);
        f->alt_first[k] = -1;
        f->got[k] = 0.5;
    }
    f->v[1] = value(1 + 0x1p-11 + 0x1p-26, 0, 1 + 0x1p-11, 4);
    f->got[1] = got01;
    f->out = (ref_output){4, f->v, f->flags, f->alt_first, f->alt_count, NULL, 0, NULL, NULL};
}

static cts_judged_output judged(fixture *f)
{
    return (cts_judged_output){"grad_input", REF_DT_FLOAT16, 2, f->dims, 4, f->got, &f->out, false};
}

/* got = 1.0: one ULP from the correctly rounded 1 + 2^-10; error 2^-11 + 2^-26 is within
 * u_out·|exact| = 2^-11·(1 + 2^-11 + 2^-26), so the bound policy accepts it. */
static void test_one_ulp_passes_bound_and_ulp1(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 1.0);
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    assert_true(cts_check_tolerance(&bound, &vector_fp32, &o, &v));
    assert_int_equal(v.status, CTS_PASS);
    assert_true(v.worst_ulp == 1.0);
    assert_true(v.worst_bound_units > 0.99 && v.worst_bound_units <= 1.0);
    assert_int_equal(v.nelems, 4);
    assert_string_equal(v.worst_output, "grad_input");
    assert_int_equal(v.worst_index, 1);

    new_verdict(&v);
    cts_tolerance ulp1 = policy(CTS_TOL_ULP, "ulp:1");
    ulp1.ulps = 1;
    assert_true(cts_check_tolerance(&ulp1, &vector_fp32, &o, &v));
    cts_tolerance ulp0 = policy(CTS_TOL_ULP, "ulp:0");
    new_verdict(&v);
    assert_false(cts_check_tolerance(&ulp0, &vector_fp32, &o, &v));
    assert_string_equal(v.check, "tolerance");
}

/* A result equal to its exact value is free of error only when the dtype holds that value:
 * got = exact = 0.1 in an FP16 output (no device makes it; the judge must not assume one) is
 * 0.4 ULP from the correctly rounded 0x1.998p-4 = 0.0999755859375 (quantum 2^-14, by hand:
 * (0.1 - 0.0999755859375)·2^14 = 0.4), while exact values FP16 holds (0.5) are 0 ULP. */
static void test_equal_but_unrepresentable(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 1 + 0x1p-10); /* element 1 correctly rounded: 0 ULP */
    f.v[2] = value(0.1, 0, 0.1, 1);
    f.got[2] = 0.1;
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    cts_tolerance ulp1 = policy(CTS_TOL_ULP, "ulp:1");
    ulp1.ulps = 1;
    assert_true(cts_check_tolerance(&ulp1, &vector_fp32, &o, &v));
    assert_true(fabs(v.worst_ulp - 0.4) < 1e-9);
    assert_int_equal(v.worst_index, 2);
}

/* got = 1 - 2^-9: five FP16 ULPs below 1 + 2^-10 (one step to 1, four of 2^-11 below 1).
 * error = 2^-9 + 2^-11 + 2^-26 ≈ 5·2^-11, the bound ≈ 2^-11 → about 5 bound units. */
static void test_five_ulp_fails_bound_and_ulp4(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 1 - 0x1p-9);
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    assert_false(cts_check_tolerance(&bound, &vector_fp32, &o, &v));
    assert_int_equal(v.status, CTS_FAIL);
    assert_string_equal(v.check, "tolerance");
    assert_true(v.worst_ulp == 5.0);
    assert_true(v.worst_bound_units > 4.9 && v.worst_bound_units < 5.1);
    assert_non_null(strstr(v.message, "grad_input[0,1]"));
    assert_non_null(strstr(v.message, "got 0.998046875"));
    assert_non_null(strstr(v.message, "5 ULP"));
    assert_non_null(strstr(v.message, "bound units"));
    assert_non_null(strstr(v.message, "1 of 4 elements"));

    cts_tolerance ulp4 = policy(CTS_TOL_ULP, "ulp:4"), ulp5 = policy(CTS_TOL_ULP, "ulp:5");
    ulp4.ulps = 4;
    ulp5.ulps = 5;
    new_verdict(&v);
    assert_false(cts_check_tolerance(&ulp4, &vector_fp32, &o, &v));
    new_verdict(&v);
    assert_true(cts_check_tolerance(&ulp5, &vector_fp32, &o, &v));
}

/* Half-octave bins (x = m·2^e by hand): 1 = 2^0 closes bin (2^-1/2, 1]; 2 closes (2^1/2, 2];
 * 3 and 4 share (2^3/2, 4]; 5 is in (4, 2^5/2]; at most 2^-40 is bin 1; above 2^40 and
 * non-finite have their own bins. Bin numbers: 2 + (i + 79) for upper edge 2^(i/2). */
/* cts_stat_bin against MPFR: x is in bin 2 + (i + 79) for the least i with x^2 <= 2^i (exact
 * squares at 120 bits), clamped to bins 1 and 162; random doubles over the whole double range
 * (subnormals too) and the doubles around every edge 2^(i/2) (for odd i, M_SQRT2·2^k, the double
 * just above the edge, belongs to the bin above). */
static int mpfr_bin(double x)
{
    mpfr_t sq;
    mpfr_init2(sq, 120);
    mpfr_set_d(sq, x, MPFR_RNDN);
    mpfr_sqr(sq, sq, MPFR_RNDN); /* exact */
    long e = mpfr_get_exp(sq);   /* sq = f·2^e, f in [1/2, 1) */
    mpfr_mul_2si(sq, sq, -e + 1, MPFR_RNDN);
    long i = mpfr_cmp_ui(sq, 1) == 0 ? e - 1 : e;
    mpfr_clear(sq);
    return i <= -80 ? 1 : i > 80 ? 162 : (int)(i + 81);
}

static void check_bin(double x)
{
    if (cts_stat_bin(x) != mpfr_bin(x))
        fail_msg("bin of %a: %d, MPFR %d", x, cts_stat_bin(x), mpfr_bin(x));
}

static void test_stat_bins_against_mpfr(void **state)
{
    (void)state;
    uint64_t r = 0x9E3779B97F4A7C15ull;
    for (int n = 0; n < 200000; n++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        double x;
        uint64_t b = r & 0x7fffffffffffffffull;
        memcpy(&x, &b, sizeof x);
        if (!(x > 0) || isinf(x)) continue;
        check_bin(x);
    }
    for (int i = -84; i <= 84; i++) {
        double edge = i % 2 ? ldexp(M_SQRT2, (i - 1) / 2) : ldexp(1.0, i / 2);
        double x = nextafter(nextafter(edge, 0), 0);
        for (int k = 0; k < 5; k++, x = nextafter(x, INFINITY)) check_bin(x);
    }
}

static void test_stat_bins_and_quantile(void **state)
{
    (void)state;
    assert_int_equal(cts_stat_bin(0), 0);
    assert_int_equal(cts_stat_bin(0x1p-50), 1);
    assert_int_equal(cts_stat_bin(0x1p-40), 1);
    assert_int_equal(cts_stat_bin(0x1.000001p-40), 2);
    assert_int_equal(cts_stat_bin(1), 81);
    assert_int_equal(cts_stat_bin(0.75), 81);
    assert_int_equal(cts_stat_bin(0.7), 80);
    assert_int_equal(cts_stat_bin(1 + 0x1p-52), 82);
    assert_int_equal(cts_stat_bin(2), 83);
    assert_int_equal(cts_stat_bin(3), 85);
    assert_int_equal(cts_stat_bin(4), 85);
    assert_int_equal(cts_stat_bin(5), 86);
    assert_int_equal(cts_stat_bin(0x1p40), 161);
    assert_int_equal(cts_stat_bin(0x1.01p40), 162);
    assert_int_equal(cts_stat_bin(INFINITY), 163);
    assert_int_equal(cts_stat_bin(NAN), 163);
    assert_true(cts_stat_bin_upper(81) == 1 && cts_stat_bin_upper(85) == 4);
    assert_true(fabs(cts_stat_bin_upper(86) - 4 * M_SQRT2) < 1e-15);
    /* 100 elements: 98 zeros, one of 3 ULP, one of 5: p99 is the 99th value, 3, read as its
     * bin's upper edge 4 (<= sqrt(2)·3); p50 is 0; p100 is the maximum, 5, not the edge 5.66 */
    int64_t h[CTS_STAT_BINS] = {0};
    h[0] = 98;
    h[cts_stat_bin(3)]++;
    h[cts_stat_bin(5)]++;
    assert_true(cts_stat_quantile(h, 100, 5, 0.99) == 4);
    assert_true(cts_stat_quantile(h, 100, 5, 0.5) == 0);
    assert_true(cts_stat_quantile(h, 100, 5, 1.0) == 5);
    assert_true(isnan(cts_stat_quantile(h, 0, 0, 0.99)));
    /* grid codes round up by at most a quarter octave and keep 1 on the passing side */
    assert_true(cts_grid_value(cts_grid_code(1.0)) == 1.0);
    assert_true(cts_grid_value(cts_grid_code(1 + 0x1p-40)) > 1.0);
    assert_true(cts_grid_value(cts_grid_code(0)) == 0);
    assert_true(isinf(cts_grid_value(cts_grid_code(INFINITY))));
    double x = 0.3, c = cts_grid_value(cts_grid_code(x));
    assert_true(c >= x && c <= x * 1.1892071150027212); /* 2^(1/4) */
}

/* The audit statistics the tolerance check gathers, on the fixture under policy ulp:5 (so the
 * statistics do not come from a `bound` judgement by accident). got[0,1] = 1: 1 ULP, error
 * 2^-11 + 2^-26 ≈ 4.88e-4, relative ≈ 4.88e-4 (exact ≈ 1): within ascend-thousandth (1e-3)
 * and torch-default (1e-5 + 1e-3·|exact|), not ascend-ten-thousandth (1e-4). got[0,1] =
 * 1 - 2^-9: 5 ULP, error ≈ 2.44e-3: no standard accepts it. The three 0.5 elements are exact. */
static void test_element_statistics(void **state)
{
    (void)state;
    cts_tolerance ulp5 = policy(CTS_TOL_ULP, "ulp:5");
    ulp5.ulps = 5;
    const double gots[2] = {1.0, 1 - 0x1p-9};
    const int64_t meets[2][3] = {{4, 3, 4}, {3, 3, 3}};
    const double ulps[2] = {1, 5};
    for (int t = 0; t < 2; t++) {
        fixture f;
        make_fixture(&f, gots[t]);
        cts_judged_output o = judged(&f);
        cts_verdict v;
        new_verdict(&v);
        assert_true(cts_check_tolerance(&ulp5, &vector_fp32, &o, &v));
        const cts_elem_stats *e = &v.el;
        assert_int_equal(e->n, 4);
        assert_int_equal(e->skipped, 0);
        assert_true(e->sum[CTS_METRIC_ULP] == ulps[t] && e->max[CTS_METRIC_ULP] == ulps[t]);
        assert_true(e->max[CTS_METRIC_BOUND] == v.worst_bound_units);
        double err = 1 + 0x1p-11 + 0x1p-26 - gots[t];
        assert_true(fabs(e->max[CTS_METRIC_REL] - err / (1 + 0x1p-11 + 0x1p-26)) < 1e-18);
        for (int s = 0; s < CTS_STAT_STANDARDS; s++)
            assert_int_equal(e->meets[s], meets[t][s]);
        assert_int_equal(e->hist[CTS_METRIC_ULP][0], 3);
        assert_int_equal(e->hist[CTS_METRIC_ULP][cts_stat_bin(ulps[t])], 1);
        assert_int_equal(e->hist[CTS_METRIC_BOUND][0], 3);
        assert_int_equal(e->hist[CTS_METRIC_REL][0], 3);
    }
    /* an uncheckable element is counted as skipped, not judged */
    fixture f;
    make_fixture(&f, 1.0);
    f.flags[1] = REF_FLAG_UNCHECKABLE;
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    assert_true(cts_check_tolerance(&ulp5, &vector_fp32, &o, &v));
    assert_int_equal(v.el.n, 3);
    assert_int_equal(v.el.skipped, 1);
    assert_int_equal(v.el.meets[1], 3);
}

/* The error grid of the fixture's 2x2 plane (5-ULP element, about 5 bound units, at [0,1]):
 * coded quarter octaves round up, the exact elements are 0. */
static void test_error_grid(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 1 - 0x1p-9);
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    assert_false(cts_check_tolerance(&bound, &vector_fp32, &o, &v));
    cts_error_grid g;
    cts_error_grid_fill(&o, &vector_fp32, v.worst_index, &g);
    assert_string_equal(g.output, "grad_input");
    assert_true(g.h == 2 && g.w == 2 && g.plane == 0 && g.rows == 2 && g.cols == 2);
    assert_true(g.worst == v.worst_bound_units);
    double u = cts_grid_value(g.code[1]);
    assert_true(u >= g.worst && u <= g.worst * 1.1892071150027212);
    assert_true(g.code[0] == 0 && g.code[2] == 0 && g.code[3] == 0);
}

/* An output whose role holds pairs in its last dim (grid_grad (N, Ho, Wo, 2)) is mapped over
 * the two dims before it with each pair side by side: the fixture's 4 elements as (1, 1, 2, 2)
 * are a 1 x 4 plane with the 5-ULP element (index 1) in column 1; without the flag, 2 x 2. */
static void test_error_grid_pairs(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 1 - 0x1p-9);
    cts_judged_output o = judged(&f);
    const int64_t dims[4] = {1, 1, 2, 2};
    o.rank = 4;
    o.dims = dims;
    o.pairs = true;
    cts_verdict v;
    new_verdict(&v);
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    assert_false(cts_check_tolerance(&bound, &vector_fp32, &o, &v));
    cts_error_grid g;
    cts_error_grid_fill(&o, &vector_fp32, v.worst_index, &g);
    assert_true(g.h == 1 && g.w == 4 && g.rows == 1 && g.cols == 4);
    assert_true(g.code[1] != 0 && g.code[0] == 0 && g.code[2] == 0 && g.code[3] == 0);
    o.pairs = false;
    cts_error_grid_fill(&o, &vector_fp32, v.worst_index, &g);
    assert_true(g.h == 2 && g.w == 2);
}

/* An ambiguous element (e.g. a grid point on a cell edge) accepts each legal value exactly and
 * nothing in between, under ulp:0. */
static void test_ambiguous_accepts_both_alternatives(void **state)
{
    (void)state;
    fixture f;
    make_fixture(&f, 0.25);
    ref_value alts[2] = {value(0.25, 0, 0.25, 1), value(0.5, 0, 0.5, 1)};
    f.v[1] = alts[0];
    f.flags[1] = REF_FLAG_AMBIGUOUS;
    f.alt_first[1] = 0;
    f.alt_count[1] = 2;
    f.out.alts = alts;
    f.out.nalts = 2;
    cts_tolerance ulp0 = policy(CTS_TOL_ULP, "ulp:0");
    const double goods[] = {0.25, 0.5}, bad = 0.375;
    for (int i = 0; i < 2; i++) {
        f.got[1] = goods[i];
        cts_judged_output o = judged(&f);
        cts_verdict v;
        new_verdict(&v);
        assert_true(cts_check_tolerance(&ulp0, &vector_fp32, &o, &v));
        assert_true(v.worst_ulp == 0);
    }
    f.got[1] = bad;
    cts_judged_output o = judged(&f);
    cts_verdict v;
    new_verdict(&v);
    assert_false(cts_check_tolerance(&ulp0, &vector_fp32, &o, &v));
    f.flags[1] = 0; /* not marked: 0.5 is no longer legal */
    f.got[1] = 0.5;
    new_verdict(&v);
    assert_false(cts_check_tolerance(&ulp0, &vector_fp32, &o, &v));
}

/* NaN and infinities: got must have the exact value's class (IEEE propagation). */
static void test_nonfinite_class(void **state)
{
    (void)state;
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    ref_value nan_v = value(NAN, 0, INFINITY, 1), inf_v = value(INFINITY, 0, INFINITY, 1);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, NAN, &nan_v).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, 1.0, &nan_v).ok);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &inf_v).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, -INFINITY, &inf_v).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, NAN, &inf_v).ok);
    /* 70000 exceeds FP16's max 65504 by more than half a ULP (16): it rounds to +Inf. */
    ref_value big = value(70000, 0, 70000, 1);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &big).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, NAN, &big).ok);
    /* An exact NaN (inf − inf among the expanded terms) accepts ±inf: an algebraically equal
     * formula meets an infinity instead. A finite result is still wrong. */
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, -INFINITY, &nan_v).ok);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &nan_v).ok);
}

/* A finite exact value near the top of a narrow output dtype: a device's value before the
 * output's rounding, within its error E of the exact one, may reach the overflow threshold
 * (largest finite + half its ULP) though the exact value does not, and the result is then inf.
 * FP16, vector-fp32, exact 65504 of two terms (nops 1): E = γ(2)·S with γ(2) = 2u/(1 − 2u),
 * u = 2^-24, and the bound's share of E is bound − 2^-11·|hi| = (1 + 2^-11)·E + 2^-25 (the
 * underflow term 2·2^-150 aside); the threshold is 65504 + 16. S = 2^27: E = 16/(1 − 2^-23)
 * > 16, +inf legal (not -inf, not NaN); S = 2^27·(1 − 2^-10): (1 + 2^-11)·E ≈ 16·(1 − 2^-11)
 * < 16, inf FAILs, as for one term (S = 65504, E ≈ 2^-8). Found by tools/differential --corners
 * (seed 2005, g2614: grid_grad exact 65504, the emulated device's FP32 sum rounded to inf).
 * BF16 (threshold (2 − 2^-8)·2^127, half-ULP 2^119): exact BF16 max with a coordinate term
 * 2^120 reaches it; without one E = 2^-24·S ≈ 2^104 does not. */
static void test_output_range_rounds_to_inf(void **state)
{
    (void)state;
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    ref_value reach = value(65504, 0, 0x1p27, 2), near = value(65504, 0, 0x1p27 * (1 - 0x1p-10), 2);
    ref_value one = value(65504, 0, 65504, 1), neg = value(-65504, 0, 0x1p27, 2);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &reach).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, -INFINITY, &reach).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, NAN, &reach).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &near).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &one).ok);
    assert_true(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, -INFINITY, &neg).ok);
    assert_false(judge_value(&bound, REF_DT_FLOAT16, &vector_fp32, INFINITY, &neg).ok);
    const double bf16_max = 0x1.fep127;
    ref_value bf = value(bf16_max, 0, bf16_max, 1), bfc = bf;
    bfc.coord_err = 0x1p120;
    assert_false(judge_value(&bound, REF_DT_BF16, &vector_fp32, INFINITY, &bf).ok);
    assert_true(judge_value(&bound, REF_DT_BF16, &vector_fp32, INFINITY, &bfc).ok);
    /* the dump's rule (docs/dump.md rule 5) from (hi, lo, bound) alone, as tools/recheck-dump */
    double b = ref_bound(REF_DT_FLOAT16, &vector_fp32, &reach);
    assert_true(ref_bound_reaches_inf(REF_DT_FLOAT16, 65504, 0, b, INFINITY));
    assert_false(ref_bound_reaches_inf(REF_DT_FLOAT16, 65504, 0, b, 65504));
}

/* REF_FLAG_OPERAND_OVERFLOW: the path's operand rounding overflows (e.g. FP32 3e38 on FP16
 * cube operands), so +Inf is legal for that element and only for it. */
static void test_operand_overflow_allows_nonfinite(void **state)
{
    (void)state;
    cts_tolerance bound = policy(CTS_TOL_BOUND, "bound");
    ref_value v[2] = {value(8.5e37, 0, 8.5e37, 1), value(8.5e37, 0, 8.5e37, 1)};
    uint8_t flags[2] = {REF_FLAG_OPERAND_OVERFLOW, 0};
    ref_output out = {.numel = 2, .v = v, .flags = flags};
    assert_true(judge_element(&bound, REF_DT_FLOAT, &vector_fp32, INFINITY, &out, 0).ok);
    assert_false(judge_element(&bound, REF_DT_FLOAT, &vector_fp32, INFINITY, &out, 1).ok);
    assert_false(judge_element(&bound, REF_DT_FLOAT, &vector_fp32, 1.0, &out, 0).ok);
}

/* ascend-thousandth on FP16 (facts §5): relative error ≤ 1e-3 for ≥ 99.9 % of elements.
 * 1000 elements of exact 1.0; got 1 + 2^-9 has relative error 1.95e-3 > 1e-3. One such
 * element is 99.9 % within (pass), two are 99.8 % (fail). */
static void test_share_policy_at_99_9_percent(void **state)
{
    (void)state;
    enum { N = 1000 };
    static ref_value vals[N];
    static int64_t alt_first[N];
    static int32_t alt_count[N];
    static uint8_t flags[N];
    static double got[N];
    for (int k = 0; k < N; k++) {
        vals[k] = value(1.0, 0, 1.0, 1);
        alt_first[k] = -1;
        got[k] = 1.0;
    }
    ref_output out = {N, vals, flags, alt_first, alt_count, NULL, 0, NULL, NULL};
    int64_t dims[1] = {N};
    cts_judged_output o = {"grad_input", REF_DT_FLOAT16, 1, dims, N, got, &out, false};
    cts_tolerance share = policy(CTS_TOL_SHARE, "ascend-thousandth");
    cts_verdict v;
    got[10] = 1 + 0x1p-9;
    new_verdict(&v);
    assert_true(cts_check_tolerance(&share, &vector_fp32, &o, &v));
    got[20] = 1 + 0x1p-9;
    new_verdict(&v);
    assert_false(cts_check_tolerance(&share, &vector_fp32, &o, &v));
    assert_non_null(strstr(v.message, "99.8000 %"));
    /* Small values (|exact| < 2^-10) are judged by absolute error: exact 2^-12, got off by
     * 2^-21 (relative 2^-9 ≈ 2e-3) is within 1e-3 · 2^-10 ≈ 9.8e-7 > 2^-21 ≈ 4.8e-7. */
    got[20] = 1.0;
    vals[30] = value(0x1p-12, 0, 0x1p-12, 1);
    got[30] = 0x1p-12 + 0x1p-21;
    got[10] = 1.0;
    new_verdict(&v);
    assert_true(cts_check_tolerance(&share, &vector_fp32, &o, &v));
    assert_true(v.worst_rel > 1.9e-3);
}

/* torch-default for FP16 is rtol 1e-3, atol 1e-5 (facts §5): at exact 1.0 the limit is
 * 1.01e-3, so 1 + 2^-10 (9.77e-4 off) passes and 1 + 2^-9 (1.95e-3) fails. */
static void test_allclose_torch_default(void **state)
{
    (void)state;
    cts_tolerance named = policy(CTS_TOL_ALLCLOSE, "torch-default");
    cts_tolerance t = cts_tolerance_resolved(&named, REF_DT_FLOAT16);
    assert_true(t.rtol == 1e-3 && t.atol == 1e-5);
    ref_value one = value(1.0, 0, 1.0, 1);
    assert_true(judge_value(&t, REF_DT_FLOAT16, &vector_fp32, 1 + 0x1p-10, &one).ok);
    assert_false(judge_value(&t, REF_DT_FLOAT16, &vector_fp32, 1 + 0x1p-9, &one).ok);
}

static const cts_tensor out_tensor = {
    .name = "grad_input", .is_output = true, .rank = 2, .dims = {2, 3}, .has_strides = true,
    .strides = {4, 1}, .offset = 1, .dtype = REF_DT_FLOAT16, .format = REF_FMT_ND};

/* Output [2,3] with strides (4,1) and offset 1: storage elements 1,2,3 and 5,6,7 are the view,
 * 0 and 4 are gaps; 8 storage elements of 2 bytes between the guard zones. */
static void test_poison_and_guards(void **state)
{
    (void)state;
    cts_dev_tensor d;
    assert_int_equal(cts_dev_tensor_prepare(&d, &out_tensor, 2, NULL), 0);
    assert_int_equal(d.storage, 8);
    assert_int_equal(cts_dev_tensor_pos(&d, 4), 6); /* [1,1] → 1 + 4 + 1 */
    cts_verdict v;
    new_verdict(&v);
    assert_true(cts_check_poison(&d, "the call returned 161002", &v));
    assert_true(cts_check_guards(&d, &v));

    /* A write to element [1,1] breaks the poison of a failed call. */
    d.back[CTS_GUARD_BYTES + 6 * 2] ^= 1;
    assert_false(cts_check_poison(&d, "the call returned 161002", &v));
    assert_string_equal(v.check, "poison");
    assert_non_null(strstr(v.message, "element [1,1]"));
    assert_true(cts_check_guards(&d, &v) || strcmp(v.check, "poison") == 0);
    new_verdict(&v);
    assert_true(cts_check_guards(&d, &v)); /* inside the view: not a guard matter */
    d.back[CTS_GUARD_BYTES + 6 * 2] ^= 1;

    /* The gap at storage element 4 is outside the view. */
    d.back[CTS_GUARD_BYTES + 4 * 2 + 1] ^= 0x80;
    new_verdict(&v);
    assert_false(cts_check_guards(&d, &v));
    assert_string_equal(v.check, "guards");
    assert_non_null(strstr(v.message, "storage element 4, outside the view"));
    d.back[CTS_GUARD_BYTES + 4 * 2 + 1] ^= 0x80;

    /* One byte right after the data: the trailing guard zone. */
    d.back[CTS_GUARD_BYTES + 8 * 2] = (unsigned char)~d.back[CTS_GUARD_BYTES + 8 * 2];
    new_verdict(&v);
    assert_false(cts_check_guards(&d, &v));
    assert_non_null(strstr(v.message, "guard zone after the data, 0 bytes after it"));
    cts_dev_tensor_free(NULL, &d);
}

/* Inputs: the sent values are reread from the image (so the reference sees what the device
 * sees), and any change to the storage is named. 0.1 is not an FP16 value: it becomes
 * 1638/16384 = 0.0999755859375 (nearest FP16). */
static void test_input_unchanged(void **state)
{
    (void)state;
    cts_tensor t = {.name = "self", .rank = 1, .dims = {3}, .dtype = REF_DT_FLOAT16,
                    .format = REF_FMT_ND};
    double *vals = malloc(3 * sizeof *vals);
    vals[0] = 0.1, vals[1] = 1.0, vals[2] = -2.0;
    cts_dev_tensor d;
    assert_int_equal(cts_dev_tensor_prepare(&d, &t, 1, vals), 0);
    assert_true(d.values[0] == 0.0999755859375);
    memcpy(d.back, d.sent, d.bytes);
    cts_verdict v;
    new_verdict(&v);
    assert_true(cts_check_input_unchanged(&d, &v));
    d.back[CTS_GUARD_BYTES + 2 * 2 + 1] ^= 0x80; /* flip the sign of element [2] */
    assert_false(cts_check_input_unchanged(&d, &v));
    assert_string_equal(v.check, "inputs");
    assert_non_null(strstr(v.message, "element [2]"));
    assert_non_null(strstr(v.message, "sent -2, now 2"));
    cts_dev_tensor_free(NULL, &d);
}

/* Status: a mismatch is a FAIL naming both codes and the model's reason; a code the waiver
 * lists is WAIVED with the waiver's reason; an error status needs a message. */
static void test_status_and_waiver(void **state)
{
    (void)state;
    cts_case c;
    memset(&c, 0, sizeof c);
    cts_verdict v;
    new_verdict(&v);
    assert_true(cts_check_status(&c, 161002, 161002, "r", "msg", &v));
    assert_false(cts_check_status(&c, 161002, 161001, "cubeMathType 5 is out of range", "m", &v));
    assert_int_equal(v.status, CTS_FAIL);
    assert_non_null(strstr(v.message, "status 161001, expected 161002"));
    assert_non_null(strstr(v.message, "cubeMathType 5 is out of range"));
    c.waiver = "releases before 2026-01 return 161001";
    c.waiver_status[0] = 161001;
    c.nwaiver_status = 1;
    new_verdict(&v);
    assert_false(cts_check_status(&c, 161002, 161001, "r", "m", &v));
    assert_int_equal(v.status, CTS_WAIVED);
    assert_non_null(strstr(v.message, "releases before 2026-01"));
    new_verdict(&v);
    assert_false(cts_check_errmsg(161002, "", &v));
    assert_string_equal(v.check, "errmsg");
    assert_true(cts_check_errmsg(0, "", &v) && cts_check_errmsg(161002, "x", &v));
}

/* The first failure decides the verdict's check and message. */
static void test_first_failure_wins(void **state)
{
    (void)state;
    cts_verdict v;
    new_verdict(&v);
    cts_verdict_fail(&v, CTS_FAIL, "inputs", "first");
    cts_verdict_fail(&v, CTS_ERROR, "setup", "second");
    assert_int_equal(v.status, CTS_FAIL);
    assert_string_equal(v.check, "inputs");
    assert_string_equal(v.message, "first");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_ulp_passes_bound_and_ulp1),
        cmocka_unit_test(test_five_ulp_fails_bound_and_ulp4),
        cmocka_unit_test(test_ambiguous_accepts_both_alternatives),
        cmocka_unit_test(test_nonfinite_class),
        cmocka_unit_test(test_operand_overflow_allows_nonfinite),
        cmocka_unit_test(test_output_range_rounds_to_inf),
        cmocka_unit_test(test_share_policy_at_99_9_percent),
        cmocka_unit_test(test_allclose_torch_default),
        cmocka_unit_test(test_poison_and_guards),
        cmocka_unit_test(test_input_unchanged),
        cmocka_unit_test(test_status_and_waiver),
        cmocka_unit_test(test_first_failure_wins),
        cmocka_unit_test(test_equal_but_unrepresentable),
        cmocka_unit_test(test_stat_bins_and_quantile),
        cmocka_unit_test(test_stat_bins_against_mpfr),
        cmocka_unit_test(test_element_statistics),
        cmocka_unit_test(test_error_grid),
        cmocka_unit_test(test_error_grid_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

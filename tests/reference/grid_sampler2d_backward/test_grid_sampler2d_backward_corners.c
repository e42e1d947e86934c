/* The grid sampler oracle's corners: subnormal results, overflow classified in exact
 * arithmetic, a weight below the double-double's reach, intermediate overflow the path allows,
 * interval judgement. Every case runs on the fast path and on pure MPFR (both must give the same
 * answer). Expected values are derived by hand in each comment (exact rationals). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_grid_sampler2d_backward.h"
#include "same_output.h"

static ref_path vector(void) { return ref_grid_path(REF_DT_FLOAT); }

static void grid(const ref_grid_params *p, const double *go, const double *in, const double *gr,
                 int mpfr, ref_output *oi, ref_output *og)
{
    ref_options opt = {.force_mpfr = mpfr, .path = ref_grid_path(REF_DT_DOUBLE)};
    ref_options other = {.force_mpfr = !mpfr, .path = ref_grid_path(REF_DT_DOUBLE)};
    assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, &opt, oi, og), 0);
    ref_output bi, bg;
    assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, &other, oi ? &bi : NULL,
                                                 og ? &bg : NULL), 0);
    if (oi) {
        same_output(oi, &bi);
        ref_output_free(&bi);
    }
    if (og) {
        same_output(og, &bg);
        ref_output_free(&bg);
    }
}

/* Align corners, input 1×1×2×3, grid (5e-324, 0), grad 1.5: x: t = (x + 1)/2·2 = 1 + 2^-1074,
 * weight 2^-1074 on column 2; y: t = 1/2, weights 1/2 on rows 0 and 1. input_grad[r][2] =
 * 1.5·2^-1074·0.5 = 0.75·2^-1074, which rounds to 2^-1074 (above the half-way 2^-1075). */
static void grid_subnormal_result(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 3, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = 1.5, in[6] = {0}, gr[2] = {0x1p-1074, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, &go, in, gr, m, &oi, NULL);
        assert_true(oi.v[2].hi == 0x1p-1074);
        assert_true(oi.v[5].hi == 0x1p-1074);
        assert_true(oi.v[1].hi == 0.75); /* 0.75·(1 − 2^-1074) rounds to 0.75 */
        ref_output_free(&oi);
    }
}

/* Input [M, M; 0, 0] (M = DBL_MAX), grid (0, −1), grad 2, align corners: x: t = 1/2 (weights
 * 1/2, 1/2), y: t = 0 (row 0 weight 1). grid_grad x = (−M + M)·2·(1/2)·(1/2) = 0; y =
 * −(M/2 + M/2)·2·(1/2) = −M. Both finite and exact; the intermediates overflow double: RANGE. */
static void grid_overflow_classified_exactly(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 2, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = 2, in[4] = {DBL_MAX, DBL_MAX, 0, 0}, gr[2] = {0, -1};
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(&p, &go, in, gr, m, NULL, &og);
        assert_true(og.v[0].hi == 0 && og.v[1].hi == -DBL_MAX);
        assert_false(og.flags[0] & REF_FLAG_NONFINITE);
        assert_false(og.flags[1] & REF_FLAG_NONFINITE);
        assert_true(og.flags[1] & REF_FLAG_RANGE);
        ref_output_free(&og);
    }
}

/* A weight beyond the double-double: align corners, input 1×1×2×1, grid (0, 5e-324), grad 3.
 * x: W = 1, t = 0, weight 1 on column 0; y: t = (1 + 2^-1074)/2 = 1/2 + 2^-1075, weights
 * 1/2 − 2^-1075 (row 0) and 1/2 + 2^-1075 (row 1). input_grad = 3/2 ∓ 1.5·2^-1074: hi 1.5 both,
 * exact − hi = ∓1.5·2^-1074, representable in sign (above half the smallest subnormal), so lo < 0
 * on row 0 and lo > 0 on row 1. The old fast path took the weights as 1/2 + 0 (2^-1075 rounds
 * to 0 as a double) and said lo = 0 for both, unlike pure MPFR. */
static void grid_weight_below_subnormals(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 1, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = 3, in[2] = {0}, gr[2] = {0, 0x1p-1074};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, &go, in, gr, m, &oi, NULL);
        assert_true(oi.v[0].hi == 1.5 && oi.v[0].lo < 0);
        assert_true(oi.v[1].hi == 1.5 && oi.v[1].lo > 0);
        ref_output_free(&oi);
    }
}

/* A zero weight times an overflowing val·g: border, not align, input [1, 3; M, M] (M =
 * DBL_MAX), grid (0, −2), grad 2. x: t = ((0 + 1)·2 − 1)/2 = 1/2, weights 1/2, 1/2, factor W/2
 * = 1; y: t = ((−2 + 1)·2 − 1)/2 = −3/2 clips to 0 for every coordinate nearby (no coordinate
 * error term): row 0 weight 1, row 1 weight 0, gradient multiplier 0. grid_grad x = (−1 + 3)·2
 * = 4 (row 1 adds (−M + M)·2·0 = 0), y = 0. Its bound is finite and at least the output
 * rounding; the old Σ|terms| took (M·2)·0 = NaN, a NaN bound that failed every device. */
static void grid_zero_weight_overflowing_product(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 2, .h_out = 1, .w_out = 1,
                         .padding = REF_PAD_BORDER};
    double go = 2, in[4] = {1, 3, DBL_MAX, DBL_MAX}, gr[2] = {0, -2};
    ref_path path = ref_grid_path(REF_DT_DOUBLE);
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(&p, &go, in, gr, m, NULL, &og);
        assert_true(og.v[0].hi == 4 && og.v[0].lo == 0 && og.v[1].hi == 0);
        double b = ref_bound(REF_DT_DOUBLE, &path, &og.v[0]);
        assert_true(isfinite(b) && b >= 4 * 0x1p-53);
        ref_output_free(&og);
    }
}

/* Gradients near the top of the double range whose underflow magnifications sum past it:
 * DOUBLE, 1×2 input, not align, two points at (0, 0): x: c = ((0 + 1)·2 − 1)/2 = 1/2, weights
 * 1/2 and 1/2; y: c = 0 on the single row, weight 1. g = 2^1023 at both: each column receives
 * 2^1022 twice, exactly 2^1023 (Σ|terms| too). under_mag (Σ max(1, |g|) = 2^1024) overflowed
 * as a double, so the bound was inf and every finite answer passed (regression case
 * zero_weight_overflowing_product: 3 such elements); scaled by REF_UNDER_SCALE it is finite:
 * the bound is u·2^1023 + γ(3)·2^1023 + an underflow term of ~2^-48, between 2^970 and
 * 2^975. Fast path and MPFR alike (grid checks both). */
static void grid_underflow_magnification_past_range(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 2};
    double go[2] = {0x1p1023, 0x1p1023}, in[2] = {1, 2}, gr[4] = {0, 0, 0, 0};
    ref_path path = ref_grid_path(REF_DT_DOUBLE);
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, go, in, gr, m, &oi, NULL);
        for (int k = 0; k < 2; k++) {
            assert_true(oi.v[k].hi == 0x1p1023 && oi.v[k].lo == 0);
            double b = ref_bound(REF_DT_DOUBLE, &path, &oi.v[k]);
            assert_true(b >= 0x1p970 && b <= 0x1p975);
        }
        ref_output_free(&oi);
    }
}

/* Σ|terms| past the double range, DOUBLE path: input [1, 2] (H = 1, W = 2), align corners, np
 * points at (0, 0): x = 1/2, weights 1/2 on both columns, row weight 1, x factor (W − 1)/2 =
 * 1/2. M = DBL_MAX ≈ 2^1024, u = 2^-53, k = nops + n − 1 roundings (nops 4), γ(k) ≈ k·u; the
 * bound is u·|hi| + γ(k)·Σ|terms| (+ terms far below: a relative 2^-30 covers them).
 * - g = (M, M): input_grad = M/2 + M/2 = M, Σ = M, k = 5: u·M + 5u·M = 6·2^971.
 * - g = (M, M, −M): input_grad = M/2, Σ = 3M/2, k = 6: u·M/2 + 9u·M = 9.5·2^971.
 * - grid_grad x of each point: g·(2 − 1)·1·(1/2) = M/2 (g = ±M), Σ = (1 + 2)·M/2, k = 5:
 *   2^970 + 7.5·2^971 = 2^974.
 * Σ|terms| summed in double overflowed to inf: every bound was infinite, any finite answer
 * passed. */
static void grid_sum_abs_past_double_range(void **state)
{
    (void)state;
    double M = DBL_MAX, in[2] = {1, 2}, gr[6] = {0};
    double go[2][3] = {{M, M}, {M, M, -M}};
    double ig_hi[2] = {M, M / 2}, ig_bound[2] = {0x1.8p973, 0x1.3p974};
    ref_path path = ref_grid_path(REF_DT_DOUBLE);
    for (int c = 0; c < 2; c++)
        for (int m = 0; m < 2; m++) {
            int np = 2 + c;
            ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = np,
                                 .align_corners = true};
            ref_output oi, og;
            grid(&p, go[c], in, gr, m, &oi, &og);
            for (int k = 0; k < 2; k++) {
                assert_true(oi.v[k].hi == ig_hi[c] && oi.v[k].lo == 0);
                double b = ref_bound(REF_DT_DOUBLE, &path, &oi.v[k]);
                assert_true(b >= ig_bound[c] * (1 - 0x1p-30) && b <= ig_bound[c] * (1 + 0x1p-30));
            }
            for (int pt = 0; pt < np; pt++) {
                const ref_value *x = &og.v[2 * pt];
                assert_true(fabs(x->hi) == M / 2 && x->lo == 0);
                double b = ref_bound(REF_DT_DOUBLE, &path, x);
                assert_true(b >= 0x1p974 * (1 - 0x1p-30) && b <= 0x1p974 * (1 + 0x1p-30));
            }
            ref_output_free(&oi);
            ref_output_free(&og);
        }
}

/* The same three points under bicubic: Keys' weights (A = −3/4) at t = 1/2 are w(1/2) = 19/32
 * on columns 0 and 1 (the taps at −1 and 2 fall outside), w(0) = 1 on row 0, so input_grad =
 * (19/32)·M on both columns and Σ|terms| = 3·(19/32)·M = 1.78125·M: held as 1.78125·2^960 in
 * units of 2^64, and the bound finite (it was inf). */
static void bicubic_sum_abs_past_double_range(void **state)
{
    (void)state;
    double M = DBL_MAX, in[2] = {1, 2}, gr[6] = {0}, go[3] = {M, M, -M};
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 3,
                         .align_corners = true, .interpolation = REF_INTERP_BICUBIC};
    ref_path path = ref_grid_path(REF_DT_DOUBLE);
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, go, in, gr, m, &oi, NULL);
        for (int k = 0; k < 2; k++) {
            const ref_value *v = &oi.v[k];
            assert_true(v->hi == 0.59375 * M);
            assert_int_equal(v->sum_exp, REF_SUM_EXP);
            assert_true(v->sum_abs >= 0x1.c8p960 && v->sum_abs <= 0x1.c8p960 * (1 + 0x1p-40));
            assert_true(ref_bound(REF_DT_DOUBLE, &path, v) < 0x1p981);
        }
        ref_output_free(&oi);
    }
}

/* Bicubic grid_grad x of one point at x = 1/2 (t = 1/2, row weight 1, factor 1/2) over two
 * channels of input [1/2, 1] with gradients M: Keys' derivatives at t = 1/2 are −21/16 (column
 * 0) and 21/16 (column 1), so each channel gives M·(1/2)·(21/16)·(1 − 1/2) and grid_grad x =
 * (21/32)·M, while Σ|terms| = 2·M·(1/2)·(21/16)·(1/2 + 1) = 1.96875·M: past the range (no
 * partial product overflows: |val·g| ≤ M), held as 1.96875·2^960, the bound finite (was inf). */
static void bicubic_grid_grad_sum_past_double_range(void **state)
{
    (void)state;
    double M = DBL_MAX, in[4] = {0.5, 1, 0.5, 1}, gr[2] = {0, 0}, go[2] = {M, M};
    ref_grid_params p = {.n = 1, .c = 2, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 1,
                         .align_corners = true, .interpolation = REF_INTERP_BICUBIC};
    ref_path path = ref_grid_path(REF_DT_DOUBLE);
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(&p, go, in, gr, m, NULL, &og);
        const ref_value *v = &og.v[0];
        assert_true(v->hi == 0.65625 * M);
        assert_int_equal(v->sum_exp, REF_SUM_EXP);
        assert_true(v->sum_abs >= 0x1.f8p960 && v->sum_abs <= 0x1.f8p960 * (1 + 0x1p-40));
        assert_true(ref_bound(REF_DT_DOUBLE, &path, v) < 0x1p1000);
        ref_output_free(&og);
    }
}

/* grid_grad[0] (one point) is of the class −inf and unjudged, on both paths. */
static void class_unjudged(const ref_grid_params *p, const double *go, const double *in,
                           const double *gr)
{
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(p, go, in, gr, m, NULL, &og);
        assert_true(og.v[0].hi == -INFINITY);
        assert_true(og.flags[0] & REF_FLAG_NONFINITE);
        assert_true(og.flags[0] & REF_FLAG_UNCHECKABLE);
        ref_output_free(&og);
    }
}

/* A non-finite element whose other branch is any double (tools/differential --corners seed
 * 6005, g941, reduced): DOUBLE, zeros, not align, input 4×1 column [0, −inf, 1, M] (M =
 * DBL_MAX), one point (x, y) = (−1 + 3·2^-52, 1/4 − 2^-54), g = M; x's taps: column 0 only
 * (factor 1/2). Exactly, y's c = 2y + 3/2 = 2 − 2^-53: rows 1 and 2, row 1's weight 2^-53 on
 * −inf: grid_grad x is −inf. A device's y + 1 rounds to 5/4, c = 2: rows 2 and 3, row 3's
 * weight 0 there (exactly −2^-53): that branch's exact value (1 + 2^-53 − 2^-53·M)·M/2 is past
 * the range while the device's is M/2 (weights 1, 0), or NaN (M·M first). The class −inf was
 * demanded and such a device FAILed; the element is unjudged now. */
static void nonfinite_beside_any_double(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 4, .w_in = 1, .h_out = 1, .w_out = 1};
    double M = DBL_MAX, go = M, in[4] = {0, -INFINITY, 1, M};
    double gr[2] = {-1 + 0x3p-52, 0.25 - 0x1p-54};
    class_unjudged(&p, &go, in, gr);
}

/* DOUBLE, zeros, not align, input 1×1×2×3 rows [inf, M, −3] and [0, −M, 0] (M = DBL_MAX),
 * g = M, grid (x, y) = (−3·2^-1074, 0) (tools/differential --corners seed 6202, g4624,
 * reduced). y: t = y + 1/2 = 1/2 exactly, weights 1/2 on both rows. x: t = ((x + 1)·3 − 1)/2 =
 * 1 − 4.5·2^-1074, columns 0 and 1: grid_grad x = g·(3/2)·Σ_rows (1/2)·(val[1] − val[0]) =
 * M·(3/2)·(1/2)·((M − inf) + (−M − 0)) = −inf, a class. A device rounds x + 1 to 1, so t = 1
 * and it takes columns 1 and 2: exactly M·(3/2)·(1/2)·((−3 − M) + M), finite past the range,
 * which a device answers 0 ((−3 − M) rounds to −M) or NaN (M·M first). That branch's value is
 * ±inf with lo 0 like the class, so the two merged and −inf was demanded: now unjudged. */
static void nonfinite_beside_finite_past_range(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 3, .h_out = 1, .w_out = 1};
    double M = DBL_MAX, go = M, in[6] = {INFINITY, M, -3, 0, -M, 0};
    double gr[2] = {-0x3p-1074, 0};
    class_unjudged(&p, &go, in, gr);
}

/* DOUBLE, align corners, input 1×1×1×2, grid (−1, 0), g = −1: x: t = (x + 1)/2·1 = 0 exactly, so
 * column 0 gets weight 1 and column 1 weight exactly 0 (H = 1: row 0, weight 1). input_grad =
 * [−1, 0]: element 1's only term is −1·0, an exact zero; both paths must give the same zero. */
static void zero_weight_term_sign(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = -1, in[2] = {0}, gr[2] = {-1, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, &go, in, gr, m, &oi, NULL);
        assert_true(oi.v[0].hi == -1);
        assert_true(oi.v[1].hi == 0);
        ref_output_free(&oi);
    }
}

/* An element past the double range that an unresolved point also reaches (tools/differential
 * seed 6112, g4381, reduced; bicubic's twin is beyond_range_with_unresolved_point): DOUBLE,
 * reflection, not align, input 1×1×1×2. Points B and C at x = −1/2: t = ((x + 1)·2 − 1)/2 = 0
 * exactly, weight 1 on column 0 and 0 on column 1, each with g = M = DBL_MAX: column 0 gets 2M,
 * past the range by M (lo > 0, M held in 32 bits: +inf; every device overflows). Point A at x = 10^17 (g = 1) has an
 * unknown fold and reaches either column by at most 1. Column 0 was flagged INTERVAL around
 * hi = +inf (the dump's [inf, inf]); it is judged +inf now, column 1 in [0, 1] by interval. */
static void beyond_range_with_unresolved_point_bilinear(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 3,
                         .padding = REF_PAD_REFLECTION};
    double go[3] = {1, DBL_MAX, DBL_MAX}, in[2] = {1, 2}, gr[6] = {1e17, 0, -0.5, 0, -0.5, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, go, in, gr, m, &oi, NULL);
        assert_true(oi.v[0].hi == INFINITY && oi.v[0].lo > 0);
        assert_int_equal(oi.flags[0] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), 0);
        assert_true(oi.v[1].hi == 0 && (oi.flags[1] & REF_FLAG_INTERVAL));
        ref_output_free(&oi);
    }
}

/* FP32 path: input [F, F] (F = FLT_MAX), W = 1, align corners: the x factor (W − 1)/2 is 0, so
 * grid_grad x is exactly 0, yet val·g = 2F overflows FP32 first (inf·0 = NaN): RANGE. */
static void grid_fp32_overflow_times_zero_scale(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 1, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = 2, in[2] = {FLT_MAX, FLT_MAX}, gr[2] = {0.25, 0.5};
    ref_options opt = {.path = ref_grid_path(REF_DT_FLOAT)};
    ref_output og;
    assert_int_equal(ref_grid_sampler2d_backward(&p, &go, in, gr, &opt, NULL, &og), 0);
    assert_true(og.v[0].hi == 0);
    assert_true(og.flags[0] & REF_FLAG_RANGE);
    ref_output_free(&og);
}

/* Interval judgement, FP32 path, reflection, H = 1, W = 2, not align, y = 0 (t = 0 on the only
 * row). Point A at x = 1e8 (FP32 coordinate error of dozens of cells: branch unknown), g = −1/4;
 * point B at x = −1/2: t = ((1/2)·2 − 1)/2 = 0 exactly, all weight on column 0, g = 3. Element 0
 * is B's 3 plus A's unknown share of −1/4: [3 − 1/4, 3]; element 1 gets 0 from B (weight 0) and
 * [−1/4, 0] from A. Both judged by interval, none unjudged. */
static void far_point_interval(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 2,
                         .padding = REF_PAD_REFLECTION};
    double go[2] = {-0.25, 3}, in[2] = {0}, gr[4] = {1e8, 0, -0.5, 0};
    for (int m = 0; m < 2; m++) {
        ref_options opt = {.force_mpfr = m, .path = vector()};
        ref_output oi;
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &opt, &oi, NULL), 0);
        for (int e = 0; e < 2; e++) {
            assert_true(oi.flags[e] & REF_FLAG_INTERVAL);
            assert_false(oi.flags[e] & REF_FLAG_UNCHECKABLE);
            assert_true(oi.ival[2 * e + 1] == 0);
            assert_true(oi.ival[2 * e] <= -0.25 && oi.ival[2 * e] >= -0.25 * (1 + 0x1p-40));
        }
        assert_true(oi.v[0].hi == 3 && oi.v[1].hi == 0);
        assert_true(oi.v[0].sum_abs >= 3.25); /* the uncertain |g| is in the bound */
        ref_output_free(&oi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grid_subnormal_result),
        cmocka_unit_test(grid_overflow_classified_exactly),
        cmocka_unit_test(grid_weight_below_subnormals),
        cmocka_unit_test(grid_zero_weight_overflowing_product),
        cmocka_unit_test(grid_underflow_magnification_past_range),
        cmocka_unit_test(grid_sum_abs_past_double_range),
        cmocka_unit_test(bicubic_sum_abs_past_double_range),
        cmocka_unit_test(bicubic_grid_grad_sum_past_double_range),
        cmocka_unit_test(nonfinite_beside_any_double),
        cmocka_unit_test(nonfinite_beside_finite_past_range),
        cmocka_unit_test(zero_weight_term_sign),
        cmocka_unit_test(beyond_range_with_unresolved_point_bilinear),
        cmocka_unit_test(grid_fp32_overflow_times_zero_scale),
        cmocka_unit_test(far_point_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

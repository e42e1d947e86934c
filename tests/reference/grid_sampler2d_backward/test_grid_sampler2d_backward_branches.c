/* The grid sampler oracle where a grid point sits within the device's coordinate error of a
 * cell edge and the branches differ at the edges of the extended reals: a non-finite factor on
 * a weight a device may have 0 (or a corner its branch misses), an alternative's class taken
 * from its own branch's weights, two branches of one value keeping the larger bound, and a
 * subnormal weight product scaled by a huge gradient. Every case runs on the fast path and on
 * pure MPFR (both must agree); the expected values are derived by hand in each comment.
 *
 * The geometry shared by the first three: align corners, input 1×C×H×3, FP32 path (u = 2^-24),
 * grid x = 2^-30: t = (x + 1)/2·2 = 1 + 2^-30. δ = 2u·M, M = (|x| + 1)·3 + 1 ≈ 4: 2^-21, so the
 * point is within δ of the lattice point 1: the primary branch floor = 1 (columns 1, 2, weights
 * 1 − 2^-30 and 2^-30) and the branch from below floor = 0 (columns 0, 1, exact weights −2^-30
 * and 1 + 2^-30; a device there has c' ∈ [1 − δ, 1), weights in [0, δ] and (1 − δ, 1]). */
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

static void grid(const ref_grid_params *p, const double *go, const double *in, const double *gr,
                 ref_dtype path, int mpfr, ref_output *oi, ref_output *og)
{
    ref_options opt = {.force_mpfr = mpfr, .path = ref_grid_path(path)};
    ref_options other = {.force_mpfr = !mpfr, .path = ref_grid_path(path)};
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

static const ref_grid_params two_rows = {.n = 1, .c = 1, .h_in = 2, .w_in = 3, .h_out = 1,
                                         .w_out = 1, .align_corners = true};

/* Input 2×3, grid (2^-30, 0) (y: t = 1/2, rows 0 and 1 weight 1/2), gradOutput +inf.
 * input_grad column 1 (both rows): +inf·(1 − 2^-30)·1/2 on the primary, +inf·(~1)·1/2 on the
 * other branch: +inf, judged. Column 2: exact +inf·2^-30·1/2 = +inf, but a device at c' = 1 has
 * weight 0 there (NaN) and the other branch no term (0): unjudged. Column 0: exact 0 (the
 * primary does not reach it), but the other branch adds +inf·w, w ∈ [0, δ] (NaN or +inf):
 * unjudged. Before, columns 0 and 2 were judged against 0 and +inf alone. */
static void nonfinite_g_on_vanishing_weight(void **state)
{
    (void)state;
    double go = INFINITY, in[6] = {1, 2, 3, 4, 5, 6}, gr[2] = {0x1p-30, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&two_rows, &go, in, gr, REF_DT_FLOAT, m, &oi, NULL);
        for (int r = 0; r < 2; r++) {
            assert_true(oi.v[3 * r + 1].hi == INFINITY);
            assert_true(oi.flags[3 * r + 1] & REF_FLAG_NONFINITE);
            assert_false(oi.flags[3 * r + 1] & REF_FLAG_UNCHECKABLE);
            assert_true(oi.flags[3 * r + 0] & REF_FLAG_UNCHECKABLE);
            assert_true(oi.flags[3 * r + 2] & REF_FLAG_UNCHECKABLE);
        }
        ref_output_free(&oi);
    }
}

/* Input [[inf, 1, 2], [0, 3, 5]], grid (2^-30, 0), gradOutput 1. grid_grad y (scale (2 − 1)/2 =
 * 1/2, terms ±val·g·wx by row): the primary, columns 1 and 2: 1/2·(−(1 − ε)·1 − ε·2 + (1 − ε)·3
 * + ε·5) = 1/2·(2 + ε) = 1 + 2^-31 (ε = 2^-30), finite. The branch from below reaches column 0:
 * −inf·1·w0·1/2 with the device's w0 ∈ [0, δ]: −inf, or NaN at w0 = 0. Before, the alternative
 * took the exact w0 = −2^-30 (+inf) and its range flag was dropped: a device's −inf or NaN
 * failed. */
static void alternative_class_from_its_weights(void **state)
{
    (void)state;
    double go = 1, in[6] = {INFINITY, 1, 2, 0, 3, 5}, gr[2] = {0x1p-30, 0};
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(&two_rows, &go, in, gr, REF_DT_FLOAT, m, NULL, &og);
        assert_true(og.v[1].hi == 1 + 0x1p-31);
        assert_true(og.flags[1] & REF_FLAG_AMBIGUOUS);
        assert_true(og.flags[1] & REF_FLAG_RANGE); /* NaN (and −inf) legal */
        bool minus_inf = false;
        for (int32_t i = 0; i < og.alt_count[1]; i++) {
            double a = og.alts[og.alt_first[1] + i].hi;
            assert_true(a != INFINITY);
            minus_inf = minus_inf || a == -INFINITY;
        }
        assert_true(minus_inf);
        ref_output_free(&og);
    }
}

/* Two channels, input ch0 = ch1 = [M, 0, 0] (M = FLT_MAX, one row: H = 1, y = 0, weight 1),
 * gradOutput (1, −1), grid (2^-30, 0). grid_grad x (scale (3 − 1)/2 = 1): the primary, columns 1
 * and 2: Σ_c g_c·(0 − 0) = 0 with no term; the branch from below, columns 0 and 1:
 * 1·(0 − M) + (−1)·(0 − M) = 0 too, from terms of 2M in all (a device's FP32 sum of −M and +M
 * lands within that bound, not exactly 0 on every device). Both are the value 0: the one legal
 * value keeps the larger Σ|terms|. Before, the primary's 0 kept Σ|terms| = 0. */
static void equal_values_keep_larger_bound(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 2, .h_in = 1, .w_in = 3, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    const double M = FLT_MAX;
    double go[2] = {1, -1}, in[6] = {M, 0, 0, M, 0, 0}, gr[2] = {0x1p-30, 0};
    for (int m = 0; m < 2; m++) {
        ref_output og;
        grid(&p, go, in, gr, REF_DT_FLOAT, m, NULL, &og);
        assert_true(og.v[0].hi == 0);
        assert_true(og.v[0].sum_abs >= 2 * M);
        ref_output_free(&og);
    }
}

/* A subnormal weight product scaled by a huge gradient. Align corners, input 1×1×3×3, DOUBLE
 * path, grid x = −6·2^-1074: t = 1 − 6·2^-1074, floor 0, weights 6·2^-1074 (column 0) and
 * 1 − 6·2^-1074 (column 1); grid y = −0.625: t = 0.375, weights 0.625 (row 0), 0.375 (row 1);
 * gradOutput 2^1000. input_grad[0][0] = 2^1000·6·2^-1074·0.625 = 3.75·2^-74 = 15·2^-76,
 * input_grad[1][0] = 2^1000·6·2^-1074·0.375 = 2.25·2^-74 = 9·2^-76, both exact doubles. The
 * double-double weight product rounds 3.75·2^-1074 to 4·2^-1074 and loses its low word below the
 * subnormals; scaled by 2^1000 that was 4·2^-74 and 2·2^-74 on the fast path before. */
static void subnormal_weight_product(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 3, .w_in = 3, .h_out = 1, .w_out = 1,
                         .align_corners = true};
    double go = 0x1p1000, in[9] = {0}, gr[2] = {-6 * 0x1p-1074, -0.625};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, &go, in, gr, REF_DT_DOUBLE, m, &oi, NULL);
        assert_true(oi.v[0].hi == 15 * 0x1p-76 && oi.v[0].lo == 0);
        assert_true(oi.v[3].hi == 9 * 0x1p-76 && oi.v[3].lo == 0);
        ref_output_free(&oi);
    }
}

/* lo's sign where exact − hi is below the subnormals. Align corners, input 1×1×1×3 (one row,
 * weight 1), DOUBLE path; point A at x = 0 (t = 1: column 1, weight 1) with gradOutput 1, point
 * B at x = −1/2 + 2^-50 (t = 1/2 + 2^-50: column 0 weight 1/2 − 2^-50, column 1 1/2 + 2^-50)
 * with gradOutput 2^-1074. input_grad[1] = 1 + 2^-1075·(1 + 2^-49): hi = 1, exact − hi just
 * above half the smallest subnormal; input_grad[0] = 2^-1075·(1 − 2^-49): hi = 0. Rounded to
 * 32 bits both differences are 2^-1075, a tie a double rounds to 0: lo was 0 (read as "hi is
 * exact", so a dtype whose midpoint hi is would round to even), now ±2^-1074 with the sign of
 * exact − hi. */
static void lo_below_subnormals(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 3, .h_out = 1, .w_out = 2,
                         .align_corners = true};
    double go[2] = {1, 0x1p-1074}, in[3] = {0}, gr[4] = {0, 0, -0.5 + 0x1p-50, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, go, in, gr, REF_DT_DOUBLE, m, &oi, NULL);
        assert_true(oi.v[1].hi == 1 && oi.v[1].lo == 0x1p-1074);
        assert_true(oi.v[0].hi == 0 && oi.v[0].lo == 0x1p-1074);
        ref_output_free(&oi);
    }
}

/* A finite exact value past the double range. Input 1×1×1×1 (no align: t = x/2), DOUBLE path,
 * three points at (0, 0): t = 0, weight 1 on the one element, so input_grad[0] = Σ g. With g =
 * (DBL_MAX, 2^970, 1) it is DBL_MAX + 2^970 + 1, just past the midpoint to 2^1024: hi = +inf,
 * but a device's sum may stop at DBL_MAX, 2^970 + 1 away, within its rounding error (Σ|terms|
 * is past the range too): no (hi, lo) says which finite doubles are legal, so the element is
 * unjudged (before: +inf with REF_FLAG_RANGE alone, a device's DBL_MAX failed). With g =
 * (DBL_MAX, DBL_MAX, 0) it is 2·DBL_MAX, a DBL_MAX past the range, far beyond any rounding
 * error: every device overflows, +inf stands, judged. */
static void finite_past_double_range(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 1, .h_out = 1, .w_out = 3};
    double in[1] = {0}, gr[6] = {0};
    const double gs[2][3] = {{DBL_MAX, 0x1p970, 1}, {DBL_MAX, DBL_MAX, 0}};
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 2; k++) {
            ref_output oi;
            grid(&p, gs[k], in, gr, REF_DT_DOUBLE, m, &oi, NULL);
            assert_true(oi.v[0].hi == INFINITY);
            assert_false(oi.flags[0] & REF_FLAG_NONFINITE);
            assert_true(oi.flags[0] & REF_FLAG_RANGE);
            assert_true(!(oi.flags[0] & REF_FLAG_UNCHECKABLE) == (k == 1));
            ref_output_free(&oi);
        }
}

/* A sum just inside FP32's range that a device's rounding may carry past it. Align corners,
 * input 1×1×1×2 (t = (x + 1)/2, exact here: no coordinate error), FP32 path; point A at x = 1 −
 * 2^-10 (t = 1 − 2^-11: column 1 weight 1 − 2^-11, column 0 2^-11), point B at x = −1 + 2^-10
 * (column 1 weight 2^-11, column 0 1 − 2^-11), both with gradOutput FLT_MAX: each element is
 * exactly FLT_MAX = Σ|terms|, but FLT_MAX·(1 − 2^-11) = (2^24 − 1)·(2^11 − 1)·2^93 has 35
 * significant bits: a device rounds that term up by up to half an ULP (2^103), and its sum with
 * the other term then passes FLT_MAX + 2^103: +inf is legal, REF_FLAG_RANGE (before: unset, as
 * Σ|terms| alone is inside the range). */
static void sum_near_fp32_max(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 2, .h_out = 1, .w_out = 2,
                         .align_corners = true};
    double go[2] = {FLT_MAX, FLT_MAX}, in[2] = {0}, gr[4] = {1 - 0x1p-10, 0, -1 + 0x1p-10, 0};
    for (int m = 0; m < 2; m++) {
        ref_output oi;
        grid(&p, go, in, gr, REF_DT_FLOAT, m, &oi, NULL);
        for (int e = 0; e < 2; e++) {
            assert_true(oi.v[e].hi == FLT_MAX && oi.v[e].lo == 0);
            assert_true(oi.flags[e] & REF_FLAG_RANGE);
        }
        ref_output_free(&oi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nonfinite_g_on_vanishing_weight),
        cmocka_unit_test(alternative_class_from_its_weights),
        cmocka_unit_test(equal_values_keep_larger_bound),
        cmocka_unit_test(subnormal_weight_product),
        cmocka_unit_test(lo_below_subnormals),
        cmocka_unit_test(finite_past_double_range),
        cmocka_unit_test(sum_near_fp32_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

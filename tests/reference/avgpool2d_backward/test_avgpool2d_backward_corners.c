/* The avg-pool oracle's corners: divisors beyond 2^53, overflow classified in exact arithmetic,
 * intermediate overflow the path allows, kernels far larger than the input, a cube weight that
 * rounds to zero. Every case runs on the fast path and on pure MPFR (both must give the same
 * answer). Expected values are derived by hand in each comment (exact rationals; a correctly
 * rounded IEEE division of two exact doubles is used where the comment says so). */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"
#include "reference_grid_sampler2d_backward.h"
#include "same_output.h"

/* Runs avg-pool on the fast path (mpfr = 0) or pure MPFR (mpfr = 1), checking the other one
 * gives the same bits. */
static void pool(const ref_avgpool_params *p, const double *g, int mpfr, ref_path path,
                 ref_output *o)
{
    ref_options opt = {.force_mpfr = mpfr, .path = path}, other = {.force_mpfr = !mpfr, .path = path};
    ref_output b;
    assert_int_equal(ref_avgpool2d_backward(p, g, &opt, o), 0);
    assert_int_equal(ref_avgpool2d_backward(p, g, &other, &b), 0);
    same_output(o, &b);
    ref_output_free(&b);
}

static ref_path vector(void) { return ref_grid_path(REF_DT_FLOAT); }

/* divisorOverride 2^53+1, grad 1: 1/(2^53+1) = 2^-53·(1 − 2^-53 + 2^-106 − …), the nearest
 * double is 2^-53 − 2^-106 (the rest, ≈2^-159, is far below half its ULP 2^-107); lo < 0. */
static void divisor_beyond_2_53(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 1, .oh = 1, .ow = 1, .kh = 1, .kw = 1,
                            .sh = 1, .sw = 1, .divisor_override = (INT64_C(1) << 53) + 1};
    double g = 1;
    for (int m = 0; m < 2; m++) {
        ref_output o;
        pool(&p, &g, m, vector(), &o);
        assert_true(o.v[0].hi == 0x1p-53 - 0x1p-106);
        assert_true(o.v[0].lo > 0); /* exact − hi = 2^-159 − …: above hi */
        ref_output_free(&o);
    }
}

/* BF16, divisorOverride 2^63−1, an element in two windows with grads 1 and 2^-8: exact
 * (1 + 2^-8)/(2^63 − 1) lies just above the BF16 midpoint (1 + 2^-8)·2^-63 between 2^-63 and
 * (1 + 2^-7)·2^-63, so it rounds up (dividing by 2^63 = (double)d would make it a tie, to even
 * 2^-63). Windows: w = 2, kernel (1, 2), padding (0, 1): [−1, 1), [0, 2), [1, 3). */
static void bf16_not_a_tie(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 2, .oh = 1, .ow = 3, .kh = 1, .kw = 2,
                            .sh = 1, .sw = 1, .pw = 1, .divisor_override = INT64_MAX};
    double g[3] = {1, 0x1p-8, 0};
    for (int m = 0; m < 2; m++) {
        ref_output o;
        pool(&p, g, m, vector(), &o);
        assert_true(ref_round_value(&o.v[0], REF_DT_BF16) == (1 + 0x1p-7) * 0x1p-63);
        ref_output_free(&o);
    }
}

/* Kernel 65536, padding 32768, stride 1 on 3×3 (countIncludePad false): 4×4 windows, each
 * covering the whole input with 9 elements, so every element is 16·g/9 (g = 1: RN(16/9) is the
 * IEEE quotient). Kernel 2^32, padding 2^31, countIncludePad: one window of 2^32×2^32 padded
 * elements on a 1×1 input, divisor 2^64 (past int64): 2^-64 exactly. */
static void kernel_far_larger_than_input(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 3, .w = 3, .oh = 4, .ow = 4, .kh = 65536,
                            .kw = 65536, .sh = 1, .sw = 1, .ph = 32768, .pw = 32768};
    double g[16];
    for (int i = 0; i < 16; i++)
        g[i] = 1;
    for (int m = 0; m < 2; m++) {
        ref_output o;
        pool(&p, g, m, vector(), &o);
        for (int i = 0; i < 9; i++)
            assert_true(o.v[i].hi == 16.0 / 9.0);
        ref_output_free(&o);
    }
    int64_t k = INT64_C(1) << 32;
    ref_avgpool_params q = {.n = 1, .c = 1, .h = 1, .w = 1, .oh = 1, .ow = 1, .kh = k, .kw = k,
                            .sh = k, .sw = k, .ph = k / 2, .pw = k / 2, .count_include_pad = true};
    double one = 1;
    for (int m = 0; m < 2; m++) {
        ref_output o;
        pool(&q, &one, m, vector(), &o);
        assert_true(o.v[0].hi == 0x1p-64 && o.v[0].lo == 0);
        ref_output_free(&o);
    }
}

/* Non-finite classes from exact arithmetic: divisorOverride 1, element 1 of w = 3 (kernel 3,
 * padding 1: three windows cover it) with grads DBL_MAX, DBL_MAX, −inf: the exact sum is −inf
 * (left to right in double it is inf + −inf = NaN). */
static void avgpool_nonfinite_class(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 3, .oh = 1, .ow = 3, .kh = 1, .kw = 3,
                            .sh = 1, .sw = 1, .pw = 1, .divisor_override = 1};
    double g[3] = {DBL_MAX, DBL_MAX, -INFINITY};
    for (int m = 0; m < 2; m++) {
        ref_output o;
        pool(&p, g, m, vector(), &o);
        assert_true(o.v[1].hi == -INFINITY);
        assert_true(o.flags[1] & REF_FLAG_NONFINITE);
        /* element 0: windows 0 and 1 only, DBL_MAX + DBL_MAX: finite exact 2·DBL_MAX, above
         * the double range (+inf as a double), and an FP32 path overflows: RANGE */
        assert_true(o.v[0].hi == INFINITY && !(o.flags[0] & REF_FLAG_NONFINITE));
        assert_true(o.flags[0] & REF_FLAG_RANGE);
        ref_output_free(&o);
    }
}

/* FP32 path, sum of two FLT_MAX grads over divisor 2: exact FLT_MAX, but Σg overflows FP32 on
 * the way: RANGE (any non-finite result legal). One FLT_MAX alone: no flag. */
static void avgpool_fp32_intermediate_overflow(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 3, .oh = 1, .ow = 2, .kh = 1, .kw = 2,
                            .sh = 1, .sw = 1, .divisor_override = 2};
    double g[2] = {FLT_MAX, FLT_MAX};
    ref_output o;
    pool(&p, g, 0, vector(), &o);
    assert_true(o.v[1].hi == FLT_MAX);
    assert_true(o.flags[1] & REF_FLAG_RANGE);
    assert_false(o.flags[0] & REF_FLAG_RANGE);
    ref_output_free(&o);
}

/* Cube FP16 (cubeMathType 2 on ascend910: operands FP16), divisorOverride 2^62: 1/d rounds to
 * 0 in FP16 (its smallest subnormal is 2^-24), so an infinite grad meets inf·0 = NaN: RANGE. */
static void cube_weight_rounds_to_zero(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 1, .oh = 1, .ow = 1, .kh = 1, .kw = 1,
                            .sh = 1, .sw = 1, .divisor_override = INT64_C(1) << 62};
    ref_path cube = ref_avgpool_path(REF_PRODUCT_ASCEND910, &p, REF_DT_FLOAT16, 0);
    assert_int_equal(cube.kind, REF_PATH_CUBE);
    double g = INFINITY;
    ref_output o;
    pool(&p, &g, 0, cube, &o);
    assert_true(o.v[0].hi == INFINITY);
    assert_true(o.flags[0] & REF_FLAG_RANGE);
    ref_output_free(&o);
    g = 1;
    pool(&p, &g, 0, cube, &o);
    assert_false(o.flags[0] & REF_FLAG_RANGE); /* a finite grad: 0·1 is within the bound */
    ref_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(divisor_beyond_2_53),
        cmocka_unit_test(bf16_not_a_tie),
        cmocka_unit_test(kernel_far_larger_than_input),
        cmocka_unit_test(avgpool_nonfinite_class),
        cmocka_unit_test(avgpool_fp32_intermediate_overflow),
        cmocka_unit_test(cube_weight_rounds_to_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

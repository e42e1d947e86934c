/* Avg-pool exact values and the bound. Expected numbers: by hand (integer fills, facts §4), MPFR
 * (the element function at 200 bits), or a faithful FP32 emulation of the vector path written
 * here in float arithmetic (the bound must contain it; a 4-ULP FP16 error must exceed it).
 * - mass conservation: countIncludePad, no padding, windows inside: Σ gradInput = Σ gradOutput;
 * - k=2 s=2 integer g: every gradInput = g/4 exactly;
 * - divisorOverride −3 with overlapping windows: hi/lo equal MPFR's rounding of the exact sum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <cmocka.h>
#include <mpfr.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"

static void integer_fill_and_mass(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 2, .h = 6, .w = 8, .oh = 3, .ow = 4, .kh = 2, .kw = 2,
                            .sh = 2, .sw = 2, .count_include_pad = true};
    double g[24], sum_g = 0;
    for (int i = 0; i < 24; i++)
        sum_g += g[i] = (i * 7) % 13 - 6;
    ref_output o;
    assert_int_equal(ref_avgpool2d_backward(&p, g, NULL, &o), 0);
    double sum = 0;
    for (int i = 0; i < 96; i++) {
        int c = i / 48, y = i / 8 % 6, x = i % 8;
        assert_true(o.v[i].hi == g[c * 12 + (y / 2) * 4 + x / 2] / 4);
        sum += o.v[i].hi;
    }
    assert_true(sum == sum_g);
    ref_output_free(&o);
    /* overlapping k=3 s=1, countIncludePad, no padding, gradOutput covers: mass still conserved */
    ref_avgpool_params q = {.n = 1, .c = 1, .h = 5, .w = 5, .oh = 3, .ow = 3, .kh = 3, .kw = 3,
                            .sh = 1, .sw = 1, .count_include_pad = true};
    double g9[9] = {9, 18, 27, -9, 36, 0, 9, 9, 9};
    assert_int_equal(ref_avgpool2d_backward(&q, g9, NULL, &o), 0);
    sum = 0;
    for (int i = 0; i < 25; i++)
        sum += o.v[i].hi;
    assert_true(sum == 108); /* Σ g9, every term g/9 an integer here */
    ref_output_free(&o);
}

static void negative_divisor_matches_mpfr(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 7, .w = 7, .oh = 4, .ow = 4, .kh = 3, .kw = 3,
                            .sh = 2, .sw = 2, .ph = 1, .pw = 1, .divisor_override = -3};
    double g[16];
    for (int i = 0; i < 16; i++)
        g[i] = (i % 5) * 0.375 - 0.7;
    ref_output o;
    assert_int_equal(ref_avgpool2d_backward(&p, g, NULL, &o), 0);
    mpfr_t x, h, l;
    mpfr_inits2(200, x, l, (mpfr_ptr)0);
    mpfr_init2(h, 53);
    for (int i = 0; i < 49; i++) {
        assert_int_equal(ref_avgpool2d_backward_element_mpfr(&p, g, i, x), 0);
        mpfr_set(h, x, MPFR_RNDN);
        assert_true(o.v[i].hi == mpfr_get_d(h, MPFR_RNDN));
        mpfr_sub_d(l, x, o.v[i].hi, MPFR_RNDN);
        assert_true(fabs(mpfr_get_d(l, MPFR_RNDN) - o.v[i].lo) <= fabs(o.v[i].lo) * 0x1p-31);
    }
    /* hand: element (1,1) lies in windows (0,0),(0,1),(1,0),(1,1): −(g0+g1+g4+g5)/3 */
    assert_true(fabs(o.v[8].hi + (g[0] + g[1] + g[4] + g[5]) / 3) < 1e-15);
    mpfr_clears(x, h, l, (mpfr_ptr)0);
    ref_output_free(&o);
}

static void bound_contains_fp32_and_catches_4ulp(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 4, .h = 20, .w = 20, .oh = 10, .ow = 10, .kh = 3, .kw = 3,
                            .sh = 2, .sw = 2, .ph = 1, .pw = 1, .count_include_pad = false};
    double g[400];
    srand(7);
    for (int i = 0; i < 400; i++)
        g[i] = ref_round_to((rand() / (double)RAND_MAX) * 4 - 1, REF_DT_FLOAT16);
    ref_output o;
    assert_int_equal(ref_avgpool2d_backward(&p, g, NULL, &o), 0);
    ref_path vec = ref_avgpool_path(REF_PRODUCT_ASCEND950, &p, REF_DT_FLOAT16, 0);
    assert_int_equal(vec.kind, REF_PATH_VECTOR);
    int caught = 0, checked = 0;
    for (int i = 0; i < 1600; i++) {
        /* faithful FP32 device: float quotients, float sum in window order, round to FP16 */
        int c = i / 400, y = i / 20 % 20, x = i % 20;
        float s = 0;
        for (int oy = 0; oy < 10; oy++)
            for (int ox = 0; ox < 10; ox++) {
                int y0 = oy * 2 - 1, x0 = ox * 2 - 1;
                if (y < y0 || y >= y0 + 3 || x < x0 || x >= x0 + 3)
                    continue;
                int ya = y0 < 0 ? 0 : y0, yb = y0 + 3 > 20 ? 20 : y0 + 3;
                int xa = x0 < 0 ? 0 : x0, xb = x0 + 3 > 20 ? 20 : x0 + 3;
                s += (float)g[c * 100 + oy * 10 + ox] / (float)((yb - ya) * (xb - xa));
            }
        double dev = ref_round_to((double)s, REF_DT_FLOAT16);
        double exact = o.v[i].hi, b = ref_bound(REF_DT_FLOAT16, &vec, &o.v[i]);
        assert_true(fabs(dev - exact) <= b);
        if (fabs(exact) > 0.01 && o.v[i].sum_abs < 2 * fabs(exact)) { /* no heavy cancellation */
            double ulp = ref_round_to(fabs(exact), REF_DT_FLOAT16) * 0x1p-10;
            checked++;
            caught += fabs(dev + 4 * ulp - exact) > b;
        }
    }
    assert_true(checked > 500);
    assert_int_equal(caught, checked);
    ref_output_free(&o);
}

/* ref_operand_overflows: nearest-even overflows from half an ULP above the largest finite
 * value, (2 - 2^-p)·2^emax (hand-derived): FP16 65520, HF32 (11 bits) (2 - 2^-11)·2^127,
 * so FP32's max finite 3.4028235e38 overflows on HF32 operands; the vector path never does. */
static void operand_overflow_thresholds(void **state)
{
    (void)state;
    ref_path fp16 = {.kind = REF_PATH_CUBE, .operand = REF_DT_FLOAT16, .name = "cube-fp16"};
    ref_path hf32 = {.kind = REF_PATH_CUBE, .operand = REF_DT_UNDEFINED, .hf32 = true,
                     .hf32_bits = 11, .name = "cube-hf32"};
    ref_path kept = {.kind = REF_PATH_CUBE, .operand = REF_DT_FLOAT, .name = "cube-fp32"};
    ref_path vec = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT, .name = "vector-fp32"};
    assert_false(ref_operand_overflows(&fp16, 65519.99));
    assert_true(ref_operand_overflows(&fp16, -65520.0));
    assert_false(ref_operand_overflows(&hf32, 3.4e38));
    assert_true(ref_operand_overflows(&hf32, 3.4028234663852886e38));
    assert_false(ref_operand_overflows(&kept, 3.4028234663852886e38));
    assert_false(ref_operand_overflows(&vec, 1e300));
}

/* Underflow terms of ref_bound (bound.c): a cube-HF32 operand below FP32's normal range is
 * rounded on the 2^-136 grid (11 bits at exponent -126), so each of n terms may err by 2^-137;
 * an FP32 product or quotient landing in the subnormal range errs by up to 2^-150. Both are
 * absolute, so a subnormal exact value still gets them (fuzz findings at ~1e-42). */
static void bound_covers_underflow(void **state)
{
    (void)state;
    ref_path hf32 = {.kind = REF_PATH_CUBE, .operand = REF_DT_UNDEFINED, .hf32 = true,
                     .hf32_bits = 11, .name = "cube-hf32"};
    ref_path vec = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT, .name = "vector-fp32"};
    ref_value v = {.hi = -5e-42, .lo = 0, .sum_abs = 5e-42, .nterms = 5, .nops = 2,
                   .min_weight = 0.25};
    assert_true(ref_bound(REF_DT_FLOAT, &hf32, &v) >= 5 * 0x1p-137);
    assert_true(ref_bound(REF_DT_FLOAT, &vec, &v) >= 5 * 2 * 0x1p-150);
    /* and they stay negligible for normal values: for exact 1.0 from one term the bound is
     * u_out + γ(1) ≈ 2^-24 + 2^-24 (one ULP), so a 2-ULP error (2^-22) is still caught */
    ref_value one = {.hi = 1.0, .lo = 0, .sum_abs = 1.0, .nterms = 1, .nops = 1, .min_weight = 1};
    assert_true(ref_bound(REF_DT_FLOAT, &vec, &one) < 0x1p-22);
}

/* The document's seed example against facts.md §4 (checked there with PyTorch float64):
 * 1x16x4x4, kernel 4, all-ones gradient → 0.0625 everywhere (= 1/16 by hand: one window of 16
 * elements), on the fast path and on pure MPFR. */
static void seed_example(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 16, .h = 4, .w = 4, .oh = 1, .ow = 1, .kh = 4, .kw = 4,
                            .sh = 1, .sw = 1, .count_include_pad = true};
    double g[16];
    for (int i = 0; i < 16; i++)
        g[i] = 1;
    for (int force = 0; force < 2; force++) {
        ref_options o = {.force_mpfr = force};
        ref_output out;
        assert_int_equal(ref_avgpool2d_backward(&p, g, &o, &out), 0);
        assert_int_equal(out.numel, 256);
        for (int i = 0; i < 256; i++) {
            assert_true(out.v[i].hi == 0.0625);
            assert_true(out.v[i].lo == 0);
            assert_int_equal(out.v[i].nterms, 1);
            assert_int_equal(out.flags[i], 0);
        }
        ref_output_free(&out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_example),
        cmocka_unit_test(integer_fill_and_mass),
        cmocka_unit_test(negative_divisor_matches_mpfr),
        cmocka_unit_test(bound_contains_fp32_and_catches_4ulp),
        cmocka_unit_test(operand_overflow_thresholds),
        cmocka_unit_test(bound_covers_underflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

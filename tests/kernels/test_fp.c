/* FP16/BF16/HF32 conversions of the emulated device. Expected bit patterns are hand-derived from
 * the IEEE 754 binary16 layout (1|5|10, bias 15) and bfloat16 (1|8|7, bias 127); the sweep at
 * the end compares with MPFR rounding to each format. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>
#include <mpfr.h>

#include "emu.h"

static void f16_exact_and_limits(void **state)
{
    (void)state;
    assert_int_equal(emu_f32_to_f16(1.0f, false), 0x3c00);   /* 2^0: exp 15, mant 0 */
    assert_int_equal(emu_f32_to_f16(-2.0f, false), 0xc000);
    assert_int_equal(emu_f32_to_f16(65504.0f, false), 0x7bff); /* max finite */
    assert_int_equal(emu_f32_to_f16(0x1p-14f, false), 0x0400); /* min normal */
    assert_int_equal(emu_f32_to_f16(0x1p-24f, false), 0x0001); /* min subnormal */
    assert_int_equal(emu_f32_to_f16(-0.0f, false), 0x8000);
    assert_int_equal(emu_f32_to_f16(INFINITY, false), 0x7c00);
    assert_true((emu_f32_to_f16(NAN, false) & 0x7fff) > 0x7c00);
}

static void f16_round_to_nearest_even(void **state)
{
    (void)state;
    /* 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even mantissa (0). */
    assert_int_equal(emu_f32_to_f16(1.0f + 0x1p-11f, false), 0x3c00);
    /* 1 + 3·2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even mantissa 2). */
    assert_int_equal(emu_f32_to_f16(1.0f + 3 * 0x1p-11f, false), 0x3c02);
    /* 65520 is halfway between 65504 and 2^16 (overflow): even side is 2^16 → infinity. */
    assert_int_equal(emu_f32_to_f16(65520.0f, false), 0x7c00);
    assert_int_equal(emu_f32_to_f16(65519.0f, false), 0x7bff);
    /* 2^-25 is halfway between 0 and the min subnormal: ties to 0; 3·2^-25 → 2·2^-24. */
    assert_int_equal(emu_f32_to_f16(0x1p-25f, false), 0x0000);
    assert_int_equal(emu_f32_to_f16(3 * 0x1p-25f, false), 0x0002);
    /* slightly above half rounds up */
    assert_int_equal(emu_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f, false), 0x3c01);
}

static void f16_truncate_rounds_toward_zero(void **state)
{
    (void)state;
    assert_int_equal(emu_f32_to_f16(1.0f + 0x1p-10f - 0x1p-20f, true), 0x3c00);
    assert_int_equal(emu_f32_to_f16(-(1.0f + 0x1p-10f - 0x1p-20f), true), 0xbc00);
    assert_int_equal(emu_f32_to_f16(1e6f, true), 0x7bff); /* no overflow toward zero */
}

static void f16_decode(void **state)
{
    (void)state;
    assert_true(emu_f16_to_f32(0x3c00) == 1.0f);
    assert_true(emu_f16_to_f32(0x0001) == 0x1p-24f);
    assert_true(emu_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(isinf(emu_f16_to_f32(0xfc00)) && emu_f16_to_f32(0xfc00) < 0);
    assert_true(isnan(emu_f16_to_f32(0x7e00)));
    /* every finite pattern round-trips */
    for (unsigned h = 0; h < 0x10000; h++)
        if ((h & 0x7c00) != 0x7c00)
            assert_int_equal(emu_f32_to_f16(emu_f16_to_f32((uint16_t)h), false), h);
}

static void bf16_round_and_subnormals(void **state)
{
    (void)state;
    assert_int_equal(emu_f32_to_bf16(1.0f, false), 0x3f80);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even → 1. */
    assert_int_equal(emu_f32_to_bf16(1.0f + 0x1p-8f, false), 0x3f80);
    assert_int_equal(emu_f32_to_bf16(1.0f + 3 * 0x1p-8f, false), 0x3f82);
    assert_int_equal(emu_f32_to_bf16(0x1p-133f, false), 0x0001); /* min subnormal 2^-133 */
    assert_int_equal(emu_f32_to_bf16(3.3895314e38f, false), 0x7f7f); /* max finite */
    assert_int_equal(emu_f32_to_bf16(3.4028235e38f, false), 0x7f80);  /* rounds to inf */
    for (unsigned h = 0; h < 0x10000; h++)
        if ((h & 0x7f80) != 0x7f80)
            assert_int_equal(emu_f32_to_bf16(emu_bf16_to_f32((uint16_t)h), false), h);
}

static void hf32_keeps_requested_bits(void **state)
{
    (void)state;
    /* 11 significant bits: 1 + 2^-10 is kept, 1 + 2^-11 ties to 1, 1 + 3·2^-11 → 1 + 2^-9. */
    assert_true(emu_round_to_bits(1.0f + 0x1p-10f, 11) == 1.0f + 0x1p-10f);
    assert_true(emu_round_to_bits(1.0f + 0x1p-11f, 11) == 1.0f);
    assert_true(emu_round_to_bits(1.0f + 3 * 0x1p-11f, 11) == 1.0f + 0x1p-9f);
    /* FP32 range is kept (no FP16 overflow): 1e30 stays finite. */
    assert_true(isfinite(emu_round_to_bits(1e30f, 11)));
}

static void nudge_moves_by_ulps(void **state)
{
    (void)state;
    assert_true(emu_nudge_ulps(1.0, ACL_FLOAT16, 2) == 1.0 + 2 * 0x1p-10);
    assert_true(emu_nudge_ulps(1.0, ACL_BF16, 1) == 1.0 + 0x1p-7);
    assert_true(emu_nudge_ulps(1.0, ACL_FLOAT, 3) == 1.0 + 3 * 0x1p-23);
    assert_true(emu_nudge_ulps(-1.0, ACL_FLOAT16, 1) == -(1.0 + 0x1p-10));
}

/* x rounded by MPFR to a format of prec significant bits, smallest normal 2^emin, largest
 * binade 2^emax, with subnormals (MPFR's exponents count a significand in [1/2, 1)). */
static float mpfr_narrow(float x, int prec, int emin, int emax, bool truncate)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_rnd_t rnd = truncate ? MPFR_RNDZ : MPFR_RNDN;
    mpfr_t m;
    mpfr_init2(m, prec);
    mpfr_set_emin(emin - prec + 2);
    mpfr_set_emax(emax + 1);
    int t = mpfr_set_flt(m, x, rnd);
    t = mpfr_check_range(m, t, rnd);
    mpfr_subnormalize(m, t, rnd);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    float r = mpfr_get_flt(m, MPFR_RNDN); /* exact: every value of the formats is a float */
    mpfr_clear(m);
    return r;
}

static uint32_t bits_of(float x) { return ((union { float f; uint32_t u; }){.f = x}).u; }
static float float_of(uint32_t u) { return ((union { uint32_t u; float f; }){.u = u}).f; }

/* Float patterns of every exponent (both signs): each fraction's top 12 bits with scrambled low
 * bits, and the rounding boundaries of FP16/HF32 (fraction bit 12), BF16 (bit 15) and FP16's
 * subnormal range (float exponents 2^-25 .. 2^-15: bit d - 1 for the d bits below 2^-24): the
 * midpoint and one float ulp either side of it. */
static size_t sweep_patterns(uint32_t *out)
{
    size_t n = 0;
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int e = -25; e <= -15; e++) {
        uint32_t d = (uint32_t)(-1 - e), biased = (uint32_t)(e + 127);
        for (uint32_t j = 0; j < 1u << (23 - (d < 23 ? d : 23)); j++)
            for (int s = -1; s <= 1; s++)
                out[n++] = (j & 1u) << 31 | biased << 23 |
                           (((j << d | 1u << (d - 1)) + (uint32_t)s) & 0x7fffffu);
    }
    for (uint32_t e = 0; e < 255; e++) {
        for (uint32_t k = 0; k < 4096; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            out[n++] = (k & 1u) << 31 | e << 23 | k << 11 | (uint32_t)(x & 0x7ffu);
        }
        for (uint32_t k = 0; k < 1024; k++)
            for (int s = -1; s <= 1; s++)
                out[n++] = (k & 1u) << 31 | e << 23 | ((k << 13 | 0x1000u) + (uint32_t)s);
        for (uint32_t k = 0; k < 128; k++)
            for (int s = -1; s <= 1; s++)
                out[n++] = (k & 1u) << 31 | e << 23 | ((k << 16 | 0x8000u) + (uint32_t)s);
    }
    return n;
}

static void conversions_match_mpfr(void **state)
{
    (void)state;
    size_t cap = 255 * (4096 + 3 * 1024 + 3 * 128) + 11 * 3 * 512;
    uint32_t *pat = malloc(cap * sizeof *pat);
    assert_non_null(pat);
    size_t n = sweep_patterns(pat), bad = 0;
    for (size_t i = 0; i < n && bad < 10; i++) {
        float x = float_of(pat[i]);
        for (int t = 0; t < 2; t++) {
            float want16 = mpfr_narrow(x, 11, -14, 15, t), wantb = mpfr_narrow(x, 8, -126, 127, t);
            float got16 = emu_f16_to_f32(emu_f32_to_f16(x, t));
            float gotb = emu_bf16_to_f32(emu_f32_to_bf16(x, t));
            bool ok = bits_of(got16) == bits_of(want16) && bits_of(gotb) == bits_of(wantb);
            if (!t) {
                float wanth = mpfr_narrow(x, 11, -126, 127, false);
                ok &= bits_of(emu_round_to_bits(x, 11)) == bits_of(wanth);
            }
            if (!ok && ++bad)
                print_error("%a (0x%08x) %s: fp16 %a want %a, bf16 %a want %a, hf32 %a\n", x,
                            pat[i], t ? "truncated" : "nearest", got16, want16, gotb, wantb,
                            emu_round_to_bits(x, 11));
        }
    }
    free(pat);
    assert_int_equal(bad, 0);
}

/* Every FP16 pattern's value from the layout: (1024 * [e > 0] + m) * 2^(max(e, 1) - 25). */
static void f16_decode_all_patterns(void **state)
{
    (void)state;
    for (unsigned h = 0; h < 0x7c00; h++) {
        unsigned e = h >> 10, m = h & 0x3ffu;
        float want = ldexpf((float)((e ? 1024u : 0u) + m), (int)(e ? e : 1) - 25);
        assert_true(bits_of(emu_f16_to_f32((uint16_t)h)) == bits_of(want));
        assert_true(bits_of(emu_f16_to_f32((uint16_t)(h | 0x8000u))) == bits_of(-want));
    }
}

/* Hand-picked floats for the bulk conversions: ±0, float subnormals, FP16's subnormal range and
 * its ties (2^-25 ties to 0, 3·2^-25 to 2^-23), normal ties to even both ways, the overflow
 * boundary (65519 stays finite, 65520 ties up to infinity), ±inf and NaNs of both signs with
 * and without payload (a signalling one too), which must all give the canonical quiet NaN. */
static const uint32_t picked_floats[] = {
    0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x33000000u /* 2^-25 */,
    0x33000001u, 0x33c00000u /* 3·2^-25 */, 0xb3800000u /* -2^-24 */, 0x387fc000u,
    0x38800000u /* 2^-14 */, 0x3f801000u /* 1 + 2^-11 */, 0x3f803000u /* 1 + 3·2^-11 */,
    0x3f801001u, 0xbf800fffu, 0x477fe000u /* 65504 */, 0x477fefffu /* 65519.99 */,
    0x477ff000u /* 65520 */, 0xc77ff000u, 0x7f7fffffu, 0x7f800000u, 0xff800000u,
    0x7fc00000u, 0xffc00000u, 0x7f800001u /* signalling */, 0xff812345u, 0x7fffffffu,
    0x7fc0e000u /* payload that survives FP16 */, 0x3f7fffffu, 0x40490fdbu /* pi */,
};

/* The n-element conversions against the one-element ones, bit for bit, on every length from 0
 * to 19 at every start 0..7 of the patterns (vector groups and their scalar tails both),
 * nearest and truncated. */
static void check_bulk_f32(const uint32_t *pat, size_t n)
{
    float *x = malloc((n + 1) * sizeof *x);
    uint16_t *h = malloc((n + 1) * sizeof *h), *b = malloc((n + 1) * sizeof *b);
    assert_true(x && h && b);
    memcpy(x, pat, n * sizeof *x);
    for (int t = 0; t < 2; t++) {
        emu_f32_to_f16_n(x, h, (int64_t)n, t);
        emu_f32_to_bf16_n(x, b, (int64_t)n, t);
        for (size_t i = 0; i < n; i++) {
            if (h[i] != emu_f32_to_f16(x[i], t) || b[i] != emu_f32_to_bf16(x[i], t))
                print_error("0x%08x %s: fp16 %04x want %04x, bf16 %04x want %04x\n", pat[i],
                            t ? "truncated" : "nearest", h[i], emu_f32_to_f16(x[i], t), b[i],
                            emu_f32_to_bf16(x[i], t));
            assert_int_equal(h[i], emu_f32_to_f16(x[i], t));
            assert_int_equal(b[i], emu_f32_to_bf16(x[i], t));
        }
    }
    free(x), free(h), free(b);
}

static void check_bulk_16(const uint16_t *pat, size_t n)
{
    float *f = malloc((n + 1) * sizeof *f), *g = malloc((n + 1) * sizeof *g);
    assert_true(f && g);
    emu_f16_to_f32_n(pat, f, (int64_t)n);
    emu_bf16_to_f32_n(pat, g, (int64_t)n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(bits_of(f[i]), bits_of(emu_f16_to_f32(pat[i])));
        assert_int_equal(bits_of(g[i]), bits_of(emu_bf16_to_f32(pat[i])));
    }
    free(f), free(g);
}

static void bulk_conversions_match_one_by_one(void **state)
{
    (void)state;
    const size_t np = sizeof picked_floats / sizeof *picked_floats;
    for (size_t start = 0; start < 8; start++)
        for (size_t len = 0; start + len <= np && len < 20; len++)
            check_bulk_f32(picked_floats + start, len);
    size_t cap = 255 * (4096 + 3 * 1024 + 3 * 128) + 11 * 3 * 512;
    uint32_t *pat = malloc(cap * sizeof *pat);
    assert_non_null(pat);
    check_bulk_f32(pat, sweep_patterns(pat));
    free(pat);
    /* every 16-bit pattern: FP16 and BF16 NaNs of each sign and payload, subnormals, ±0 */
    uint16_t *all = malloc(0x10000 * sizeof *all);
    assert_non_null(all);
    for (unsigned k = 0; k < 0x10000; k++)
        all[k] = (uint16_t)k;
    for (size_t start = 0; start < 8; start++)
        check_bulk_16(all + start, 0x10000 - start);
    free(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f16_exact_and_limits), cmocka_unit_test(f16_round_to_nearest_even),
        cmocka_unit_test(f16_truncate_rounds_toward_zero), cmocka_unit_test(f16_decode),
        cmocka_unit_test(bf16_round_and_subnormals), cmocka_unit_test(hf32_keeps_requested_bits),
        cmocka_unit_test(nudge_moves_by_ulps), cmocka_unit_test(conversions_match_mpfr),
        cmocka_unit_test(f16_decode_all_patterns),
        cmocka_unit_test(bulk_conversions_match_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

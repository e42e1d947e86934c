/* ref_bound_planned's underflow term on a subnormal under_mag (most grid sampler elements: its
 * unit is 2^-1070): formed from under_mag's bits, it must be bitwise the product under_mag·eta_under
 * (the plan with eta_under_sub = 0 forms that product itself), and on x86 it must take no
 * subnormal operand (MXCSR's denormal flag stays clear: each such operation costs a microcode
 * assist of some hundred cycles, an element judged). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#include "reference.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return rng;
}

/* A value with under_mag = k·2^-1074 (a subnormal for 0 < k < 2^52) and other fields random. */
static ref_value value_of(uint64_t k)
{
    ref_value v = {.hi = (double)(next() >> 11) * 0x1p-40, .sum_abs = (double)(next() >> 11) * 0x1p-30,
                   .nterms = (int64_t)(next() % 9), .nops = (int32_t)(next() % 5),
                   .coord_err = (double)(next() >> 40) * 0x1p-60};
    memcpy(&v.under_mag, &k, sizeof k);
    return v;
}

static void subnormal_under_mag_bitwise(void **state)
{
    (void)state;
    const ref_dtype dts[] = {REF_DT_FLOAT, REF_DT_FLOAT16, REF_DT_BF16, REF_DT_DOUBLE};
    for (int d = 0; d < 4; d++) {
        ref_path path = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT};
        ref_bound_plan b, slow;
        ref_bound_plan_init(&b, dts[d], &path);
        slow = b;
        slow.eta_under_sub = 0;
        assert_true(dts[d] == REF_DT_DOUBLE || b.eta_under_sub > 0); /* FP32 working format */
        for (int i = 0; i < 100000; i++) {
            uint64_t k = i < 4 ? (uint64_t[]){0, 1, 16, (UINT64_C(1) << 52) - 1}[i]
                               : next() >> (12 + next() % 52);
            ref_value v = value_of(k);
            double x = ref_bound_planned(&b, &v), y = ref_bound_planned(&slow, &v);
            if (memcmp(&x, &y, sizeof x))
                fail_msg("under_mag %a: bound %a, the product's %a", v.under_mag, x, y);
        }
    }
}

static void no_subnormal_operand(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    ref_path path = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT};
    ref_bound_plan b;
    ref_bound_plan_init(&b, REF_DT_FLOAT, &path);
    ref_value v = value_of(16 * 4); /* 4 terms of magnitude 1 in units of 2^-1070 */
    _mm_setcsr(_mm_getcsr() & ~(unsigned)_MM_EXCEPT_DENORM);
    double x = ref_bound_planned(&b, &v);
    unsigned csr = _mm_getcsr();
    assert_true(x > 0);
    assert_int_equal(csr & _MM_EXCEPT_DENORM, 0);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(subnormal_under_mag_bitwise),
                                       cmocka_unit_test(no_subnormal_operand)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

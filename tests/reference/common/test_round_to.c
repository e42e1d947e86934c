/* ref_round_to / ref_round_value / ref_ulp_distance against MPFR's emulation of the narrow formats
 * (facts §5: FP16 prec 11, emin -23, emax 16; BF16 8, -132, 128; FP32 24, -148, 128, with
 * mpfr_subnormalize), on random doubles across each format's whole range, its subnormals, exact
 * ties, and the overflow threshold. Expected values come from MPFR, never from the code under
 * test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <mpfr.h>

#include "reference.h"

typedef struct { ref_dtype dt; int prec; long emin, emax; } fmt;
static const fmt FMTS[] = {{REF_DT_FLOAT16, 11, -23, 16}, {REF_DT_BF16, 8, -132, 128},
                           {REF_DT_FLOAT, 24, -148, 128}};

static double emu_round(double x, const fmt *f)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(f->emin);
    mpfr_set_emax(f->emax);
    mpfr_t r;
    mpfr_init2(r, f->prec);
    int t = mpfr_set_d(r, x, MPFR_RNDN);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return d;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }

/* Every value check() was given for the format at hand, for ref_round_to_array afterwards. */
#define BATCH_MAX 500000
static double batch[BATCH_MAX];
static size_t nbatch;

static void check(double x, const fmt *f)
{
    double want = emu_round(x, f), got = ref_round_to(x, f->dt);
    if (!(got == want && signbit(got) == signbit(want)))
        fail_msg("round %a to dtype %d: got %a want %a", x, f->dt, got, want);
    if (nbatch < BATCH_MAX)
        batch[nbatch++] = x;
}

/* The same values rounded in one ref_round_to_array call: MPFR's answers again. */
static void check_batch(const fmt *f)
{
    static double rounded[BATCH_MAX];
    memcpy(rounded, batch, nbatch * sizeof *batch);
    ref_round_to_array(rounded, (int64_t)nbatch, f->dt);
    for (size_t i = 0; i < nbatch; i++) {
        double want = emu_round(batch[i], f);
        if (!(rounded[i] == want && signbit(rounded[i]) == signbit(want)))
            fail_msg("array: round %a to dtype %d: got %a want %a", batch[i], f->dt, rounded[i],
                     want);
    }
    nbatch = 0;
}

static void random_and_edges(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        const fmt *f = &FMTS[k];
        long lo = f->emin - 3, hi = f->emax + 2; /* exponents around the whole range */
        for (int i = 0; i < 200000; i++) {
            uint64_t r = next();
            double m = 1 + (double)(r >> 12) * 0x1p-52;
            long e = lo + (long)(next() % (uint64_t)(hi - lo + 1));
            double x = ldexp(m, (int)e - 1);
            if (r & 1)
                x = -x;
            check(x, f);
            /* an exact tie: a p+1-bit value with the last bit set */
            double q = ldexp(1.0, (int)e - f->prec - 1);
            double tie = (floor(x / q / 2) * 2 + 1) * q;
            check(tie, f);
        }
        /* all-ones significands: rounding up carries into the exponent */
        for (long e = lo; e <= hi; e++) {
            check(nextafter(ldexp(1.0, (int)e), 0), f);
            check(-nextafter(ldexp(1.0, (int)e), 0), f);
        }
        check(0x1p-1074, f); /* a double subnormal */
        check(-0.0, f);
        check(-INFINITY, f);
        /* overflow threshold (max + half ulp rounds to infinity, below it to max) */
        double maxv = ldexp(2 - ldexp(1.0, 1 - f->prec), (int)f->emax - 1);
        double half = ldexp(1.0, (int)f->emax - 1 - f->prec);
        check(maxv + half, f);
        check(nextafter(maxv + half, 0), f);
        check(-(maxv + half), f);
        assert_true(isinf(ref_round_to(maxv + half, f->dt)));
        check(ldexp(1.0, (int)f->emin - 1), f);   /* half the smallest subnormal: tie to 0 */
        check(ldexp(1.5, (int)f->emin - 1), f);   /* rounds up to the smallest subnormal */
        assert_true(isnan(ref_round_to(NAN, f->dt)));
        check_batch(f);
    }
    assert_true(ref_round_to(0.1, REF_DT_DOUBLE) == 0.1);
    /* FP16 by hand: 65504 max, 65520 → inf, 2^-24 smallest subnormal, 2^-25 ties to 0 */
    assert_true(ref_round_to(65519.99, REF_DT_FLOAT16) == 65504);
    assert_true(isinf(ref_round_to(65520, REF_DT_FLOAT16)));
    assert_true(ref_round_to(0x1p-25, REF_DT_FLOAT16) == 0);
    assert_true(ref_round_to(0x1.8p-25, REF_DT_FLOAT16) == 0x1p-24);
}

/* ref_round_value: hi on an FP16 midpoint, lo decides (hand: 1 + 2^-11 is the tie between 1 and
 * 1 + 2^-10; even is 1). */
static void round_value_uses_lo(void **state)
{
    (void)state;
    ref_value v = {.hi = 1 + 0x1p-11, .lo = 0x1p-80};
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 1 + 0x1p-10);
    v.lo = -0x1p-80;
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 1);
    v.lo = 0;
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 1);
    v = (ref_value){.hi = 65520, .lo = -0x1p-40}; /* just below the overflow threshold */
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 65504);
    /* hi one double below the midpoint 1 + 3·2^-11 of 1 + 2^-10 (odd) and 1 + 2^-9 (even), lo
     * positive but below half a double's ulp: the exact value is below the midpoint, so it
     * rounds down to 1 + 2^-10 (the midpoint itself would go to the even 1 + 2^-9) */
    v = (ref_value){.hi = 1 + 3 * 0x1p-11 - 0x1p-52, .lo = 0x1p-60};
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 1 + 0x1p-10);
    v = (ref_value){.hi = 1 + 3 * 0x1p-11 + 0x1p-52, .lo = -0x1p-60}; /* the mirror case */
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 1 + 0x1p-9);
    /* a subnormal midpoint of FP16: 3·2^-25 between 2^-24 (odd) and 2^-23 (even) */
    v = (ref_value){.hi = 3 * 0x1p-25, .lo = -0x1p-80};
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 0x1p-24);
    v.lo = 0x1p-80;
    assert_true(ref_round_value(&v, REF_DT_FLOAT16) == 0x1p-23);
}

/* Hand-counted ULP distances. */
static void ulp_distance(void **state)
{
    (void)state;
    assert_true(ref_ulp_distance(1, 1 + 4 * 0x1p-10, REF_DT_FLOAT16) == 4);
    assert_true(ref_ulp_distance(1, 1 - 0x1p-11, REF_DT_FLOAT16) == 1);       /* binade below */
    assert_true(ref_ulp_distance(0x1p-24, -0x1p-24, REF_DT_FLOAT16) == 2);    /* across zero */
    assert_true(ref_ulp_distance(65504, INFINITY, REF_DT_FLOAT16) == 1);
    assert_true(ref_ulp_distance(0x1p-14, 0x1p-14 - 0x1p-24, REF_DT_FLOAT16) == 1);
    assert_true(ref_ulp_distance(1, 1 + 0x1p-7, REF_DT_BF16) == 1);
    assert_true(ref_ulp_distance(1, nextafter(1, 2), REF_DT_DOUBLE) == 1);
    assert_true(isinf(ref_ulp_distance(NAN, 1, REF_DT_FLOAT)));
    assert_true(ref_ulp_distance(NAN, NAN, REF_DT_FLOAT) == 0);
    assert_true(isinf(ref_ulp_distance(INFINITY, -INFINITY, REF_DT_FLOAT)));
    assert_true(ref_unit_roundoff(REF_DT_BF16) == 0x1p-8);
}

/* ref_ulp_distance against MPFR: from a random normal value of the format, k steps of
 * mpfr_nextabove or nextbelow at the format's precision (binade changes included) are k ULPs.
 * MPFR's steps do not know the format's subnormals: those distances are the hand-counted ones
 * above. */
static double emu_step(double x, int k, const fmt *f)
{
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(f->emin);
    mpfr_set_emax(f->emax);
    mpfr_t r;
    mpfr_init2(r, f->prec);
    mpfr_set_d(r, x, MPFR_RNDN); /* exact: x is a value of the format */
    for (int i = 0; i < (k < 0 ? -k : k); i++) {
        if (k > 0) mpfr_nextabove(r);
        else mpfr_nextbelow(r);
    }
    double d = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return d;
}

static void ulp_distance_against_mpfr(void **state)
{
    (void)state;
    for (size_t j = 0; j < 3; j++) {
        const fmt *f = &FMTS[j];
        long lo = f->emin + f->prec, hi = f->emax;
        double min_normal = ldexp(1.0, (int)(f->emin + f->prec - 2));
        for (int i = 0; i < 100000; i++) {
            uint64_t r = next();
            long e = lo + (long)(next() % (uint64_t)(hi - lo + 1));
            double x = emu_round(ldexp(1 + (double)(r >> 12) * 0x1p-52, (int)e - 1), f);
            if (r & 1) x = -x;
            int k = (int)(next() % 9) - 4;
            double y = emu_step(x, k, f);
            if (isinf(y) || fabs(y) < min_normal || fabs(x) < min_normal) continue;
            double want = k < 0 ? -k : k, got = ref_ulp_distance(x, y, f->dt);
            if (got != want || ref_ulp_distance(y, x, f->dt) != want)
                fail_msg("dtype %d: %a to %a: %g ULPs, MPFR %g", f->dt, x, y, got, want);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(random_and_edges),
                                       cmocka_unit_test(round_value_uses_lo),
                                       cmocka_unit_test(ulp_distance),
                                       cmocka_unit_test(ulp_distance_against_mpfr)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

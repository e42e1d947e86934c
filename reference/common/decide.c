/* ref_decide: Ziv's test of a double-double approximation against reference.h's (hi, lo)
 * (hi = exact rounded to double, lo = exact − hi rounded to REF_LO_BITS bits). Both roundings
 * are decided only when every real number within err of the approximation rounds the same way;
 * otherwise the caller recomputes with MPFR. */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ref_internal.h"

/* Half the distances from a = |r| > 0 (r a p-bit number) to its neighbours away from zero
 * (*away) and towards zero (*toward, half as large when a is a power of two). */
static inline void half_gaps(double a, int p, double *away, double *toward)
{
    if (ref_fast_exp(a)) {
        double e2 = ref_pow2_floor(a), g = e2 * ref_of_bits((uint64_t)(1023 - p) << 52); /* 2^(e−p) */
        *away = g;
        *toward = a == e2 ? g / 2 : g;
        return;
    }
    int e = ilogb(a);
    double g = ldexp(1.0, e - p);
    *away = g;
    *toward = (a == ldexp(1.0, e)) ? g / 2 : g;
}

int ref_decide(ref_dd s, double err, double *hi, double *lo)
{
    if (!isfinite(s.hi) || !isfinite(s.lo) || !(err >= 0) || !isfinite(err))
        return 0;
    s = ref_two_sum(s.hi, s.lo);
    double h = s.hi, l = s.lo;
    if (h == 0) {
        if (err != 0)
            return 0;
        *hi = 0;
        *lo = 0;
        return 1;
    }
    if (err == 0) { /* exact = h + l, h = RN(h + l) ties-to-even (two_sum), so even a tie is known */
        *hi = h;
        *lo = ref_round_lo_bits(l);
        return 1;
    }
    /* in magnitudes: L > 0 is away from zero (sign-free, so no data-dependent branch) */
    double away, toward, L = l * copysign(1.0, h);
    half_gaps(fabs(h), 53, &away, &toward);
    /* (away − L) has relative rounding error ≤ 2^-53: the factor keeps the test a lower bound. */
    if (!((away - L) * (1 - 0x1p-50) > err && (toward + L) * (1 - 0x1p-50) > err))
        return 0;
    if (l == 0)
        return 0; /* exact − hi may be 0 or not: undecidable without exactness */
    double r = ref_round_lo_bits(l), ar = fabs(r), lam = l * copysign(1.0, r);
    half_gaps(ar, REF_LO_BITS, &away, &toward);
    /* |r| ± gap/2 are (REF_LO_BITS+1)-bit numbers within a gap of |l|: the differences are
     * exact. */
    if (!(((ar + away) - lam) > err && (lam - (ar - toward)) > err))
        return 0;
    *hi = h;
    *lo = r;
    return 1;
}

void ref_mpfr_round_odd(mpfr_ptr x, int ternary)
{
    if (ternary == 0 || !mpfr_regular_p(x) || mpfr_min_prec(x) == mpfr_get_prec(x))
        return; /* exact, or the last bit is already 1 */
    if (mpfr_sgn(x) > 0)
        mpfr_nextabove(x);
    else
        mpfr_nextbelow(x);
}

double ref_mpfr_lo(mpfr_srcptr l)
{
    double lo = mpfr_get_d(l, MPFR_RNDN);
    return lo == 0 && !mpfr_zero_p(l) ? copysign(0x1p-1074, mpfr_sgn(l)) : lo;
}

/* A finite exact value h (round-to-odd, n exact terms) past the double range, hi = ±inf: its
 * excess over ±DBL_MAX (l's 32 bits, ±inf past 2^1025) where that is more than twice a device's
 * rounding error (γ·Σ|terms|, generously (n + 4)·2^-50·Σ|terms|), so every device overflows;
 * else 0 (its sum may stop at ±DBL_MAX, or cancellation of larger terms may land anywhere). */
static double beyond_excess(mpfr_ptr *terms, unsigned long n, mpfr_ptr h, mpfr_ptr l, double hi)
{
    mpfr_t s, a;
    mpfr_inits2(64, s, a, (mpfr_ptr)0);
    mpfr_set_ui(s, 0, MPFR_RNDN);
    for (unsigned long i = 0; i < n; i++) {
        mpfr_abs(a, terms[i], MPFR_RNDU);
        mpfr_add(s, s, a, MPFR_RNDU);
    }
    mpfr_mul_d(s, s, (double)(n + 4) * 0x1p-50, MPFR_RNDU); /* the rounding error */
    mpfr_set_d(a, -copysign(DBL_MAX, hi), MPFR_RNDN);
    mpfr_add(a, h, a, MPFR_RNDZ);                           /* excess (h odd-rounded: ≥ 2^970) */
    mpfr_mul_2ui(s, s, 1, MPFR_RNDU);                       /* twice it */
    bool clear = mpfr_cmpabs(a, s) > 0;
    double x = 0;
    if (clear) {
        mpfr_set(l, a, MPFR_RNDN);
        x = mpfr_get_d(l, MPFR_RNDN);
    }
    mpfr_clears(s, a, (mpfr_ptr)0);
    return x;
}

void ref_finish_mpfr_sum(mpfr_ptr *terms, unsigned long n, double *hi, double *lo, mpfr_ptr scratch)
{
    (void)scratch;
    if (n == 0) {
        *hi = *lo = 0;
        return;
    }
    mpfr_t h, l;
    mpfr_init2(h, REF_ODD_PREC);
    mpfr_init2(l, REF_LO_BITS);
    ref_mpfr_round_odd(h, mpfr_sum(h, terms, n, MPFR_RNDZ));
    /* an exact zero is +0 whatever its terms' signs (MPFR sums −0 terms to −0; the fast paths,
     * like a device's accumulator starting at +0, give +0) */
    *hi = mpfr_get_d(h, MPFR_RNDN) + 0.0;
    if (isfinite(*hi)) {
        mpfr_set_d(h, -*hi, MPFR_RNDN); /* exact */
        terms[n] = h;
        mpfr_sum(l, terms, n + 1, MPFR_RNDN);
        *lo = ref_mpfr_lo(l);
        if (*hi == 0 && *lo == 0)
            *lo = 0; /* (+0, +0) */
    } else if (mpfr_number_p(h)) {
        *lo = beyond_excess(terms, n, h, l, *hi);
    } else {
        *lo = 0;
    }
    mpfr_clear(h);
    mpfr_clear(l);
}

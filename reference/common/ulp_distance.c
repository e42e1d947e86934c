/* ref_ulp_distance: the number of representable values of dt between got and want, from a
 * monotone integer ordinal of each (sign-magnitude: ordinal(-x) = -ordinal(x)). */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ref_internal.h"

/* ordinal(|x|) = (e - emin)·2^(p-1) + |x|/2^(e-p+1), e = max(floor(log2|x|), emin): 0 at 0,
 * 2^(p-1) at the smallest normal, one past the largest finite value at infinity. */
static long double ordinal(double x, ref_dtype dt)
{
    const ref_prec *f = ref_dtype_prec(dt);
    if (f == NULL || dt == REF_DT_DOUBLE) { /* DOUBLE (and any other): the bit pattern */
        uint64_t b;
        memcpy(&b, &x, sizeof b);
        long double m = (long double)(b & 0x7fffffffffffffffull);
        return signbit(x) ? -m : m;
    }
    const int p = f->bits, emin = f->emin, emax = f->emax;
    double a = fabs(x);
    long double m;
    if (isinf(a))
        m = (long double)(emax + 1 - emin) * ldexp(1.0, p - 1) + ldexp(1.0, p - 1);
    else if (a == 0)
        m = 0;
    else {
        int e = ilogb(a);
        if (e < emin)
            e = emin;
        m = (long double)(e - emin) * ldexp(1.0, p - 1) + ldexp(a, p - 1 - e);
    }
    return signbit(x) ? -m : m;
}

/* The ordinal of a value of dt held in a double that is normal in dt, in integer arithmetic:
 * (e − emin + 1)·2^(p−1) + the p−1 stored fraction bits. false for values that are not (a
 * subnormal of dt, inf, NaN, 0, a value with more than p significant bits): the formula above. */
static inline bool ordinal_fast(double x, const ref_prec *f, int64_t *ord)
{
    uint64_t u = ref_bits_of(x), frac = u & ((1ull << 52) - 1);
    int e = (int)(u >> 52 & 0x7ff) - 1023, shift = 53 - f->bits;
    if (e < f->emin || e > f->emax || (frac & ((1ull << shift) - 1)))
        return false;
    int64_t m = ((int64_t)(e - f->emin + 1) << (f->bits - 1)) + (int64_t)(frac >> shift);
    *ord = u >> 63 ? -m : m;
    return true;
}

double ref_ulp_distance(double got, double want, ref_dtype dt)
{
    const ref_prec *f = ref_dtype_prec(dt);
    int64_t a, b;
    if (f && dt != REF_DT_DOUBLE && ordinal_fast(got, f, &a) && ordinal_fast(want, f, &b))
        return (double)(a > b ? a - b : b - a);
    if (isnan(got) || isnan(want))
        return (isnan(got) && isnan(want)) ? 0 : INFINITY;
    if (isinf(got) && isinf(want) && got != want)
        return INFINITY;
    if (got == want)
        return 0;
    return (double)fabsl(ordinal(got, dt) - ordinal(want, dt));
}

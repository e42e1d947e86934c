/* ref_round_to, ref_round_bits(_emin), ref_unit_roundoff, ref_round_value: rounding of doubles
 * to the narrow formats (their precision from dtype_prec.c) in plain double arithmetic. x / q
 * and q * n below are exact (q a power of two, the quotient below 2^p), so the only rounding is
 * nearbyint's, ties-to-even in the default mode. tests/reference/common/test_round_to.c checks
 * it against MPFR's set_emin/emax + subnormalize emulation (facts §5) on subnormals, ties and
 * overflow. */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ref_internal.h"

/* The common case in integer arithmetic: x a normal double whose exponent is at least emin, so
 * the rounded value has p significant bits. Adding half an ulp (less one, plus the kept last
 * bit: ties to even) and clearing the dropped bits rounds the magnitude; a carry out of the
 * significand lands in the exponent, which is the right answer. It spares every checked
 * element and reference answer the calls to ilogb, ldexp and nearbyint. */
static inline bool round_fast(double x, int p, int emin, int emax, double *r)
{
    uint64_t u = ref_bits_of(x), mag = u & ~(1ull << 63);
    int e = (int)(mag >> 52) - 1023;
    if (e < emin || e > 1023 - 1 || p >= 53 || emax >= 1023)
        return false; /* subnormal in dt or in double, inf/nan, or no narrowing to do */
    int shift = 53 - p;
    uint64_t low = (1ull << shift) - 1;
    mag += (low >> 1) + ((mag >> shift) & 1);
    mag &= ~low;
    if ((int)(mag >> 52) - 1023 > emax)
        mag = 0x7ff0000000000000ull;
    *r = ref_of_bits((u & (1ull << 63)) | mag);
    return true;
}

static inline double round_fmt(double x, int p, int emin, int emax)
{
    double fast;
    if (round_fast(x, p, emin, emax, &fast))
        return fast;
    if (!isfinite(x) || x == 0)
        return x;
    int e = ilogb(x);
    if (e < emin)
        e = emin;
    if (e - p + 1 < -1074)
        return x; /* x has fewer than p significant bits already */
    double q = ldexp(1.0, e - p + 1);
    double r = nearbyint(x / q) * q;
    if (emax < INT_MAX && fabs(r) >= ldexp(1.0, emax + 1))
        r = copysign(INFINITY, x);
    return r;
}

double ref_round_bits(double x, int p) { return round_fmt(x, p, INT_MIN, INT_MAX); }

double ref_round_bits_emin(double x, int p, int emin) { return round_fmt(x, p, emin, INT_MAX); }

double ref_round_to(double x, ref_dtype dt)
{
    switch (dt) { /* constant formats: the fast path folds them */
    case REF_DT_FLOAT: return round_fmt(x, REF_FP32_FORMAT);
    case REF_DT_FLOAT16: return round_fmt(x, REF_FP16_FORMAT);
    case REF_DT_BF16: return round_fmt(x, REF_BF16_FORMAT);
    default: return x; /* DOUBLE, and dtypes without a floating format */
    }
}

void ref_round_to_array(double *x, int64_t n, ref_dtype dt)
{
    switch (dt) { /* the format tested once; round_fmt inlined with its constants */
    case REF_DT_FLOAT:
        for (int64_t i = 0; i < n; i++) x[i] = round_fmt(x[i], REF_FP32_FORMAT);
        return;
    case REF_DT_FLOAT16:
        for (int64_t i = 0; i < n; i++) x[i] = round_fmt(x[i], REF_FP16_FORMAT);
        return;
    case REF_DT_BF16:
        for (int64_t i = 0; i < n; i++) x[i] = round_fmt(x[i], REF_BF16_FORMAT);
        return;
    default:
        return;
    }
}

double ref_unit_roundoff(ref_dtype dt)
{
    const ref_prec *f = ref_dtype_prec(dt);
    return (f ? f : ref_dtype_prec(REF_DT_FLOAT))->unit_roundoff;
}

/* Whether x lies exactly halfway between two neighbours of dt's precision at x (a midpoint, the
 * overflow threshold among them): half a quantum q left over, q = 2^(e−p+1), e = max(e_x, emin).
 * x/q and its fractional part are exact. */
static bool on_midpoint(double x, const ref_prec *f)
{
    uint64_t mag = ref_bits_of(x) & ~(1ull << 63);
    int e = (int)(mag >> 52) - 1023, shift = 53 - f->bits;
    if (e >= f->emin && e <= 1023 - 1)
        return (mag & ((1ull << shift) - 1)) == 1ull << (shift - 1);
    if (e < f->emin)
        e = f->emin;
    double t = fabs(x) / ldexp(1.0, e - f->bits + 1);
    return t - floor(t) == 0.5;
}

/* Rounding hi+lo as one number: only when hi itself sits on a rounding boundary of dt (a
 * midpoint, or the overflow threshold) can the sign of lo change the answer; then the double
 * next to hi on lo's side lies strictly between that boundary and the neighbouring
 * representable value and rounds like the exact value. (Asking whether the double next to hi
 * rounds differently instead misjudged an hi one double below a midpoint.) */
double ref_round_value(const ref_value *v, ref_dtype dt)
{
    double r = ref_round_to(v->hi, dt);
    if (v->lo == 0 || r == v->hi || !isfinite(v->hi) || !on_midpoint(v->hi, ref_dtype_prec(dt)))
        return r;
    return ref_round_to(nextafter(v->hi, v->lo > 0 ? INFINITY : -INFINITY), dt);
}

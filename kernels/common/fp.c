/* Narrow floating-point formats in portable C (no compiler _Float16): FP16, BF16 and HF32.
 * Rounding works on the exact value in double: every float is exact in double, and scaling by
 * powers of two is exact, so one integer rounding of the scaled magnitude is the whole job. */
#include <math.h>
#include <string.h>

#include "emu.h"

typedef struct {
    int precision; /* significand bits incl. the hidden one */
    int emin;      /* exponent of the smallest normal: 2^emin */
    int emax;      /* exponent of the largest binade */
} fp_format;

static const fp_format FP16 = {11, -14, 15};
static const fp_format BF16 = {8, -126, 127};

/* |x| rounded to the format (nearest-even, or toward zero when truncate); may return INFINITY. */
static double round_magnitude(double ax, fp_format f, bool truncate)
{
    if (ax == 0.0 || isinf(ax) || isnan(ax))
        return ax;
    int e;
    frexp(ax, &e); /* ax = m * 2^e, m in [0.5, 1): binade exponent is e-1 */
    int binade = e - 1 < f.emin ? f.emin : e - 1;
    double quantum = ldexp(1.0, binade - (f.precision - 1));
    double q = ax / quantum; /* exact */
    double r = floor(q);
    if (!truncate) {
        double frac = q - r;
        if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) != 0.0))
            r += 1.0;
    }
    double v = r * quantum;
    double max_finite = ldexp(2.0 - ldexp(1.0, 1 - f.precision), f.emax);
    if (v > max_finite)
        return truncate ? max_finite : INFINITY;
    return v;
}

/* Encodes a value already representable in the format as sign|exponent|mantissa bits. */
static uint16_t encode(double v, bool negative, fp_format f, int exp_bits)
{
    int mant_bits = f.precision - 1;
    uint16_t sign = negative ? (uint16_t)(1u << (exp_bits + mant_bits)) : 0;
    uint16_t exp_all = (uint16_t)(((1u << exp_bits) - 1u) << mant_bits);
    if (isinf(v))
        return sign | exp_all;
    if (v == 0.0)
        return sign;
    int e;
    frexp(v, &e);
    if (e - 1 < f.emin) /* subnormal: count of smallest quanta */
        return sign | (uint16_t)ldexp(v, -(f.emin - mant_bits));
    int bias = (1 << (exp_bits - 1)) - 1;
    uint16_t biased = (uint16_t)(e - 1 + bias);
    uint16_t mant = (uint16_t)(ldexp(v, mant_bits - (e - 1)) - ldexp(1.0, mant_bits));
    return sign | (uint16_t)(biased << mant_bits) | mant;
}

static double decode(uint16_t h, fp_format f, int exp_bits)
{
    int mant_bits = f.precision - 1;
    int bias = (1 << (exp_bits - 1)) - 1;
    unsigned exp = (h >> mant_bits) & ((1u << exp_bits) - 1u);
    unsigned mant = h & ((1u << mant_bits) - 1u);
    double sign = (h >> (exp_bits + mant_bits)) & 1u ? -1.0 : 1.0;
    if (exp == (1u << exp_bits) - 1u)
        return mant ? NAN : sign * INFINITY;
    if (exp == 0)
        return sign * ldexp((double)mant, f.emin - mant_bits);
    return sign * ldexp((double)(mant | (1u << mant_bits)), (int)exp - bias - mant_bits);
}

uint16_t emu_f32_to_f16(float x, bool truncate)
{
    if (isnan(x))
        return signbit(x) ? 0xfe00 : 0x7e00;
    return encode(round_magnitude(fabs((double)x), FP16, truncate), signbit(x), FP16, 5);
}

float emu_f16_to_f32(uint16_t h) { return (float)decode(h, FP16, 5); }

uint16_t emu_f32_to_bf16(float x, bool truncate)
{
    if (isnan(x))
        return signbit(x) ? 0xffc0 : 0x7fc0;
    return encode(round_magnitude(fabs((double)x), BF16, truncate), signbit(x), BF16, 8);
}

float emu_bf16_to_f32(uint16_t h) { return (float)decode(h, BF16, 8); }

float emu_round_to_bits(float x, int bits)
{
    if (isnan(x) || isinf(x) || bits >= 24)
        return x;
    fp_format hf = {bits, -126, 127};
    double r = round_magnitude(fabs((double)x), hf, false);
    return (float)(signbit(x) ? -r : r);
}

float emu_round_f16(float x) { return emu_f16_to_f32(emu_f32_to_f16(x, false)); }
float emu_round_bf16(float x) { return emu_bf16_to_f32(emu_f32_to_bf16(x, false)); }

double emu_nudge_ulps(double x, aclDataType dt, int n)
{
    if (isnan(x) || isinf(x) || n == 0)
        return x;
    switch (dt) {
    case ACL_FLOAT16: {
        uint16_t h = emu_f32_to_f16((float)x, false);
        h = (uint16_t)(h + n); /* moves the magnitude away from zero */
        return emu_f16_to_f32(h);
    }
    case ACL_BF16: {
        uint16_t h = emu_f32_to_bf16((float)x, false);
        h = (uint16_t)(h + n);
        return emu_bf16_to_f32(h);
    }
    case ACL_FLOAT: {
        float f = (float)x;
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        u += (uint32_t)n;
        memcpy(&f, &u, sizeof f);
        return f;
    }
    default: {
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        u += (uint64_t)n;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    }
}

/* Narrow floating-point formats in portable C (no compiler _Float16): FP16, BF16 and HF32, on
 * the float's bits. A float is sign | 8-bit exponent | 23-bit fraction; a narrow format keeps the
 * top bits of the magnitude's fixed-point form, so rounding is integer arithmetic on it:
 * nearest-even adds just under half a quantum plus the kept part's last bit, truncation drops
 * the rest. */
#include <math.h>
#include <string.h>

#include "emu.h"

static uint32_t float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* m >> d rounded to nearest-even (or toward zero when truncate); d in [1, 31]. */
static uint32_t shift_round(uint32_t m, int d, bool truncate)
{
    uint32_t kept = m >> d, rest = m & ((1u << d) - 1u), half = 1u << (d - 1);
    if (!truncate && (rest > half || (rest == half && (kept & 1u))))
        kept++;
    return kept;
}

/* |x| (finite float bits a, sign cleared) as FP16 magnitude bits; an overflow is infinity, or
 * the largest finite value when truncating. The quantum is 2^(max(e, -14) - 10), so r below
 * counts quanta: below 2^-14 it is the subnormal field itself, above, r in [2^10, 2^11] and a
 * carry out of the fraction steps the exponent up, as the encoding wants. */
static uint16_t f16_magnitude(uint32_t a, bool truncate)
{
    int e = (int)(a >> 23) - 127;
    uint32_t m = (a & 0x7fffffu) | (e > -127 ? 0x800000u : 0u);
    if (e == -127)
        e = -126; /* float subnormals: m * 2^-149 */
    if (e > 15)
        return truncate ? 0x7bff : 0x7c00;
    int q = (e < -14 ? -14 : e) - 10, d = q - (e - 23); /* bits of m below the quantum */
    uint32_t r = d > 25 ? 0u : shift_round(m, d, truncate);
    uint32_t h = e < -14 ? r : (uint32_t)(e + 15 - 1) * 0x400u + r;
    return h >= 0x7c00u ? (truncate ? 0x7bff : 0x7c00) : (uint16_t)h;
}

uint16_t emu_f32_to_f16(float x, bool truncate)
{
    uint32_t u = float_bits(x), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return sign ? 0xfe00 : 0x7e00;
    return sign | (a == 0x7f800000u ? 0x7c00 : f16_magnitude(a, truncate));
}

/* A finite magnitude's bits shifted into a float's place are a float of the same significand
 * whose exponent is biased by 127 instead of 15: 2^112 times the value, subnormals included (a
 * float subnormal then), so one exact product gives it. */
float emu_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, mag = h & 0x7fffu;
    if (mag > 0x7c00u)
        return NAN;
    if (mag == 0x7c00u)
        return bits_float(sign | 0x7f800000u);
    return bits_float(sign | float_bits(bits_float(mag << 13) * 0x1p112f));
}

/* BF16 is the float's top 16 bits: its exponent range is the float's, subnormals included. */
uint16_t emu_f32_to_bf16(float x, bool truncate)
{
    uint32_t u = float_bits(x), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return sign ? 0xffc0 : 0x7fc0;
    if (a == 0x7f800000u)
        return sign | 0x7f80;
    uint32_t r = shift_round(a, 16, truncate); /* may carry into the exponent: up to infinity */
    return sign | (uint16_t)r;
}

float emu_bf16_to_f32(uint16_t h)
{
    if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu))
        return NAN;
    return bits_float((uint32_t)h << 16);
}

/* x to `bits` significant bits (HF32: 11) in the float's exponent range: its fraction keeps
 * bits - 1 bits; a carry steps the exponent, up to infinity. */
float emu_round_to_bits(float x, int bits)
{
    if (isnan(x) || isinf(x) || bits >= 24)
        return x;
    uint32_t u = float_bits(x), a = u & 0x7fffffffu;
    int d = 24 - bits;
    return bits_float((u & 0x80000000u) | (shift_round(a, d, false) << d));
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

/* FP16 and BF16 conversions as static inline functions (never included outside kernels/): the
 * bodies of libnnopbase's exported emu_f32_to_f16 and kin (fp.c), for the operators' per-element
 * loops, which would otherwise cross into libnnopbase through the PLT for every element.
 *
 * Narrow floating-point formats in portable C (no compiler _Float16), on the float's bits. A
 * float is sign | 8-bit exponent | 23-bit fraction; a narrow format keeps the top bits of the
 * magnitude's fixed-point form, so rounding is integer arithmetic on it: nearest-even adds just
 * under half a quantum plus the kept part's last bit, truncation drops the rest. */
#ifndef ACLCTS_KERNELS_EMU_FP_H_
#define ACLCTS_KERNELS_EMU_FP_H_

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t fp_float_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float fp_bits_float(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* m >> d rounded to nearest-even (or toward zero when truncate); d in [1, 31]. */
static inline uint32_t fp_shift_round(uint32_t m, int d, bool truncate)
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
static inline uint16_t fp_f16_magnitude(uint32_t a, bool truncate)
{
    int e = (int)(a >> 23) - 127;
    uint32_t m = (a & 0x7fffffu) | (e > -127 ? 0x800000u : 0u);
    if (e == -127)
        e = -126; /* float subnormals: m * 2^-149 */
    if (e > 15)
        return truncate ? 0x7bff : 0x7c00;
    int q = (e < -14 ? -14 : e) - 10, d = q - (e - 23); /* bits of m below the quantum */
    uint32_t r = d > 25 ? 0u : fp_shift_round(m, d, truncate);
    uint32_t h = e < -14 ? r : (uint32_t)(e + 15 - 1) * 0x400u + r;
    return h >= 0x7c00u ? (truncate ? 0x7bff : 0x7c00) : (uint16_t)h;
}

/* Any NaN becomes the quiet NaN of its sign without payload (0x7e00, 0xfe00). */
static inline uint16_t fp_f32_to_f16(float x, bool truncate)
{
    uint32_t u = fp_float_bits(x), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return sign ? 0xfe00 : 0x7e00;
    return sign | (a == 0x7f800000u ? 0x7c00 : fp_f16_magnitude(a, truncate));
}

/* A finite magnitude's bits shifted into a float's place are a float of the same significand
 * whose exponent is biased by 127 instead of 15: 2^112 times the value, subnormals included (a
 * float subnormal then), so one exact product gives it. Any NaN becomes NAN (0x7fc00000). */
static inline float fp_f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, mag = h & 0x7fffu;
    if (mag > 0x7c00u)
        return NAN;
    if (mag == 0x7c00u)
        return fp_bits_float(sign | 0x7f800000u);
    return fp_bits_float(sign | fp_float_bits(fp_bits_float(mag << 13) * 0x1p112f));
}

/* BF16 is the float's top 16 bits: its exponent range is the float's, subnormals included. */
static inline uint16_t fp_f32_to_bf16(float x, bool truncate)
{
    uint32_t u = fp_float_bits(x), a = u & 0x7fffffffu;
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    if (a > 0x7f800000u)
        return sign ? 0xffc0 : 0x7fc0;
    if (a == 0x7f800000u)
        return sign | 0x7f80;
    uint32_t r = fp_shift_round(a, 16, truncate); /* may carry into the exponent: up to inf */
    return sign | (uint16_t)r;
}

static inline float fp_bf16_to_f32(uint16_t h)
{
    if ((h & 0x7f80u) == 0x7f80u && (h & 0x7fu))
        return NAN;
    return fp_bits_float((uint32_t)h << 16);
}

static inline float fp_round_f16(float x) { return fp_f16_to_f32(fp_f32_to_f16(x, false)); }
static inline float fp_round_bf16(float x) { return fp_bf16_to_f32(fp_f32_to_bf16(x, false)); }

#endif

/* FP16, BF16 and HF32 (emu.h): the per-element conversions are emu_fp.h's inline ones, the
 * bulk ones use the processor's F16C instructions where it has them, whose FP16 rounding is
 * IEEE round-to-nearest-even with subnormals, as emu_fp.h's; only a NaN differs (F16C keeps
 * sign and payload, ours is the canonical quiet NaN) and is redone one element at a time. */
#include <math.h>
#include <string.h>

#include "emu.h"
#include "emu_fp.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define FP_HAVE_F16C_PATH 1
#else
#define FP_HAVE_F16C_PATH 0
#endif

uint16_t emu_f32_to_f16(float x, bool truncate) { return fp_f32_to_f16(x, truncate); }
float emu_f16_to_f32(uint16_t h) { return fp_f16_to_f32(h); }
uint16_t emu_f32_to_bf16(float x, bool truncate) { return fp_f32_to_bf16(x, truncate); }
float emu_bf16_to_f32(uint16_t h) { return fp_bf16_to_f32(h); }

#if FP_HAVE_F16C_PATH
static bool cpu_has_f16c(void)
{
    static int known = -1; /* a race only writes the same answer twice */
    if (known < 0) {
        unsigned a, b, c, d;
        __builtin_cpu_init();
        /* F16C from CPUID leaf 1 (ECX bit 29): clang's __builtin_cpu_supports has no "f16c" */
        known = __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) &&
                (c & bit_F16C) != 0;
    }
    return known;
}

/* Eight at a time by VCVTPH2PS (exact, as the scalar product by 2^112), NaN lanes made NAN. */
__attribute__((target("avx,f16c"))) static int64_t f16_to_f32_f16c(const uint16_t *src,
                                                                    float *dst, int64_t n)
{
    const __m256 canonical = _mm256_set1_ps(NAN);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i)));
        f = _mm256_blendv_ps(f, canonical, _mm256_cmp_ps(f, f, _CMP_UNORD_Q));
        _mm256_storeu_ps(dst + i, f);
    }
    return i;
}

/* Eight at a time by VCVTPS2PH in round-to-nearest-even; a group holding a NaN is redone by
 * the scalar conversion. */
__attribute__((target("avx,f16c"))) static int64_t f32_to_f16_f16c(const float *src,
                                                                    uint16_t *dst, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 f = _mm256_loadu_ps(src + i);
        _mm_storeu_si128((__m128i *)(dst + i), _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT));
        if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)))
            for (int64_t k = i; k < i + 8; k++)
                dst[k] = fp_f32_to_f16(src[k], false);
    }
    return i;
}
#endif

void emu_f16_to_f32_n(const uint16_t *src, float *dst, int64_t n)
{
    int64_t i = 0;
#if FP_HAVE_F16C_PATH
    if (cpu_has_f16c())
        i = f16_to_f32_f16c(src, dst, n);
#endif
    for (; i < n; i++)
        dst[i] = fp_f16_to_f32(src[i]);
}

void emu_f32_to_f16_n(const float *src, uint16_t *dst, int64_t n, bool truncate)
{
    int64_t i = 0;
#if FP_HAVE_F16C_PATH
    if (!truncate && cpu_has_f16c())
        i = f32_to_f16_f16c(src, dst, n);
#endif
    for (; i < n; i++)
        dst[i] = fp_f32_to_f16(src[i], truncate);
}

void emu_bf16_to_f32_n(const uint16_t *src, float *dst, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = fp_bf16_to_f32(src[i]);
}

void emu_f32_to_bf16_n(const float *src, uint16_t *dst, int64_t n, bool truncate)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = fp_f32_to_bf16(src[i], truncate);
}

/* x to `bits` significant bits (HF32: 11) in the float's exponent range: its fraction keeps
 * bits - 1 bits; a carry steps the exponent, up to infinity. */
float emu_round_to_bits(float x, int bits)
{
    if (isnan(x) || isinf(x) || bits >= 24)
        return x;
    uint32_t u = fp_float_bits(x), a = u & 0x7fffffffu;
    int d = 24 - bits;
    return fp_bits_float((u & 0x80000000u) | (fp_shift_round(a, d, false) << d));
}

float emu_round_f16(float x) { return fp_round_f16(x); }
float emu_round_bf16(float x) { return fp_round_bf16(x); }

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

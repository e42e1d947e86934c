/* FNV-1a 64 over long buffers without its serial chain (check.h: cts_fnv1a_long).
 *
 * The step h = (h ^ b) * P (P = 0x100000001b3) is h = P * (h + e) with e = (l ^ b) - l, l the
 * state's low byte (the xor changes no other byte). So with the e's known, the state after n
 * bytes is P^n h0 + sum e_i P^(n-i+1) mod 2^64: a sum of independent products, taken eight
 * lanes at a time. The e's need only the low byte's own chain, l' = ((l ^ b) * 0xb3) mod 256,
 * which is solved one bit plane at a time: with x = l ^ b and c = 0xb3 odd, bit k of x * c is
 * x's bit k xor bit k of (x's bits below k) * c, so once the planes below k are known for every
 * position, plane k is a prefix xor along the positions (a carry-less multiply by all ones). */
#include "check.h"

#include <stdbool.h>
#include <stdint.h>

#define FNV_P 0x100000001b3ull

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define FNV_WIDE 1
#define FNV_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vbmi,pclmul")))
enum { BLOCK = 1024, NV = BLOCK / 64, NACC = 16 }; /* bytes a block; its vectors; sums */

/* P^n mod 2^64 */
static uint64_t fnv_pow(uint64_t n)
{
    uint64_t r = 1, b = FNV_P;
    for (; n; n >>= 1, b *= b)
        if (n & 1) r *= b;
    return r;
}

/* The powers a block's sums are weighed with: sum r's lane j holds the bytes at 128 m + 8 r + j
 * (m = 0 ..), each a step of P^128 from the next, the last weighed P^(128 - 8 r - j). */
typedef struct {
    uint64_t w[NACC][8], step; /* weights; P^128 */
} fnv_powers;

static const fnv_powers *fnv_powers_get(void)
{
    static _Thread_local fnv_powers k; /* each thread's own: no thread waits or races */
    static _Thread_local bool ready;
    if (!ready) {
        for (int r = 0; r < NACC; r++)
            for (int j = 0; j < 8; j++) k.w[r][j] = fnv_pow((uint64_t)(128 - 8 * r - j));
        k.step = fnv_pow(128);
        ready = true;
    }
    return &k;
}

/* Prefix xor of the 64 bits of d (bit i: xor of bits 0 .. i): d times all ones, carry-less. */
FNV_TARGET static inline uint64_t prefix_xor(uint64_t d)
{
    __m128i m = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)d), _mm_set1_epi64x(-1), 0);
    return (uint64_t)_mm_cvtsi128_si64(m);
}

/* Plane k of the low byte before every byte of the block into lp (planes below k there):
 * t = bit k of (x's bits below k) * 0xb3 from a table of v * 0xb3 mod 256 (v < 128), and the
 * plane after each byte is the prefix xor of t ^ b's bit k, from l0's bit k. */
FNV_TARGET static inline __attribute__((always_inline)) unsigned
plane(__m512i lp[NV], const unsigned char *p, unsigned l0, int k, __m512i tlo, __m512i thi)
{
    const __m512i bit = _mm512_set1_epi8((char)(1 << k));
    const __m512i low = _mm512_set1_epi8((char)((1 << k) - 1));
    uint64_t carry = (l0 >> k) & 1;
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        __m512i b = _mm512_loadu_si512(p + 64 * v);
        __m512i x = _mm512_and_si512(_mm512_xor_si512(lp[v], b), low);
        __m512i t = k == 0  ? _mm512_setzero_si512() /* nothing below bit 0 */
                    : k < 7 ? _mm512_permutexvar_epi8(x, tlo)
                            : _mm512_permutex2var_epi8(tlo, x, thi);
        uint64_t after = prefix_xor(_mm512_test_epi8_mask(_mm512_xor_si512(t, b), bit)) ^ -carry;
        __mmask64 before = (after << 1) | carry;
        carry = after >> 63;
        lp[v] = _mm512_mask_add_epi8(lp[v], before, lp[v], bit);
    }
    return (unsigned)carry;
}

/* The e's of the block's bytes (x - l as 16-bit integers) from the low bytes before each. */
FNV_TARGET static inline void block_e(const __m512i lp[NV], const unsigned char *p, int16_t *e)
{
    for (int v = 0; v < NV; v++) {
        __m512i x = _mm512_xor_si512(lp[v], _mm512_loadu_si512(p + 64 * v));
        for (int half = 0; half < 2; half++) {
            __m256i xh = half ? _mm512_extracti64x4_epi64(x, 1) : _mm512_castsi512_si256(x);
            __m256i lh = half ? _mm512_extracti64x4_epi64(lp[v], 1) : _mm512_castsi512_si256(lp[v]);
            __m512i d = _mm512_sub_epi16(_mm512_cvtepu8_epi16(xh), _mm512_cvtepu8_epi16(lh));
            _mm512_storeu_si512(e + 64 * v + 32 * half, d);
        }
    }
}

/* The sums over the block's e's, continued: sum r's lane j takes the e's at 128 m + 8 r + j
 * (m = 0 ..) by Horner's rule, a step of P^128 a term, so the multiplies' latency overlaps. */
FNV_TARGET static inline void block_sums(const int16_t *e, __m512i acc[NACC], __m512i step)
{
    for (int m = 0; m < BLOCK; m += 128)
#pragma GCC unroll 16
        for (int r = 0; r < NACC; r++) {
            __m512i t = _mm512_cvtepi16_epi64(_mm_loadu_si128((const __m128i *)(e + m + 8 * r)));
            acc[r] = _mm512_add_epi64(_mm512_mullo_epi64(acc[r], step), t);
        }
}

/* The low byte after the block from l0, the block's e's into the sums. */
FNV_TARGET static unsigned block_add(unsigned l0, const unsigned char *p, __m512i acc[NACC],
                                     __m512i step)
{
    static const unsigned char c = 0xb3;
    unsigned char tab[128];
    for (int v = 0; v < 128; v++) tab[v] = (unsigned char)(v * c);
    __m512i tlo = _mm512_loadu_si512(tab), thi = _mm512_loadu_si512(tab + 64), lp[NV];
    for (int v = 0; v < NV; v++) lp[v] = _mm512_setzero_si512();
    unsigned l = 0;
#pragma GCC unroll 8
    for (int b = 0; b < 8; b++) l |= plane(lp, p, l0, b, tlo, thi) << b;
    int16_t e[BLOCK];
    block_e(lp, p, e);
    block_sums(e, acc, step);
    return l;
}

/* The lanes added as unsigned: GCC's _mm512_reduce_add_epi64 adds them as signed long long,
 * which UBSan reports as overflow on hashes that wrap, as they all do. */
FNV_TARGET static uint64_t lanes_sum(__m512i v)
{
    uint64_t x[8], s = 0;
    _mm512_storeu_si512(x, v);
    for (int i = 0; i < 8; i++) s += x[i];
    return s;
}

/* The blocks' sums (a byte's e weighed P^(n-i+1), i its place from 1): each sum's lane weighed
 * by its last term's power, all added, and h0 P^n. */
FNV_TARGET static uint64_t fnv1a_wide(uint64_t h, const unsigned char *p, size_t n)
{
    const fnv_powers *k = fnv_powers_get();
    __m512i acc[NACC], step = _mm512_set1_epi64((long long)k->step);
    for (int r = 0; r < NACC; r++) acc[r] = _mm512_setzero_si512();
    size_t i = 0;
    unsigned l = (unsigned)(h & 0xff);
    for (; i + BLOCK <= n; i += BLOCK) l = block_add(l, p + i, acc, step);
    __m512i s = _mm512_setzero_si512();
    for (int r = 0; r < NACC; r++)
        s = _mm512_add_epi64(s, _mm512_mullo_epi64(acc[r], _mm512_loadu_si512(k->w[r])));
    h = fnv_pow(i) * h + lanes_sum(s);
    return cts_fnv1a(h, p + i, n - i);
}

static int fnv_wide_cpu(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vbmi") &&
           __builtin_cpu_supports("pclmul");
}
#endif

bool cts_fnv1a_long_wide(size_t n)
{
#ifdef FNV_WIDE
    return n >= CTS_FNV1A_LONG && fnv_wide_cpu();
#else
    (void)n;
    return false;
#endif
}

uint64_t cts_fnv1a_long(uint64_t h, const unsigned char *p, size_t n)
{
#ifdef FNV_WIDE
    if (n >= CTS_FNV1A_LONG && fnv_wide_cpu()) return fnv1a_wide(h, p, n);
#endif
    return cts_fnv1a(h, p, n);
}

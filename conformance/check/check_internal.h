/* The check stage's own pieces shared by its files and its unit tests (not check.h's users). */
#ifndef ACLCTS_CONFORMANCE_CHECK_INTERNAL_H_
#define ACLCTS_CONFORMANCE_CHECK_INTERNAL_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* Half-octave indices i (upper edge 2^(i/2)) kept in their own bin. */
#define IMIN (-80)
#define IMAX 80
_Static_assert(CTS_STAT_BINS == 2 + (IMAX - IMIN) + 2, "bin layout and CTS_STAT_BINS agree");

/* ceil(2 log2 x) for finite x > 0, from the exponent and the fraction (no log2 to round at the
 * edges): x = y·2^(e−1), y in [1, 2); 2 log2 x is 2e − 2 at y = 1, at most 2e − 1 while
 * y <= sqrt(2), so while y < M_SQRT2, the double above sqrt(2). Subnormals go through frexp. */
static inline int half_octave(double x)
{
    uint64_t u, frac;
    memcpy(&u, &x, sizeof u);
    int be = (int)(u >> 52 & 0x7ff), e;
    double y;
    if (be != 0) {
        e = be - 1022;
        frac = u & ((1ull << 52) - 1);
        uint64_t yb = frac | (1023ull << 52);
        memcpy(&y, &yb, sizeof y);
    } else {
        y = 2 * frexp(x, &e);
        frac = y != 1;
    }
    if (frac == 0) return 2 * e - 2;
    return y < M_SQRT2 ? 2 * e - 1 : 2 * e;
}

static inline int stat_bin(double x)
{
    if (!(x < INFINITY)) return CTS_STAT_BINS - 1; /* inf, NaN */
    if (x <= 0) return 0;
    int i = half_octave(x);
    if (i <= IMIN) return 1;
    if (i > IMAX) return CTS_STAT_BINS - 2;
    return 2 + (i - IMIN - 1);
}

/* cts_elem_stats_add, inline for the judge's loop. */
static inline void elem_stats_add(cts_elem_stats *s, const double err[CTS_STAT_METRICS],
                                  const bool meets[CTS_STAT_STANDARDS])
{
    s->n++;
    for (int m = 0; m < CTS_STAT_METRICS; m++) {
        s->sum[m] += err[m];
        if (err[m] > s->max[m] || isnan(err[m])) s->max[m] = err[m];
        s->hist[m][stat_bin(err[m])]++;
    }
    for (int k = 0; k < CTS_STAT_STANDARDS; k++) s->meets[k] += meets[k];
}


/* n elements without error added to s (what n calls of cts_elem_stats_add with zero errors that
 * every standard accepts add). */
void cts_elem_stats_add_zeros(cts_elem_stats *s, int64_t n);

/* cts_judge_chunk_got with every element through cts_judge_element and the whole per-element
 * path: what cts_judge_chunk_got's one-pass shortcuts must agree with (the tests compare them). */
void cts_judge_chunk_each(cts_output_judge *j, const ref_chunk *ch, const double *got);

/* Whether x is a value of FLOAT16 (kind 2), BF16 (1) or FLOAT (0), 1 or 0, as ref_round_to(x,
 * dt) == x says for finite x, from the bits of x as an FP32 (it is one first): BF16 keeps an
 * FP32's top 16 bits; FLOAT16 the top 10 fraction bits of a normal, and multiples of 2^-24 down
 * to 2^-24. Without branches, so a loop of it runs over vector lanes (judge_batch.c). */
static inline uint32_t cts_narrow_holds(double x, int kind)
{
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u &= 0x7fffffffu;
    int32_t e = (int32_t)(u >> 23) - 127, ec = e < -24 ? -24 : e;
    uint32_t dropped = ec >= -14 ? 13u : (uint32_t)(-1 - ec); /* 13 + (-14 - e): 13 .. 23 */
    uint32_t holds16 = ((u & ((1u << dropped) - 1u)) == 0) & (e <= 15) & (e >= -24);
    uint32_t holds = kind == 2 ? holds16 : kind == 1 ? (u & 0xffffu) == 0 : 1u;
    return ((double)f == x) & ((u == 0) | holds);
}

#endif

/* Grid sampler: the double-double fast path (with Ziv's fallback) and pure MPFR (force_mpfr)
 * must give bitwise identical answers (same_output.h) on ≥ 10^5 random elements per dtype
 * (inputs rounded to the dtype), across padding, interpolation and alignCorners. Also: results do
 * not depend on the thread count, and the fast path decides most elements. The expected side is
 * MPFR (exact terms, mpfr_sum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_grid_sampler2d_backward.h"
#include "same_output.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static const ref_dtype DTS[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT, REF_DT_DOUBLE};

/* The fast path on fast_threads threads against pure MPFR on the other count of 1 and 2: both
 * outputs the same in every field. *fo: the fast run's options (its counts); *fg_out, when not
 * NULL, the fast grid_grad (the caller frees it). */
static void fast_vs_mpfr(const ref_grid_params *p, const double *go, const double *in,
                         const double *gr, ref_dtype dt, int fast_threads, ref_options *fo,
                         ref_output *fg_out)
{
    *fo = (ref_options){.threads = fast_threads, .path = ref_grid_path(dt)};
    ref_options mo = {.force_mpfr = true, .threads = 3 - fast_threads, .path = ref_grid_path(dt)};
    ref_output fi, fg, mi, mg;
    assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, fo, &fi, &fg), 0);
    assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, &mo, &mi, &mg), 0);
    same_output(&fi, &mi);
    same_output(&fg, &mg);
    ref_output_free(&fi); ref_output_free(&mi); ref_output_free(&mg);
    if (fg_out)
        *fg_out = fg;
    else
        ref_output_free(&fg);
}

static void grid(void **state)
{
    (void)state;
    for (int d = 0; d < 4; d++)
        for (int mode = 0; mode < 2; mode++) {
            ref_grid_params p = {.n = 2, .c = 3, .h_in = 23, .w_in = 17, .h_out = 160, .w_out = 160,
                                 .interpolation = (d + mode) % 3 == 2 ? REF_INTERP_NEAREST : REF_INTERP_BILINEAR,
                                 .padding = (ref_padding)((d + mode) % 3), .align_corners = mode};
            if (mode)
                p.c = 1, p.h_out = 160, p.w_out = 160; /* ≥ 10^5 dx elements without; dgrid here */
            else
                p.c = 128, p.h_out = 40, p.w_out = 40;
            int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
            int64_t ngr = p.n * p.h_out * p.w_out * 2;
            double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8), *gr = malloc((size_t)ngr * 8);
            for (int64_t i = 0; i < ngo; i++)
                go[i] = ref_round_to(urand() * 2 - 1, DTS[d]);
            for (int64_t i = 0; i < nin; i++)
                in[i] = ref_round_to(urand() * 4 - 2, DTS[d]);
            for (int64_t i = 0; i < ngr; i++)
                gr[i] = ref_round_to((urand() * 2 - 1) * 1.3, DTS[d]);
            ref_options fo;
            fast_vs_mpfr(&p, go, in, gr, DTS[d], 1, &fo, NULL); /* 1 vs 2 threads */
            print_message("grid dtype %d mode %d: dx %lld dgrid %lld elements, fast %lld, fallback %lld\n",
                          DTS[d], mode, (long long)nin, (long long)ngr,
                          (long long)fo.fast_hits, (long long)fo.mpfr_fallbacks);
            assert_true(fo.fast_hits > 4 * fo.mpfr_fallbacks);
            free(go); free(in); free(gr);
        }
}

/* The fast path's shortcuts against pure MPFR where the data are just outside them:
 * - dx sums four planes at once from exact products of g and 26/27-bit parts of wx·wy
 *   (dx_sum_split) only where every g of the planes has at most 26 bits within [2^-400, 2^400];
 * - dgrid skips the per-term fma, finiteness and underflow tests and the sums that only decide
 *   REF_FLAG_RANGE (grid_dgrid_lean) only for batches of plain data (finite, ≤ 26 bits, 0 or ≥ 2^-484)
 *   whose intermediates stay below half the overflow threshold.
 * Batch 0: every g a few-bit multiple of 2^-1040 (short, but g·part loses bits below 2^-1074).
 * Batch 1: plain data, channel 0's input at ±2^127: the sum of a point's corner values (4·2^127)
 * passes the FP32 range while Σ|terms| does not, so only the skipped sums set the flag.
 * Batch 2: input (1 + 2^-23)·2^-500 and g 1.5·2^-574, both short: their product is
 * (1.5 + 1.5·2^-23)·2^-1074, which rounds to 2^-1073 (a third off). Every element of those
 * batches is made of such terms only, so a shortcut
 * taken there would differ from MPFR in a value or a flag. Batch 3: plain FP32 data with grid
 * values near 0 (weights of ~35 bits whose products need two words): the shortcuts run, and
 * must agree too. Batch 4: plain data at the bottom of the plain range (few-bit multiples of
 * 2^-484, products near 2^-968): dgrid's four-point lanes see corner sums below their
 * [2^-400, 2^400] range and leave them to grid_dgrid_point. */
static void shortcuts(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 5, .c = 4, .h_in = 5, .w_in = 5, .h_out = 6, .w_out = 6,
                         .interpolation = REF_INTERP_BILINEAR, .padding = REF_PAD_ZEROS};
    int64_t hw_out = p.h_out * p.w_out, hw_in = p.h_in * p.w_in;
    int64_t ngo = p.n * p.c * hw_out, nin = p.n * p.c * hw_in, ngr = p.n * hw_out * 2;
    double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8), *gr = malloc((size_t)ngr * 8);
    const double few[] = {1, -1.5, 1.25, -1.75};
    for (int64_t i = 0; i < ngo; i++) {
        int64_t b = i / (p.c * hw_out), c = i / hw_out % p.c;
        double r = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
        go[i] = b == 0 ? few[(int)(urand() * 4)] * 0x1p-1040 : b == 1 && c == 0 ? 0.125 * (r < 0 ? -1 : 1)
              : b == 2 ? 0x1.8p-574 : b == 4 ? few[(int)(urand() * 4)] * 0x1p-484 : r;
    }
    for (int64_t i = 0; i < nin; i++) {
        int64_t b = i / (p.c * hw_in), c = i / hw_in % p.c;
        double r = ref_round_to(urand() * 4 - 2, REF_DT_FLOAT);
        in[i] = b == 1 && c == 0 ? (r < 0 ? -0x1p127 : 0x1p127) : b == 2 ? 0x1.000002p-500
              : b == 4 ? few[(int)(urand() * 4)] * 0x1p-484 : r;
    }
    for (int64_t i = 0; i < ngr; i++)
        gr[i] = ref_round_to((urand() * 2 - 1) * (i >= 3 * hw_out * 2 && urand() < 0.5 ? 0x1p-9 : 0.9),
                             REF_DT_FLOAT);
    ref_options fo;
    ref_output fg;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, &fg);
    int64_t range = 0;
    for (int64_t i = hw_out * 2; i < 2 * hw_out * 2; i++) /* batch 1's dgrid */
        range += (fg.flags[i] & REF_FLAG_RANGE) != 0;
    assert_true(range > hw_out); /* the corner sums reached the range check */
    ref_output_free(&fg);
    free(go); free(in); free(gr);
}

/* dgrid's four-point lanes sum the magnitudes and |terms| before the scale, and scale them at
 * the end, when every |scale| is a power of two of at least 1 (both axes' size/2, or (size−1)/2
 * with alignCorners: 8 → 4, 9 → 4, 5 → 2); the same doubles as the scalar pass's, against pure
 * MPFR, every padding, FP32 and double data (the sizes of `grid` above never give that). */
static void pow2_scales(void **state)
{
    (void)state;
    const int64_t sizes[2][2] = {{8, 16}, {9, 5}}; /* (h_in, w_in) per alignCorners */
    for (int mode = 0; mode < 2; mode++)
        for (int pad = 0; pad < 3; pad++) {
            ref_dtype dt = pad == 1 ? REF_DT_DOUBLE : REF_DT_FLOAT;
            ref_grid_params p = {.n = 2, .c = 5, .h_in = sizes[mode][0], .w_in = sizes[mode][1],
                                 .h_out = 24, .w_out = 24, .interpolation = REF_INTERP_BILINEAR,
                                 .padding = (ref_padding)pad, .align_corners = mode};
            int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
            int64_t ngr = p.n * p.h_out * p.w_out * 2;
            double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8);
            double *gr = malloc((size_t)ngr * 8);
            for (int64_t i = 0; i < ngo; i++)
                go[i] = ref_round_to((urand() * 2 - 1) * 3, dt);
            for (int64_t i = 0; i < nin; i++)
                in[i] = ref_round_to((urand() * 2 - 1) * 5, dt);
            for (int64_t i = 0; i < ngr; i++)
                gr[i] = ref_round_to((urand() * 2 - 1) * 1.2, dt);
            ref_options fo;
            fast_vs_mpfr(&p, go, in, gr, dt, 2, &fo, NULL);
            free(go); free(in); free(gr);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(grid), cmocka_unit_test(shortcuts),
                                       cmocka_unit_test(pow2_scales)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

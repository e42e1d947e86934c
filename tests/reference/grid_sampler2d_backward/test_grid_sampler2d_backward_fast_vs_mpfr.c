/* Grid sampler: the double-double fast path (with Ziv's fallback) and pure MPFR (force_mpfr)
 * must give bitwise identical answers (same_output.h) on ≥ 10^5 random elements per dtype
 * (inputs rounded to the dtype), across padding, interpolation and alignCorners. Also: results do
 * not depend on the thread count, the fast path decides most elements, and on ordinary data it
 * meets no subnormal operand (x86's assists). The expected side is MPFR (exact terms, mpfr_sum). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include <math.h>
#include <cmocka.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

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

/* Where every |g| (input_grad) or every |g| and |val| (grid_grad's lanes, with a power-of-two
 * scale) of a batch is at most 1, each term's magnitude max(1, |g|)·max(1, |val|) is 1 and their
 * sums are counts, which the fast path sets instead of summing. FP32 data in [-1, 1] (±1 among
 * them) in batch 0; batch 1 has one gradOutput value 1 + 2^-23, batch 2 one input value
 * −(1 + 2^-23), so the counts apply to neither or to input_grad alone: the magnitudes differ
 * from the counts there, and each field must still be pure MPFR's. Batch 1 has a gradOutput
 * value of 53 bits (1/3) too, which its channel's input_grad must not sum from split products
 * (the scan's per-channel test, batch_view.gsplit). Nine channels and
 * H_out·W_out = 575 (blocks of 256 rows and 63): the channel-innermost copies' 8-channel tiles,
 * their last channel, and rows past the last group of 4 (grid_batch_prepare). */
static void unit_magnitudes(void **state)
{
    (void)state;
    const int64_t sizes[2][2] = {{8, 16}, {9, 5}}; /* (h_in, w_in): pow2 scales per alignCorners */
    for (int mode = 0; mode < 2; mode++)
        for (int pad = 0; pad < 2; pad++) {
            ref_grid_params p = {.n = 3, .c = 9, .h_in = sizes[mode][0], .w_in = sizes[mode][1],
                                 .h_out = 23, .w_out = 25, .interpolation = REF_INTERP_BILINEAR,
                                 .padding = (ref_padding)pad, .align_corners = mode};
            int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
            int64_t ngr = p.n * p.h_out * p.w_out * 2;
            double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8);
            double *gr = malloc((size_t)ngr * 8);
            for (int64_t i = 0; i < ngo; i++)
                go[i] = i % 97 == 0 ? (i % 2 ? -1 : 1) : ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
            for (int64_t i = 0; i < nin; i++)
                in[i] = i % 89 == 0 ? (i % 2 ? -1 : 1) : ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
            for (int64_t i = 0; i < ngr; i++)
                gr[i] = ref_round_to((urand() * 2 - 1) * 1.05, REF_DT_FLOAT);
            go[ngo / 3 + 5 * p.h_out * p.w_out + 100] = 1 + 0x1p-23; /* batch 1, channel 5 */
            go[ngo / 3 + 3 * p.h_out * p.w_out + 300] = 1.0 / 3; /* 53 bits: no split sums */
            in[2 * nin / 3 + 8 * p.h_in * p.w_in + 7] = -(1 + 0x1p-23); /* batch 2, channel 8 */
            ref_options fo;
            fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
            free(go); free(in); free(gr);
        }
}

/* Random data of dtype dt in [-a, a) for gradOutput, [-b, b) for input; grid values
 * (k + 1/4)/64 into *go, *in, *gr: exact coordinates (no branch alternatives), never on a
 * lattice point, and under border and reflection (which clip) |k| ≤ 54, so none is clipped to
 * an edge (sizes ≥ 8): no weight is exactly 0. (With a negative gradient such a term is −0, and
 * an element reached only by such terms is +0 on the fast path, −0 by MPFR.) */
static void dyadic_case(const ref_grid_params *p, ref_dtype dt, double a, double b, double **go,
                        double **in, double **gr)
{
    int64_t ngo = p->n * p->c * p->h_out * p->w_out, nin = p->n * p->c * p->h_in * p->w_in;
    int64_t ngr = p->n * p->h_out * p->w_out * 2;
    *go = malloc((size_t)ngo * 8);
    *in = malloc((size_t)nin * 8);
    *gr = malloc((size_t)ngr * 8);
    for (int64_t i = 0; i < ngo; i++)
        (*go)[i] = ref_round_to((urand() * 2 - 1) * a, dt);
    for (int64_t i = 0; i < nin; i++)
        (*in)[i] = ref_round_to((urand() * 2 - 1) * b, dt);
    int k = p->padding == REF_PAD_ZEROS ? 63 : 54;
    for (int64_t i = 0; i < ngr; i++)
        (*gr)[i] = ((int)(urand() * 2 * k) - k + 0.25) / 64;
}

/* x to 26 significant bits: the most the lanes take (plain data) */
static double round26(double x)
{
    int e;
    double f = frexp(x, &e);
    return ldexp(nearbyint(ldexp(f, 26)), e - 26);
}

/* The magnitudes of the bound's underflow term (under_mag, in units of 2^-1070) are summed by
 * the fast path's lanes unscaled and rounded as the scaled values are: against pure MPFR's scaled
 * sums where that rounding matters. Gradients and inputs past 1 with bits below 2^-4 (the
 * scaled quantum), sums past 2^35 (where the factor 1 + 2^-40 moves a subnormal) and past 2^48
 * (normal scaled values), products exactly halfway between multiples of 2^-4 (a tie to even),
 * double data of 26 bits (the most the lanes take) by scales of 11.5 and 8.5; power-of-two
 * scales (16 x 8) and others (12 x 10, 23 x 17, FP16 too). */
static void under_mag_unscaled(void **state)
{
    (void)state;
    const int64_t sizes[3][2] = {{16, 8}, {12, 10}, {23, 17}};
    const double mags[5][2] = {{3, 5}, {0x1p30, 0x1p8}, {0x1p45, 0x1p9}, {1.0625, 1.5},
                               {0x1p26, 0x1p18}};
    for (int s = 0; s < 3; s++)
        for (int m = 0; m < 5; m++) {
            ref_dtype dt = m == 4 ? REF_DT_DOUBLE : s == 2 ? REF_DT_FLOAT16 : REF_DT_FLOAT;
            ref_grid_params p = {.n = 2, .c = 6, .h_in = sizes[s][0], .w_in = sizes[s][1],
                                 .h_out = 9, .w_out = 11, .interpolation = REF_INTERP_BILINEAR,
                                 .padding = (ref_padding)((s + m) % 3), .align_corners = m % 2};
            int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
            double *go, *in, *gr;
            dyadic_case(&p, dt, mags[m][0], mags[m][1], &go, &in, &gr);
            for (int64_t i = 0; m == 3 && i < ngo; i++) /* 1.0625·1.5 = 1.59375 */
                go[i] = go[i] < 0 ? -1.0625 : 1.0625;
            for (int64_t i = 0; m == 3 && i < nin; i++)
                in[i] = in[i] < 0 ? -1.5 : 1.5;
            for (int64_t i = 0; m == 4 && i < ngo; i++)
                go[i] = round26(go[i]);
            for (int64_t i = 0; m == 4 && i < nin; i++)
                in[i] = round26(in[i]);
            ref_options fo;
            fast_vs_mpfr(&p, go, in, gr, dt, 2, &fo, NULL);
            assert_true(fo.fast_hits > 4 * fo.mpfr_fallbacks);
            free(go); free(in); free(gr);
        }
}

/* On ordinary data (|values| < 1, exact coordinates) the fast path on one thread (the caller's,
 * whose MXCSR this reads) takes no subnormal operand: x86 sets the denormal flag (DE) on one,
 * and each costs a microcode assist of some hundred cycles (the bound's underflow magnitudes,
 * scaled by 2^-1070, made the reference 5 times slower). FP32 data take the vector lanes,
 * double data of 53 bits the scalar passes. */
static void no_subnormal_operands(void **state)
{
    (void)state;
#if defined(__x86_64__) || defined(__i386__)
    const int64_t sizes[2][2] = {{16, 16}, {12, 10}};
    for (int s = 0; s < 4; s++) {
        ref_grid_params p = {.n = 2, .c = 8, .h_in = sizes[s % 2][0], .w_in = sizes[s % 2][1],
                             .h_out = 16, .w_out = 16, .interpolation = REF_INTERP_BILINEAR,
                             .padding = REF_PAD_ZEROS};
        ref_dtype dt = s < 2 ? REF_DT_FLOAT : REF_DT_DOUBLE;
        double *go, *in, *gr;
        dyadic_case(&p, dt, 1, 1, &go, &in, &gr);
        ref_options o = {.threads = 1, .path = ref_grid_path(dt)};
        ref_output gi, gg;
        _mm_setcsr(_mm_getcsr() & ~(unsigned)_MM_EXCEPT_DENORM);
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &gi, &gg), 0);
        unsigned csr = _mm_getcsr();
        print_message("dtype %d, sizes %lld x %lld: fast %lld, fallback %lld, MXCSR %#x\n", dt,
                      (long long)p.h_in, (long long)p.w_in, (long long)o.fast_hits,
                      (long long)o.mpfr_fallbacks, csr);
        assert_int_equal(csr & _MM_EXCEPT_DENORM, 0);
        assert_true(o.fast_hits > 100 * o.mpfr_fallbacks);
        ref_output_free(&gi); ref_output_free(&gg);
        free(go); free(in); free(gr);
    }
#else
    skip();
#endif
}

/* Grids that mostly sample outside the input, as the vendor's system tests' (uniform in
 * [-5, 5]): under zeros padding most input_grad elements have no term (stored without their
 * sums), under border the edges and corners gather hundreds each, nearest's weights all 1 (summed
 * from the terms' points alone). Planes of one to three channels (no four-plane lanes),
 * gradOutput of FP16 and FP32 with, in batch 1's first plane, values those sums leave to the
 * general one: ±inf, NaN, 2^-1000 (below the products' clear range), −0. */
static void sparse_grids(void **state)
{
    (void)state;
    const double odd[] = {INFINITY, -INFINITY, NAN, 0x1p-1000, -0.0};
    for (int k = 0; k < 16; k++) {
        ref_dtype dt = k & 1 ? REF_DT_FLOAT : REF_DT_FLOAT16;
        ref_grid_params p = {.n = 2, .c = k & 2 ? 3 : 1, .h_in = 37, .w_in = 29, .h_out = 40,
                             .w_out = 44,
                             .interpolation = k & 4 ? REF_INTERP_BILINEAR : REF_INTERP_NEAREST,
                             .padding = k & 8 ? REF_PAD_BORDER : REF_PAD_ZEROS,
                             .align_corners = (k >> 1) & 1};
        int64_t hw_out = p.h_out * p.w_out, ngo = p.n * p.c * hw_out;
        int64_t nin = p.n * p.c * p.h_in * p.w_in, ngr = p.n * hw_out * 2;
        double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8), *gr = malloc((size_t)ngr * 8);
        for (int64_t i = 0; i < ngo; i++)
            go[i] = ref_round_to(urand() * 10 - 5, dt);
        for (int64_t i = 0; i < 5 * 7; i += 7) /* batch 1, channel 0 */
            go[p.c * hw_out + i * 31] = odd[i / 7];
        for (int64_t i = 0; i < nin; i++)
            in[i] = ref_round_to(urand() * 10 - 5, dt);
        for (int64_t i = 0; i < ngr; i++)
            gr[i] = ref_round_to(urand() * 10 - 5, dt);
        ref_options fo;
        ref_output fg;
        ref_options o = {.path = ref_grid_path(dt)};
        ref_output gi;
        fast_vs_mpfr(&p, go, in, gr, dt, 2, &fo, &fg);
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &gi, NULL), 0);
        int64_t empty = 0, many = 0;
        for (int64_t i = 0; i < gi.numel; i++) {
            empty += gi.v[i].nterms == 0;
            many += gi.v[i].nterms > 100;
        }
        print_message("sparse %d: %lld of %lld elements empty, %lld of over 100 terms\n", k,
                      (long long)empty, (long long)gi.numel, (long long)many);
        assert_true(empty > gi.numel / 2);
        assert_true(p.padding == REF_PAD_ZEROS || many > 0);
        ref_output_free(&gi);
        ref_output_free(&fg);
        free(go); free(in); free(gr);
    }
}

/* REF_FLAG_RANGE where a device's sum may pass FP32's range (Σ|terms| and the coordinate term,
 * grown a rounding a term) is set by the fast path where it decides an element, four planes at
 * once too, instead of by a pass over the chunk. Batch 0's gradOutput is ±FLT_MAX: under
 * nearest an element one point reaches has Σ|terms| = FLT_MAX, below FP32's overflow threshold
 * (2 − 2^-24)·2^127 by less than its 5 roundings' growth (the fast path's own test, by 2^-40,
 * does not flag it); batch 1's, near 2^126, falls on both sides under bilinear weights. */
static void range_in_lanes(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        ref_grid_params p = {.n = 2, .c = 8, .h_in = 12, .w_in = 12, .h_out = 12, .w_out = 12,
                             .interpolation = k ? REF_INTERP_BILINEAR : REF_INTERP_NEAREST,
                             .padding = REF_PAD_BORDER};
        int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
        int64_t ngr = p.n * p.h_out * p.w_out * 2;
        double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8), *gr = malloc((size_t)ngr * 8);
        for (int64_t i = 0; i < ngo; i++)
            go[i] = (urand() < 0.5 ? -1 : 1) *
                    (i < ngo / 2 ? FLT_MAX : ref_round_to((1 + 0.9 * urand()) * 0x1p126, REF_DT_FLOAT));
        for (int64_t i = 0; i < nin; i++)
            in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
        for (int64_t i = 0; i < ngr; i++)
            gr[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
        ref_options fo;
        fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
        ref_options o = {.path = ref_grid_path(REF_DT_FLOAT)};
        ref_output gi;
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &gi, NULL), 0);
        int64_t range = 0;
        for (int64_t i = 0; i < gi.numel; i++)
            range += (gi.flags[i] & REF_FLAG_RANGE) != 0;
        print_message("range_in_lanes: %lld of %lld elements REF_FLAG_RANGE\n", (long long)range,
                      (long long)gi.numel);
        assert_true(range > 0 && range < gi.numel);
        ref_output_free(&gi);
        free(go); free(in); free(gr);
    }
}

/* Where the fast path leaves an element of input_grad's chunk to MPFR it marks it, and the
 * chunk's pass (mark_range) looks at the marked ones only, eight marks a word where all are 0.
 * Under nearest on a 9×9 grid every point reaches its own pixel but point 0, which reaches
 * pixel 40 too: there two gradOutput values of 2^1023 sum to 2^1024 (MPFR's value (inf, 0):
 * unjudged, REF_FLAG_UNCHECKABLE, which only that pass sets). Pixel 40 of
 * plane c is element 81c + 40 of the chunk, each after a word of 0 marks: pure MPFR (every
 * element passed) must agree. */
static void sparse_marks(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 4, .h_in = 9, .w_in = 9, .h_out = 9, .w_out = 9,
                         .interpolation = REF_INTERP_NEAREST, .padding = REF_PAD_ZEROS,
                         .align_corners = true};
    double go[4 * 81], in[4 * 81], gr[81 * 2];
    for (int i = 0; i < 4 * 81; i++) {
        go[i] = i % 81 == 0 || i % 81 == 40 ? 0x1p1023 : ref_round_to(urand() - 0.5, REF_DT_DOUBLE);
        in[i] = ref_round_to(urand() - 0.5, REF_DT_DOUBLE);
    }
    for (int j = 0; j < 81; j++) { /* x = −1 + i/4: coordinate i exactly */
        int at = j ? j : 40;
        gr[2 * j] = -1 + (at % 9) / 4.0;
        gr[2 * j + 1] = -1 + (at / 9) / 4.0;
    }
    ref_options fo;
    ref_output fg;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_DOUBLE, 2, &fo, &fg);
    ref_output_free(&fg);
    ref_options o = {.path = ref_grid_path(REF_DT_DOUBLE)};
    ref_output gi;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &gi, NULL), 0);
    for (int c = 0; c < 4; c++)
        assert_true(gi.flags[81 * c + 40] & REF_FLAG_UNCHECKABLE);
    ref_output_free(&gi);
}

/* On AVX-512 dgrid's lanes take two groups of four points at once (dgrid_lanes2: eight lanes),
 * where both groups' sizes give power-of-two scales, and group by group where they do not; a
 * block of points ends with a group of fewer than four (its lanes repeat its first point's).
 * Grid values past ±1 under zeros padding put some corners outside the input, so a group whose
 * lanes skip terms meets one whose lanes skip none; batch 0's data are at most 1 (the counted
 * magnitudes), batch 1's up to 3 (summed). 13·11 points: blocks of 64, 64 and 15. 6 channels,
 * and 19: the eight lanes read channel-innermost copies 8 channels at a time (transposed in
 * registers), then the last 3 one at a time. Every field must be pure MPFR's. */
static void eight_lanes(void **state)
{
    (void)state;
    const int64_t sizes[2][2] = {{8, 16}, {9, 5}}; /* (h_in, w_in): scales 4, 8; 4.5, 2.5 */
    for (int sz = 0; sz < 4; sz++)
        for (int pad = 0; pad < 2; pad++) {
            ref_grid_params p = {.n = 2, .c = sz < 2 ? 6 : 19, .h_in = sizes[sz % 2][0],
                                 .w_in = sizes[sz % 2][1], .h_out = 13, .w_out = 11,
                                 .interpolation = REF_INTERP_BILINEAR, .padding = (ref_padding)pad};
            int64_t ngo = p.n * p.c * p.h_out * p.w_out, nin = p.n * p.c * p.h_in * p.w_in;
            int64_t ngr = p.n * p.h_out * p.w_out * 2;
            double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8);
            double *gr = malloc((size_t)ngr * 8);
            for (int64_t i = 0; i < ngo; i++)
                go[i] = ref_round_to((urand() * 2 - 1) * (i < ngo / 2 ? 1 : 3), REF_DT_FLOAT);
            for (int64_t i = 0; i < nin; i++)
                in[i] = ref_round_to((urand() * 2 - 1) * (i < nin / 2 ? 1 : 3), REF_DT_FLOAT);
            for (int64_t i = 0; i < ngr; i++)
                gr[i] = ref_round_to((urand() * 2 - 1) * 1.3, REF_DT_FLOAT);
            ref_options fo;
            fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
            free(go); free(in); free(gr);
        }
}

/* input_grad's lanes skip the range tests of a batch whose every element's sums are known to
 * stay far below the range (dx_range_safe: the largest |g| times the most terms of an element
 * times the largest term's weight). Here |g| = 1.5·2^126 and one term's weight 1/4 are far below
 * it, but the 16 points all sample the middle of input pixels 0, 1, 4 and 5, so each of those
 * elements sums 16 terms, Σ|terms| = 1.5·2^128, past FP32's range: REF_FLAG_RANGE there, in
 * every plane, as pure MPFR's pass marks it. */
static void range_many_terms(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 8, .h_in = 4, .w_in = 4, .h_out = 4, .w_out = 4,
                         .interpolation = REF_INTERP_BILINEAR, .padding = REF_PAD_ZEROS};
    int64_t ngo = p.c * p.h_out * p.w_out, nin = p.c * p.h_in * p.w_in;
    int64_t ngr = p.h_out * p.w_out * 2;
    double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8);
    double *gr = malloc((size_t)ngr * 8);
    for (int64_t i = 0; i < ngo; i++)
        go[i] = (urand() < 0.5 ? -1.5 : 1.5) * 0x1p126;
    for (int64_t i = 0; i < nin; i++)
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    for (int64_t i = 0; i < ngr; i++)
        gr[i] = -0.5; /* ((x + 1)·4 − 1)/2 = 1/2 on both axes: weights 1/2 */
    ref_options fo;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
    ref_options o = {.path = ref_grid_path(REF_DT_FLOAT)};
    ref_output gi, gg;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &gi, &gg), 0);
    for (int64_t c = 0; c < p.c; c++)
        for (int64_t e = 0; e < 16; e++) {
            bool reached = e == 0 || e == 1 || e == 4 || e == 5;
            assert_int_equal((gi.flags[c * 16 + e] & REF_FLAG_RANGE) != 0, reached);
        }
    ref_output_free(&gi);
    ref_output_free(&gg);
    free(go); free(in); free(gr);
}

/* input_grad's lanes where an element's exact sum is not decided: its 16 terms (16 points on
 * the corner of input pixels (15, 15) .. (16, 16), weights 1/4) have magnitudes 2^-165 .. 2, so
 * the split sums' second addition drops bits (err > 0) and Ziv's test cannot round lo (found by
 * simulating the sums in double: with err taken as 0 the answer differs from the exact sum's).
 * Even planes have these terms, odd ones g = 1/2 (exact, decided), so a group's lanes differ;
 * 64×64 planes make a work item hold both groups of the eight planes (dx_chunk_items), which
 * finish together (dx_finish8 on AVX-512). Pure MPFR decides those elements. */
static void undecided_lanes(void **state)
{
    (void)state;
    static const double hard[16] = {
        0x1.3cb5a68p-80, -0x1.fb0c17p-110, -0x1.a3b219p-30, -0x1.3aef7cp-30,
        0x1.95af6dp+0, 0x1.6f5398p+0, -0x1.cb93c6p-80, -0x1.52f335p-80,
        0x1.2f32ap-165, -0x1.73f2d4p+0, -0x1.12c2458p-80, 0x1.da55f5p-30,
        0x1.78fe9c8p+0, 0x1.af8a888p-80, 0x1.7f008e8p-110, 0x1.8cc1298p-80};
    ref_grid_params p = {.n = 1, .c = 8, .h_in = 64, .w_in = 64, .h_out = 4, .w_out = 4,
                         .interpolation = REF_INTERP_BILINEAR, .padding = REF_PAD_ZEROS};
    int64_t nin = p.c * p.h_in * p.w_in;
    double go[8 * 16], *in = malloc((size_t)nin * 8), gr[16 * 2];
    for (int64_t i = 0; i < 8 * 16; i++)
        go[i] = i / 16 % 2 ? 0.5 : hard[i % 16];
    for (int64_t i = 0; i < nin; i++)
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    for (int64_t i = 0; i < 16 * 2; i++)
        gr[i] = -0.5; /* ((x + 1)·64 − 1)/2 = 15.5 on both axes: weights 1/2 */
    ref_options fo;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_DOUBLE, 2, &fo, NULL);
    assert_true(fo.mpfr_fallbacks > 0); /* the hard planes' elements went to MPFR */
    free(in);
}

/* Bicubic input_grad's elements the fast sum leaves undecided take their exact sum in integers
 * (grid_bicubic_dx.c's dx_exact_sum) before MPFR's sum of the terms: each answer must be pure
 * MPFR's. Random FP32 data (some hundred such elements, their bounds near a rounding of lo);
 * plane 1's points in pairs at one place with g and −g (exact sums 0, (+0, +0)); plane 2's g
 * 2^±200 (an exponent span past the integers', MPFR's sum); plane 3's 2^-1070 (subnormal g). */
static void bicubic_exact_sums(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 8, .h_in = 40, .w_in = 40, .h_out = 48, .w_out = 48,
                         .interpolation = REF_INTERP_BICUBIC, .padding = REF_PAD_ZEROS};
    int64_t hw = p.h_out * p.w_out, nin = p.c * p.h_in * p.w_in;
    double *go = malloc((size_t)(p.c * hw) * 8), *in = malloc((size_t)nin * 8);
    double *gr = malloc((size_t)(2 * hw) * 8);
    for (int64_t i = 0; i < p.c * hw; i++)
        go[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    for (int64_t i = 0; i < nin; i++)
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    for (int64_t i = 0; i < 2 * hw; i++)
        gr[i] = i % 4 >= 2 ? gr[i - 2] : ref_round_to(urand() * 2.1 - 1.05, REF_DT_FLOAT);
    for (int64_t i = 0; i < hw; i++) {
        go[hw + i] = i % 2 ? -go[hw + i - 1] : go[hw + i];
        go[2 * hw + i] = ldexp(go[2 * hw + i], i % 2 ? 200 : -200);
        go[3 * hw + i] = ldexp(go[3 * hw + i], -1070);
    }
    ref_options fo;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
    assert_true(fo.mpfr_fallbacks > 100); /* the undecided ones, plane 1's and plane 2's */
    free(go); free(in); free(gr);
}

/* The same on a grid whose upper half lies on the input's lattice and half-lattice (align_corners,
 * 33 a side: c = 16·(x + 1), weights 0 and 1 or Keys' at t = 1/2) and reaches the input's rows
 * 0-15, its lower half random and reaching rows 16-32, every second point at its predecessor's
 * place. Plane 0's g FP32·2^-1040: the lattice elements' exact
 * sums are short (hi exact, lo 0), where a unit at the sum's lowest bit shows. Plane 1's
 * FP32·2^-(700..999): terms up to ~300 bits apart, shifted past one limb and more. Plane 2's the
 * same as pairs g, −g (exact 0s across the limbs); plane 3's FP32 within ±1. */
static void bicubic_exact_sums_wide(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 4, .h_in = 33, .w_in = 33, .h_out = 48, .w_out = 48,
                         .interpolation = REF_INTERP_BICUBIC, .padding = REF_PAD_ZEROS,
                         .align_corners = true};
    int64_t hw = p.h_out * p.w_out, nin = p.c * p.h_in * p.w_in;
    double *go = malloc((size_t)(p.c * hw) * 8), *in = malloc((size_t)nin * 8);
    double *gr = malloc((size_t)(2 * hw) * 8);
    for (int64_t i = 0; i < nin; i++)
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    for (int64_t i = 0; i < 2 * hw; i++) { /* (x, y) pairs; upper: c_y ≤ 13, lower: c_y > 17 */
        double x = i % 2 ? floor(urand() * 27) / 32 - 1 : floor(urand() * 65) / 32 - 1;
        if (i >= hw)
            x = ref_round_to(i % 2 ? urand() * 0.95 + 0.1 : urand() * 2.1 - 1.05, REF_DT_FLOAT);
        gr[i] = i % 4 >= 2 ? gr[i - 2] : x;
    }
    for (int64_t i = 0; i < hw; i++) {
        double v = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
        int sh = -700 - (int)(urand() * 300);
        go[i] = ldexp(v, -1040);
        go[hw + i] = ldexp(v, sh);
        go[2 * hw + i] = i % 2 ? -go[2 * hw + i - 1] : ldexp(v, sh);
        go[3 * hw + i] = v;
    }
    ref_options fo;
    fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, 2, &fo, NULL);
    assert_true(fo.mpfr_fallbacks > 1000); /* planes 0-2's elements */
    free(go); free(in); free(gr);
}

/* Nearest's unit sums in chunks without the channel-innermost copies (hw_out·C past
 * TRANSPOSE_MAX, 2^21 doubles: 512·512·9), as the vendor's large cases have them: four planes
 * at once (dx_sum_unit4) against one at a time (dx_sum_unit, the code before it), every field
 * of both outputs the same. Border padding and a grid within ±5 pile thousands of terms on the
 * input's edges and corners; planes 8 (a group of one) and the non-finite and tiny values
 * (their lanes to dx_sum_any, the others not) take the other branches. */
extern int ref_grid_dx_unit_lanes;

static void unit_lanes_without_copies(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 9, .h_in = 16, .w_in = 16, .h_out = 512, .w_out = 512,
                         .interpolation = REF_INTERP_NEAREST, .padding = REF_PAD_BORDER,
                         .align_corners = true};
    int64_t hw = p.h_out * p.w_out, ngo = p.c * hw, nin = p.c * p.h_in * p.w_in, ngr = 2 * hw;
    double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)nin * 8);
    double *gr = malloc((size_t)ngr * 8);
    for (int64_t i = 0; i < ngo; i++)
        go[i] = ref_round_to(urand() * 10 - 5, REF_DT_FLOAT16);
    go[12345] = INFINITY;        /* plane 0, lane 0 of the first group */
    go[2 * hw + 777] = NAN;      /* plane 2 */
    go[5 * hw + 99] = 0x1p-1000; /* plane 5: below dx_sum_unit's 2^-968 */
    for (int64_t i = 0; i < nin; i++)
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT16);
    for (int64_t i = 0; i < ngr; i++)
        gr[i] = ref_round_to(urand() * 10 - 5, REF_DT_FLOAT16);
    ref_output a[2], b[2];
    for (int lanes = 1; lanes >= 0; lanes--) {
        ref_grid_dx_unit_lanes = lanes;
        ref_options o = {.threads = 2, .path = ref_grid_path(REF_DT_DOUBLE)};
        ref_output *r = lanes ? a : b;
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &r[0], &r[1]), 0);
        assert_true(o.fast_hits > o.mpfr_fallbacks); /* the fast path answered */
    }
    ref_grid_dx_unit_lanes = 1;
    same_output(&a[0], &b[0]);
    same_output(&a[1], &b[1]);
    for (int k = 0; k < 2; k++) {
        ref_output_free(&a[k]);
        ref_output_free(&b[k]);
    }
    free(go); free(in); free(gr);
}

/* grid_dx.c's lanes of input_grad's split sums (grid_values.h): eight (two groups a call) or
 * four; each way, every test's answers must be pure MPFR's */
extern int ref_grid_dx_lanes;

static int lanes_8(void **state)
{
    (void)state;
    ref_grid_dx_lanes = 8;
    return 0;
}

static int lanes_4(void **state)
{
    (void)state;
    ref_grid_dx_lanes = 4;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(grid), cmocka_unit_test(shortcuts),
                                       cmocka_unit_test(pow2_scales),
                                       cmocka_unit_test(unit_magnitudes),
                                       cmocka_unit_test(under_mag_unscaled),
                                       cmocka_unit_test(no_subnormal_operands),
                                       cmocka_unit_test(sparse_grids),
                                       cmocka_unit_test(range_in_lanes),
                                       cmocka_unit_test(eight_lanes),
                                       cmocka_unit_test(range_many_terms),
                                       cmocka_unit_test(sparse_marks),
                                       cmocka_unit_test(undecided_lanes),
                                       cmocka_unit_test(bicubic_exact_sums),
                                       cmocka_unit_test(bicubic_exact_sums_wide)};
    const struct CMUnitTest once[] = {cmocka_unit_test(unit_lanes_without_copies)};
    int failed = cmocka_run_group_tests_name("eight lanes", tests, lanes_8, NULL);
    failed += cmocka_run_group_tests_name("four lanes", tests, lanes_4, NULL);
    return failed + cmocka_run_group_tests_name("unit sums", once, NULL, NULL);
}

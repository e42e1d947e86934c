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
#include "same_output.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

static const ref_dtype DTS[] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT, REF_DT_DOUBLE};

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
            ref_options fo = {.threads = 1, .path = ref_grid_path(DTS[d])};
            ref_options mo = {.force_mpfr = true, .threads = 2, .path = ref_grid_path(DTS[d])}; /* 1 vs 2 threads */
            ref_output fi, fg, mi, mg;
            assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &fo, &fi, &fg), 0);
            assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &mo, &mi, &mg), 0);
            same_output(&fi, &mi);
            same_output(&fg, &mg);
            print_message("grid dtype %d mode %d: dx %lld dgrid %lld elements, fast %lld, fallback %lld\n",
                          DTS[d], mode, (long long)fi.numel, (long long)fg.numel,
                          (long long)fo.fast_hits, (long long)fo.mpfr_fallbacks);
            assert_true(fo.fast_hits > 4 * fo.mpfr_fallbacks);
            ref_output_free(&fi); ref_output_free(&fg); ref_output_free(&mi); ref_output_free(&mg);
            free(go); free(in); free(gr);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(grid)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

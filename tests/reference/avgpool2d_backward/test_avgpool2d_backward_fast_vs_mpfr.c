/* Avg-pool: the double-double fast path (with Ziv's fallback) and pure MPFR (force_mpfr) must
 * give bitwise identical answers (same_output.h) on ≥ 10^5 random elements per dtype (inputs
 * rounded to the dtype), across pooling variants (ceil mode, countIncludePad, divisorOverride,
 * clipped windows). Also: results do not depend on the thread count, and the fast path decides
 * most elements. The expected side is MPFR (exact terms, one correctly rounded division). */
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

static void avgpool(void **state)
{
    (void)state;
    for (int d = 0; d < 4; d++) { /* per dtype a pooling variant: ceil, override, clipped */
        ref_avgpool_params p = {.n = 2, .c = 8, .h = 80, .w = 80, .kh = 3, .kw = 3, .sh = 2, .sw = 2,
                                .ph = 1, .pw = 1, .ceil_mode = d == 1 || d == 3,
                                .count_include_pad = d < 2, .divisor_override = d == 2 ? -7 : 0};
        p.oh = (p.h + 2 * p.ph - p.kh + (p.ceil_mode ? p.sh - 1 : 0)) / p.sh + 1;
        p.ow = p.oh;
        int64_t ng = p.n * p.c * p.oh * p.ow;
        double *g = malloc((size_t)ng * sizeof *g);
        for (int64_t i = 0; i < ng; i++)
            g[i] = ref_round_to((urand() - 0.5) * 8, DTS[d]);
        ref_options fo = {.threads = 1}, mo = {.force_mpfr = true, .threads = 2}; /* 1 vs 2 threads */
        ref_output f, m;
        assert_int_equal(ref_avgpool2d_backward(&p, g, &fo, &f), 0);
        assert_int_equal(ref_avgpool2d_backward(&p, g, &mo, &m), 0);
        assert_true(f.numel >= 100000);
        same_output(&f, &m);
        print_message("avgpool dtype %d: %lld elements, fast %lld, fallback %lld\n", DTS[d],
                      (long long)f.numel, (long long)fo.fast_hits, (long long)fo.mpfr_fallbacks);
        assert_true(fo.fast_hits > 9 * fo.mpfr_fallbacks);
        ref_output_free(&f);
        ref_output_free(&m);
        free(g);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(avgpool)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

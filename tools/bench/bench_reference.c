/* Driver of tools/bench-reference: elements per second of the reference's fast path and of pure
 * MPFR (force_mpfr) on the shapes of the issue, in one run. Pure MPFR runs on a batch subset
 * (N = 1, or fewer) and is reported per element, which is how it scales (per-element work). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "reference.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double avgpool(int64_t n, bool force, int64_t *elems)
{
    ref_avgpool_params p = {.n = n, .c = 64, .h = 56, .w = 56, .oh = 28, .ow = 28, .kh = 3, .kw = 3,
                            .sh = 2, .sw = 2, .ph = 1, .pw = 1, .count_include_pad = true};
    int64_t ng = p.n * p.c * p.oh * p.ow;
    double *g = malloc((size_t)ng * sizeof *g);
    for (int64_t i = 0; i < ng; i++)
        g[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    ref_options o = {.force_mpfr = force};
    ref_output out;
    double t0 = now();
    if (ref_avgpool2d_backward(&p, g, &o, &out) != 0)
        exit(1);
    double dt = now() - t0;
    *elems = out.numel;
    ref_output_free(&out);
    free(g);
    return dt;
}

static double grid(int64_t n, bool force, int64_t *elems)
{
    ref_grid_params p = {.n = n, .c = 32, .h_in = 64, .w_in = 64, .h_out = 64, .w_out = 64,
                         .interpolation = REF_INTERP_BILINEAR, .padding = REF_PAD_ZEROS};
    int64_t ngo = p.n * p.c * 64 * 64, ngr = p.n * 64 * 64 * 2;
    double *go = malloc((size_t)ngo * 8), *in = malloc((size_t)ngo * 8), *gr = malloc((size_t)ngr * 8);
    for (int64_t i = 0; i < ngo; i++) {
        go[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
        in[i] = ref_round_to(urand() * 2 - 1, REF_DT_FLOAT);
    }
    for (int64_t i = 0; i < ngr; i++)
        gr[i] = ref_round_to(urand() * 2.2 - 1.1, REF_DT_FLOAT);
    ref_options o = {.force_mpfr = force, .path = ref_grid_path(REF_DT_FLOAT)};
    ref_output a, b;
    double t0 = now();
    if (ref_grid_sampler2d_backward(&p, go, in, gr, &o, &a, &b) != 0)
        exit(1);
    double dt = now() - t0;
    *elems = a.numel + b.numel;
    ref_output_free(&a);
    ref_output_free(&b);
    free(go); free(in); free(gr);
    return dt;
}

int main(int argc, char **argv)
{
    int64_t mpfr_n = argc > 1 ? atoll(argv[1]) : 1;
    int64_t e1, e2;
    double tf = avgpool(32, false, &e1), tm = avgpool(mpfr_n, true, &e2);
    double rf = (double)e1 / tf, rm = (double)e2 / tm;
    printf("avgpool N=32 C=64 56x56 k3 s2 p1: fast %.3g elem/s (%lld elems, %.2f s); "
           "pure MPFR %.3g elem/s (N=%lld subset, %lld elems, %.2f s); fast/MPFR = %.1fx\n",
           rf, (long long)e1, tf, rm, (long long)mpfr_n, (long long)e2, tm, rf / rm);
    tf = grid(8, false, &e1);
    tm = grid(mpfr_n, true, &e2);
    rf = (double)e1 / tf;
    rm = (double)e2 / tm;
    printf("grid N=8 C=32 64x64, 64x64 grid: fast %.3g elem/s (%lld dx+dgrid elems, %.2f s); "
           "pure MPFR %.3g elem/s (N=%lld subset, %lld elems, %.2f s); fast/MPFR = %.1fx\n",
           rf, (long long)e1, tf, rm, (long long)mpfr_n, (long long)e2, tm, rf / rm);
    return 0;
}

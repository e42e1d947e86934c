/* The emulated bicubic kernel (kernels/grid_sampler2d_backward/kernel_bicubic.c, its FP32 build
 * compiled into this test, so it runs whichever contract the operator's checks follow): a
 * hand-derived case exactly, random problems of every padding mode and align_corners within the
 * reference's bound of the exact value (reference/grid_sampler2d_backward/grid_bicubic.c, an
 * independent MPFR model), both kernels; the fixed-order one bitwise identical for any thread
 * count. */
#include <math.h>
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#define GS_DOUBLE 0
#include "../../../kernels/common/permutation.c"
#include "../../../kernels/grid_sampler2d_backward/kernel_bicubic.c"
#include "reference.h"
#include "reference_grid_sampler2d_backward.h"

/* Border, align_corners, input 1×1×1×4 = 0, 1, 2, 3, point (0, 0), g = 1 (derived in
 * tests/reference/grid_sampler2d_backward/test_grid_sampler2d_backward_bicubic.c): dx = (−3/32,
 * 19/32, 19/32, −3/32), dgrid = (9/8, 0); every step exact in FP32. */
static void hand_derived(void **state)
{
    (void)state;
    gs_shape s = {1, 1, 1, 4, 1, 1, GS_BICUBIC, GS_BORDER, true, GS_BCNF_OUT, GS_SUMS_COMPUTE, 0};
    float go[] = {1}, in[] = {0, 1, 2, 3}, grid[] = {0, 0}, dx[4], dg[2];
    for (int det = 0; det < 2; det++) {
        assert_true(gs_kernel_bicubic_f32(&s, go, in, grid, dx, dg, det, NULL));
        const float want[] = {-3.0f / 32, 19.0f / 32, 19.0f / 32, -3.0f / 32};
        for (int i = 0; i < 4; i++)
            assert_true(dx[i] == want[i]);
        assert_true(dg[0] == 1.125f && dg[1] == 0);
    }
}

/* Release 9.1's kernels keep some non-finite coordinates (grid_sampler2d_backward.h GS_BCNF_*):
 * 950's SIMT kernel makes every coefficient NaN, sends a NaN tap out, and under border clamps
 * a ±inf tap to its edge, where it adds NaN; grid_grad is NaN (val·NaN over the taps) even with
 * no tap inside. The vector kernel under reflection: NaN coefficients at index 0 here. Input
 * 1×1×3×4, point (x, 0.25) without align_corners: y = 1.375, taps on rows 0..2 (row 3
 * clamps to 2). */
static void nonfinite_kept(void **state)
{
    (void)state;
    float go[] = {1}, in[12] = {0}, dx[12], dg[2];
    const float xs[] = {INFINITY, -INFINITY, NAN};
    const int pads[] = {GS_BORDER, GS_ZEROS, GS_REFLECTION};
    for (int pi = 0; pi < 3; pi++)
        for (int k = 0; k < 3; k++)
            for (int det = 0; det < 2; det++) {
                gs_shape s = {1, 1, 3, 4, 1, 1, GS_BICUBIC, pads[pi], false, GS_BCNF_SIMT, GS_SUMS_COMPUTE, 0};
                float grid[] = {xs[k], 0.25f};
                assert_true(gs_kernel_bicubic_f32(&s, go, in, grid, dx, dg, det, 0));
                int col = pads[pi] != GS_BORDER || k == 2 ? -1 : k == 0 ? 3 : 0;
                for (int e = 0; e < 12; e++)
                    assert_true(e % 4 == col ? isnan(dx[e]) : dx[e] == 0);
                assert_true(isnan(dg[0]) && isnan(dg[1]));
                s.bicubic_nonfinite = GS_BCNF_OUT; /* the AICPU task: out of bounds */
                assert_true(gs_kernel_bicubic_f32(&s, go, in, grid, dx, dg, det, 0));
                for (int e = 0; e < 12; e++)
                    assert_true(dx[e] == 0);
                assert_true(dg[0] == 0 && dg[1] == 0);
            }
    gs_shape r = {1, 1, 3, 4, 1, 1, GS_BICUBIC, GS_REFLECTION, false, GS_BCNF_VECTOR_REFLECT, GS_SUMS_COMPUTE, 0};
    float grid[] = {NAN, 0.25f};
    assert_true(gs_kernel_bicubic_f32(&r, go, in, grid, dx, dg, false, 0));
    for (int e = 0; e < 12; e++)
        assert_true(e % 4 == 0 && e < 12 ? isnan(dx[e]) : dx[e] == 0);
    assert_true(isnan(dg[0]) && isnan(dg[1]));
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void) /* [0, 1) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* Random values in FP32, grid points partly on cell edges (integer coordinates) and far out. */
static void fill(const gs_shape *s, float *go, float *in, float *grid)
{
    for (int64_t i = 0; i < s->n * s->c * s->ho * s->wo; i++)
        go[i] = (float)(uniform() * 4 - 2);
    for (int64_t i = 0; i < s->n * s->c * s->hi * s->wi; i++)
        in[i] = (float)(uniform() * 4 - 2);
    for (int64_t i = 0; i < s->n * s->ho * s->wo * 2; i++) {
        int64_t size = i % 2 ? s->hi : s->wi;
        double r = uniform(), x = (uniform() * 2 - 1) * 1.3;
        if (r < 0.25) { /* the grid value of integer coordinate k */
            double k = floor(uniform() * (double)(size + 4)) - 2;
            x = s->align_corners ? (size > 1 ? 2 * k / (double)(size - 1) - 1 : 0)
                                 : (2 * k + 1) / (double)size - 1;
        } else if (r < 0.3) {
            x *= 30;
        }
        grid[i] = (float)x;
    }
}

/* Elements of the kernel's output outside the reference's bound (FLOAT path). */
static int outside(const ref_output *o, const float *got)
{
    ref_path path = ref_grid_path(REF_DT_FLOAT);
    int bad = 0;
    for (int64_t i = 0; i < o->numel; i++) {
        if (o->flags[i] & REF_FLAG_UNCHECKABLE)
            continue;
        const ref_value *v = &o->v[i];
        double b = ref_bound(REF_DT_FLOAT, &path, v);
        bool ok = fabs((double)got[i] - (v->hi + v->lo)) <= b;
        if (o->flags[i] & REF_FLAG_INTERVAL) /* an unresolved point's reach */
            ok = got[i] >= v->hi + o->ival[2 * i] - b && got[i] <= v->hi + o->ival[2 * i + 1] + b;
        if (!ok)
            print_message("element %lld: got %.9g exact %.9g bound %.3g\n", (long long)i,
                          (double)got[i], v->hi, b);
        bad += !ok;
    }
    return bad;
}

static void within_reference_bound(void **state)
{
    (void)state;
    int bad = 0, cases = 0;
    int64_t elems = 0;
    for (int pad = 0; pad < 3; pad++)
        for (int align = 0; align < 2; align++)
            for (int rep = 0; rep < 4; rep++) {
                gs_shape s = {1 + rep % 2, 1 + rep, 1 + (rep * 3 + pad) % 6, 2 + (rep + align) % 5,
                              3, 4, GS_BICUBIC, pad, align, GS_BCNF_OUT, GS_SUMS_COMPUTE, 0};
                int64_t ngo = s.n * s.c * s.ho * s.wo, nin = s.n * s.c * s.hi * s.wi;
                int64_t ngr = s.n * s.ho * s.wo * 2;
                float *go = malloc(ngo * sizeof *go), *in = malloc(nin * sizeof *in);
                float *grid = malloc(ngr * sizeof *grid), *dx = malloc(nin * sizeof *dx);
                float *dg = malloc(ngr * sizeof *dg);
                fill(&s, go, in, grid);
                double *dgo = malloc(ngo * sizeof *dgo), *din = malloc(nin * sizeof *din);
                double *dgr = malloc(ngr * sizeof *dgr);
                for (int64_t i = 0; i < ngo; i++) dgo[i] = go[i];
                for (int64_t i = 0; i < nin; i++) din[i] = in[i];
                for (int64_t i = 0; i < ngr; i++) dgr[i] = grid[i];
                ref_grid_params p = {s.n, s.c, s.hi, s.wi, s.ho, s.wo, REF_INTERP_BICUBIC,
                                     (ref_padding)pad, align};
                ref_options opt = {.path = ref_grid_path(REF_DT_FLOAT)};
                ref_output oi, og;
                assert_int_equal(ref_grid_sampler2d_backward(&p, dgo, din, dgr, &opt, &oi, &og), 0);
                int64_t *order = emu_permutation(s.n * s.ho * s.wo, 12345);
                for (int k = 0; k < 3; k++) { /* fixed order, atomic, atomic shuffled */
                    assert_true(gs_kernel_bicubic_f32(&s, go, in, grid, dx, dg, k == 0,
                                                      k == 2 ? order : NULL));
                    bad += outside(&oi, dx) + outside(&og, dg);
                }
                free(order);
                elems += oi.numel + og.numel;
                cases++;
                ref_output_free(&oi);
                ref_output_free(&og);
                free(go); free(in); free(grid); free(dx); free(dg);
                free(dgo); free(din); free(dgr);
            }
    print_message("%d problems, %lld elements, %d outside the bound\n", cases, (long long)elems,
                  bad);
    assert_int_equal(bad, 0);
}

/* The fixed-order kernel gives the same bits with 1 and 3 threads. */
static void deterministic_any_threads(void **state)
{
    (void)state;
    gs_shape s = {2, 5, 7, 6, 9, 8, GS_BICUBIC, GS_REFLECTION, false, GS_BCNF_OUT, GS_SUMS_COMPUTE, 0};
    int64_t ngo = s.n * s.c * s.ho * s.wo, nin = s.n * s.c * s.hi * s.wi, ngr = s.n * s.ho * s.wo * 2;
    float *go = malloc(ngo * sizeof *go), *in = malloc(nin * sizeof *in);
    float *grid = malloc(ngr * sizeof *grid);
    float *dx[2] = {malloc(nin * sizeof(float)), malloc(nin * sizeof(float))};
    float *dg[2] = {malloc(ngr * sizeof(float)), malloc(ngr * sizeof(float))};
    fill(&s, go, in, grid);
    for (int k = 0; k < 2; k++) {
        omp_set_num_threads(k ? 3 : 1);
        assert_true(gs_kernel_bicubic_f32(&s, go, in, grid, dx[k], dg[k], true, NULL));
    }
    assert_memory_equal(dx[0], dx[1], nin * sizeof(float));
    assert_memory_equal(dg[0], dg[1], ngr * sizeof(float));
    free(go); free(in); free(grid);
    free(dx[0]); free(dx[1]); free(dg[0]); free(dg[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_derived),
        cmocka_unit_test(nonfinite_kept),
        cmocka_unit_test(within_reference_bound),
        cmocka_unit_test(deterministic_any_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The documents' seed examples against the values of facts.md §4 (checked there with PyTorch
 * float64): avg-pool 1x16x4x4, kernel 4, all-ones gradient → 0.0625 everywhere (= 1/16 by hand:
 * one window of 16 elements); grid sampler 1x1x5x8 input 1..40, 3x3 grid of -1/0/1, bilinear,
 * zeros, align false → the dx and dgrid lists of facts §4. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "reference.h"

static void avgpool_seed(void **state)
{
    (void)state;
    ref_avgpool_params p = {.n = 1, .c = 16, .h = 4, .w = 4, .oh = 1, .ow = 1, .kh = 4, .kw = 4,
                            .sh = 1, .sw = 1, .count_include_pad = true};
    double g[16];
    for (int i = 0; i < 16; i++)
        g[i] = 1;
    for (int force = 0; force < 2; force++) {
        ref_options o = {.force_mpfr = force};
        ref_output out;
        assert_int_equal(ref_avgpool2d_backward(&p, g, &o, &out), 0);
        assert_int_equal(out.numel, 256);
        for (int i = 0; i < 256; i++) {
            assert_true(out.v[i].hi == 0.0625);
            assert_true(out.v[i].lo == 0);
            assert_int_equal(out.v[i].nterms, 1);
            assert_int_equal(out.flags[i], 0);
        }
        ref_output_free(&out);
    }
}

static void grid_seed(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 5, .w_in = 8, .h_out = 3, .w_out = 3,
                         .interpolation = REF_INTERP_BILINEAR, .padding = REF_PAD_ZEROS,
                         .align_corners = false};
    double go[9], in[40];
    for (int i = 0; i < 9; i++)
        go[i] = 1;
    for (int i = 0; i < 40; i++)
        in[i] = i + 1;
    const double grid[18] = {-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1};
    const double dx[40] = {0.25, 0, 0, 0.25, 0.25, 0, 0, 0.25, 0, 0, 0, 0, 0, 0, 0, 0,
                           0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0,
                           0.25, 0, 0, 0.25, 0.25, 0, 0, 0.25};
    const double dg[18] = {2, 1.25, 2, 11.25, -16, 10, 68, 10, 4, 20, -96, 10, 66, -41.25, 2, -91.25, -80, -50};
    for (int force = 0; force < 2; force++) {
        ref_options o = {.force_mpfr = force, .path = ref_grid_path(REF_DT_FLOAT)};
        ref_output ig, gg;
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, grid, &o, &ig, &gg), 0);
        for (int i = 0; i < 40; i++) {
            assert_true(ig.v[i].hi == dx[i]);
            assert_true(ig.v[i].lo == 0);
            assert_int_equal(ig.flags[i], 0);
        }
        for (int i = 0; i < 18; i++) {
            assert_true(gg.v[i].hi == dg[i]);
            assert_true(gg.v[i].lo == 0);
            assert_int_equal(gg.flags[i] & ~REF_FLAG_AMBIGUOUS, 0);
        }
        ref_output_free(&ig);
        ref_output_free(&gg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(avgpool_seed), cmocka_unit_test(grid_seed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

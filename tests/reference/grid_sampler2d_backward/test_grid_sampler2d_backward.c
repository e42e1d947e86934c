/* Grid sampler invariants and branch ambiguity. Expected values by hand from facts §4:
 * - border / reflection on in-range points equal zeros padding (no clip, no fold is reached);
 * - align_corners maps x = -1 and 1 to the corner centres 0 and size-1: dx all on corners;
 * - integer-filled input: dgrid of a bilinear ramp input[y][x] = x is (W-1)/2·g with align (the
 *   ramp's slope 1 times the factor), exactly;
 * - nearest on an exact tie the device computes exactly (t = 2.5 from x = 0.5) allows only the
 *   even cell; near a tie (x = 1e-9) both cells, the primary the exact coordinate's;
 * - a point exactly on a border clip limit (exact in FP32) is clipped, nothing else; just inside
 *   it both 0 (clipped) and the unclipped gradient are legal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_grid_sampler2d_backward.h"

static ref_options OPT(void) { return (ref_options){.path = ref_grid_path(REF_DT_FLOAT)}; }

static void padding_modes_agree_in_range(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 2, .h_in = 6, .w_in = 7, .h_out = 5, .w_out = 5};
    double go[50], in[84], gr[50];
    for (int i = 0; i < 50; i++)
        go[i] = (i % 7) - 3;
    for (int i = 0; i < 84; i++)
        in[i] = (i * 5) % 11;
    for (int i = 0; i < 50; i++) /* strictly inside (-0.6, 0.6): far from edges, clips and folds */
        gr[i] = ((i * 37) % 23 - 11) / 20.0 + 0.013;
    for (int align = 0; align < 2; align++) {
        ref_output zi, zg;
        p.align_corners = align;
        p.padding = REF_PAD_ZEROS;
        ref_options o = OPT();
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &zi, &zg), 0);
        for (int pad = 1; pad < 3; pad++) {
            ref_output bi, bg;
            p.padding = (ref_padding)pad;
            assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &bi, &bg), 0);
            for (int i = 0; i < 84; i++)
                assert_true(bi.v[i].hi == zi.v[i].hi && bi.v[i].lo == zi.v[i].lo);
            for (int i = 0; i < 50; i++)
                assert_true(bg.v[i].hi == zg.v[i].hi && bg.v[i].lo == zg.v[i].lo);
            ref_output_free(&bi);
            ref_output_free(&bg);
        }
        ref_output_free(&zi);
        ref_output_free(&zg);
    }
}

static void align_corners_maps_to_corner_centres(void **state)
{
    (void)state;
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 4, .w_in = 5, .h_out = 1, .w_out = 4, .align_corners = true};
    double go[4] = {1, 2, 4, 8}, in[20] = {0};
    double gr[8] = {-1, -1, 1, -1, -1, 1, 1, 1}; /* the four corners */
    ref_options o = OPT();
    ref_output oi;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &oi, NULL), 0);
    for (int i = 0; i < 20; i++) {
        double want = i == 0 ? 1 : i == 4 ? 2 : i == 15 ? 4 : i == 19 ? 8 : 0;
        assert_true(oi.v[i].hi == want);
    }
    ref_output_free(&oi);
}

static void ramp_gradient_is_exact(void **state)
{
    (void)state;
    /* input[y][x] = x, W = 9, align: dgrid x = (W-1)/2 · slope 1 · g = 4g, dgrid y = 0 */
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 3, .w_in = 9, .h_out = 1, .w_out = 3, .align_corners = true};
    double go[3] = {1, -3, 0.5}, in[27], gr[6] = {-0.3, 0.1, 0.35, -0.45, 0.71, 0.2};
    for (int i = 0; i < 27; i++)
        in[i] = i % 9;
    for (int force = 0; force < 2; force++) {
        ref_options o = OPT();
        o.force_mpfr = force;
        ref_output og;
        assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, NULL, &og), 0);
        for (int k = 0; k < 3; k++) {
            assert_true(og.v[2 * k].hi == 4 * go[k] && og.v[2 * k].lo == 0);
            assert_true(og.v[2 * k + 1].hi == 0);
        }
        ref_output_free(&og);
    }
}

/* W = 4, not align, nearest: t = ((x+1)·4 − 1)/2. y = -0.75 gives t = 0 (H = 2), no tie. */
static ref_output nearest_at(double x)
{
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 2, .w_in = 4, .h_out = 1, .w_out = 1,
                         .interpolation = REF_INTERP_NEAREST};
    double go[1] = {3}, in[8] = {0}, gr[2] = {x, -0.75};
    ref_options o = OPT();
    ref_output oi;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, &oi, NULL), 0);
    return oi;
}

static bool has_alt(const ref_output *o, int k, double v)
{
    for (int i = 0; o->alt_first[k] >= 0 && i < o->alt_count[k]; i++)
        if (o->alts[o->alt_first[k] + i].hi == v)
            return true;
    return false;
}

static void nearest_exact_tie_is_even(void **state)
{
    (void)state;
    /* x = 0.5: t = 2.5 exactly, and every FP32 step of the unnormalize is exact (short dyadic
     * values), so the device rounds the tie itself: half-even gives cell 2, never 3 (half-up) */
    ref_output oi = nearest_at(0.5);
    assert_true(oi.v[2].hi == 3 && oi.v[3].hi == 0);
    assert_false(oi.flags[2] & REF_FLAG_AMBIGUOUS);
    assert_false(oi.flags[3] & REF_FLAG_AMBIGUOUS);
    ref_output_free(&oi);
}

static void nearest_near_tie_gives_both_cells(void **state)
{
    (void)state;
    /* x = 1e-9: t = 1.5 + 2e-9, nearest cell 2; the FP32 unnormalize errs by up to ~6e-7, so
     * the device may land on or below the tie 1.5: cell 1 is legal too */
    ref_output oi = nearest_at(1e-9);
    assert_true(oi.v[2].hi == 3 && oi.v[1].hi == 0); /* primary: the exact coordinate's cell */
    assert_true(oi.flags[1] & REF_FLAG_AMBIGUOUS);
    assert_true(oi.flags[2] & REF_FLAG_AMBIGUOUS);
    assert_true(has_alt(&oi, 1, 3) && has_alt(&oi, 1, 0));
    ref_output_free(&oi);
}

/* W = 3, align, border: t = x + 1; at t = 2 = size−1 the clip limit. Clipped: dgrid x = 0;
 * unclipped (left cell, i0 = 1): (W−1)/2 · (input[2] − input[1]) · g = 1 · (10 − 4) · 1 = 6. */
static ref_output border_at(double x)
{
    ref_grid_params p = {.n = 1, .c = 1, .h_in = 1, .w_in = 3, .h_out = 1, .w_out = 1,
                         .padding = REF_PAD_BORDER, .align_corners = true};
    double go[1] = {1}, in[3] = {1, 4, 10}, gr[2] = {x, 0.3};
    ref_options o = OPT();
    ref_output og;
    assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &o, NULL, &og), 0);
    return og;
}

static void border_exact_clip_limit_clips(void **state)
{
    (void)state;
    ref_output og = border_at(1); /* t = 2 exactly in FP32: clipped, gradient 0, nothing else */
    assert_true(og.v[0].hi == 0);
    assert_false(og.flags[0] & REF_FLAG_AMBIGUOUS);
    ref_output_free(&og);
}

static void border_near_clip_limit_gives_both(void **state)
{
    (void)state;
    ref_output og = border_at(1 - 1e-9); /* t = 2 − 1e-9: unclipped, but within FP32 error */
    assert_true(og.v[0].hi == 6);
    assert_true(og.flags[0] & REF_FLAG_AMBIGUOUS);
    assert_true(has_alt(&og, 0, 0) && has_alt(&og, 0, 6));
    ref_output_free(&og);
}

/* The document's seed example against facts.md §4 (checked there with PyTorch float64): 1x1x5x8
 * input 1..40, 3x3 grid of -1/0/1, bilinear, zeros, align false → facts §4's dx and dgrid lists,
 * on the fast path and on pure MPFR. */
static void seed_example(void **state)
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_example),
        cmocka_unit_test(padding_modes_agree_in_range),
        cmocka_unit_test(align_corners_maps_to_corner_centres),
        cmocka_unit_test(ramp_gradient_is_exact),
        cmocka_unit_test(nearest_exact_tie_is_even),
        cmocka_unit_test(nearest_near_tie_gives_both_cells),
        cmocka_unit_test(border_exact_clip_limit_clips),
        cmocka_unit_test(border_near_clip_limit_gives_both),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

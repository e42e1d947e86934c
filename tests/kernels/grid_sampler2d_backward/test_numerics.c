/* aclnnGridSampler2DBackward numerics: hand-derived cases and the document's example.
 * Conventions of the derivations below (spec/facts.md §4, PyTorch's grid_sampler_2d_backward):
 *   not aligned: ix = ((x+1)*W - 1)/2, factor W/2;  aligned: ix = (x+1)/2*(W-1), factor (W-1)/2
 *   bilinear: w = ix - floor(ix), e = 1 - w, n = iy - floor(iy), s = 1 - n;
 *   dx[nw,ne,sw,se] += (s*e, s*w, n*e, n*w) * g over in-bounds corners;
 *   dgrid = (sum_c ((ne-nw)*s + (se-sw)*n)*g * factor_x, sum_c ((sw-nw)*e + (se-ne)*w)*g * fy)
 *   with out-of-bounds corner values 0. Every expected value below is exact in FP32.
 * The hand results of the border, reflection, align and nearest cases were also cross-checked
 * with PyTorch 1.13 float64: F.grid_sample(...).backward(gradOutput), same arguments. */
#include <math.h>

#include "call.h"

static int setup(void **state)
{
    (void)state;
    unsetenv("ACLNN_EMU_SPEC");
    unsetenv("ACLNN_EMU_FAULT");
    emu_test_init("ascend910b");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    return 0;
}

/* The document's example (input 1..40 as 5x8, a 3x3 grid over [-1,1]^2, gradOutput 1): all 58
 * values from spec/facts.md §4 (checked there with PyTorch float64). */
static const double kSeedGrid[18] = {-1, -1, 0, -1, 1, -1, -1, 0, 0, 0, 1, 0, -1, 1, 0, 1, 1, 1};
static const double kSeedDx[40] = {0.25, 0, 0, 0.25, 0.25, 0, 0, 0.25, 0, 0, 0, 0, 0, 0,
                                   0,    0, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0, 0, 0, 0,
                                   0,    0, 0, 0, 0.25, 0, 0, 0.25, 0.25, 0, 0, 0.25};
static const double kSeedDgrid[18] = {2,  1.25,   2,  11.25, -16, 10,  68,     10,  4,
                                      20, -96,    10, 66,    -41.25, 2, -91.25, -80, -50};

static void seed_case(gs_case *k, double *go, double *in)
{
    for (int i = 0; i < 40; i++)
        in[i] = i + 1;
    for (int i = 0; i < 9; i++)
        go[i] = 1;
    *k = (gs_case){.n = 1, .c = 1, .hi = 5, .wi = 8, .ho = 3, .wo = 3, .dt = ACL_FLOAT,
                   .go = go, .in = in, .grid = kSeedGrid, .fill = 7};
}

static const char *dgrid_label(aclDataType dt)
{
    return dt == ACL_FLOAT ? "FLOAT dgrid" : dt == ACL_FLOAT16 ? "FLOAT16 dgrid"
           : dt == ACL_BF16 ? "BF16 dgrid" : "DOUBLE dgrid";
}

static void test_seed_example_all_dtypes(void **state)
{
    (void)state;
    const aclDataType dts[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        gs_case k;
        double go[9], in[40], dx[40], dgrid[18];
        seed_case(&k, go, in);
        k.dt = dts[i];
        gs_run_case(&k, dx, dgrid);
        gs_expect("dx", dx, kSeedDx, 40);
        /* Exact in FP16 (11 bits); in BF16 (8 bits) all but -91.25 = -1011011.01b, a tie
         * between -91 and -91.5 that rounds to the even -91 (FP32 result rounded once). */
        double want[18];
        memcpy(want, kSeedDgrid, sizeof want);
        if (dts[i] == ACL_BF16)
            want[15] = -91;
        gs_expect(dgrid_label(dts[i]), dgrid, want, 18);
    }
}

/* Border, not aligned, input 2x4 [[1,2,4,8],[16,32,64,128]]: iy = y + 0.5, factor_y 1; ix =
 * 2x + 1.5, factor_x 2; clipping to [0,3] x [0,1] zeroes the factor at and beyond the limits.
 *  P1 (0.5, 0):     ix 2.5, iy .5, four corners .25 each. gx = (8-4)*.5 + (128-64)*.5 = 34 -> 68;
 *                   gy = (64-4)*.5 + (128-8)*.5 = 90 -> 90.
 *  P2 (1.5, 0):     ix 4.5 -> 3 (factor 0), w 0: (3,0),(3,1) get .5; gy = (128-8)*1 = 120.
 *  P3 (-1, -1):     ix -.5 -> 0, iy -.5 -> 0, both factors 0: (0,0) gets 1; dgrid 0.
 *  P4 (0.75, 2):    ix exactly 3 and iy 2.5 -> 1: at the limit, factor 0: (3,1) gets 1.
 *  P5 (-0.75, .25): ix exactly 0 (factor 0), iy .75: (0,0) .25, (0,1) .75; gy = (16-1)*1 = 15.
 * dx = [1.25, 0, .25, .75, .75, 0, .25, 1.75]. */
static void test_border_clips_and_zeroes_gradient_at_limits(void **state)
{
    (void)state;
    const double in[8] = {1, 2, 4, 8, 16, 32, 64, 128}, go[5] = {1, 1, 1, 1, 1};
    const double grid[10] = {0.5, 0, 1.5, 0, -1, -1, 0.75, 2, -0.75, 0.25};
    const double want_dx[8] = {1.25, 0, 0.25, 0.75, 0.75, 0, 0.25, 1.75};
    const double want_dgrid[10] = {68, 90, 0, 120, 0, 0, 0, 0, 0, 15};
    gs_case k = {.n = 1, .c = 1, .hi = 2, .wi = 4, .ho = 1, .wo = 5, .dt = ACL_FLOAT,
                 .pad = 1, .go = go, .in = in, .grid = grid};
    double dx[8], dgrid[10];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, want_dx, 8);
    gs_expect("dgrid", dgrid, want_dgrid, 10);
}

/* Reflection, not aligned, input 1x4 [1,2,4,8]: ix = 2x + 1.5 reflected over [-.5, 3.5]
 * (span 4), factor 2 times the sign of the folds; iy = 0 always (H 1), its factor 0.
 *   x 1.5:  ix 4.5,  1 fold          -> 2.5, sign -1: dx[2],dx[3] += .5g; gx (8-4)*-2 = -8
 *   x 3.5:  ix 8.5,  2 folds         -> 0.5, sign +1: dx[0],dx[1] += .5g; gx (2-1)*2 = 2
 *   x -2.5: ix -3.5, negative, 0 folds -> 2.5, sign -1: gx -8
 *   x -4.5: ix -7.5, negative, 1 fold  -> 0.5, sign +1: gx 2
 *   x 5.5:  ix 12.5, 3 folds         -> 2.5, sign -1: gx -8
 *   x 1:    ix 3.5, 1 fold, extra 0  -> 3.5, clipped to 3 (factor 0): dx[3] += g
 * With g = 1, 2, 4, 8, 16, 32: dx = [5, 5, 10.5, 42.5]; dgrid_x = [-8, 4, -32, 16, -128, 0]. */
static void test_reflection_not_aligned_several_folds(void **state)
{
    (void)state;
    const double in[4] = {1, 2, 4, 8}, go[6] = {1, 2, 4, 8, 16, 32};
    const double grid[12] = {1.5, 0, 3.5, 0, -2.5, 0, -4.5, 0, 5.5, 0, 1, 0};
    const double want_dx[4] = {5, 5, 10.5, 42.5};
    const double want_dgrid[12] = {-8, 0, 4, 0, -32, 0, 16, 0, -128, 0, 0, 0};
    gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 4, .ho = 1, .wo = 6, .dt = ACL_FLOAT,
                 .pad = 2, .go = go, .in = in, .grid = grid};
    double dx[4], dgrid[12];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, want_dx, 4);
    gs_expect("dgrid", dgrid, want_dgrid, 12);
}

/* Reflection, aligned, input 1x4 [1,2,4,8]: ix = (x+1)*1.5 reflected over [0, 3] (span 3),
 * factor 1.5; H 1 aligned reflects over an empty span: iy 0 with factor 0.
 *   x 1.5: ix 3.75, 1 fold -> 2.25, sign -1: dx[2] += .75g, dx[3] += .25g; gx 4*-1.5 = -6
 *   x -2:  ix -1.5, negative, 0 folds -> 1.5, sign -1: dx[1],dx[2] += .5g; gx 2*-1.5 = -3
 *   x 4:   ix 7.5, 2 folds -> 1.5, sign +1: gx 2*1.5 = 3
 * With g = 1, 2, 4: dx = [0, 3, 3.75, .25]; dgrid_x = [-6, -6, 12]. */
static void test_reflection_aligned_several_folds(void **state)
{
    (void)state;
    const double in[4] = {1, 2, 4, 8}, go[3] = {1, 2, 4};
    const double grid[6] = {1.5, 0, -2, 0, 4, 0};
    const double want_dx[4] = {0, 3, 3.75, 0.25}, want_dgrid[6] = {-6, 0, -6, 0, 12, 0};
    gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 4, .ho = 1, .wo = 3, .dt = ACL_FLOAT,
                 .pad = 2, .align = true, .go = go, .in = in, .grid = grid};
    double dx[4], dgrid[6];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, want_dx, 4);
    gs_expect("dgrid", dgrid, want_dgrid, 6);
}

/* Zeros, input 2x2 [[1,2],[4,8]], points (0,0) and (1,1), g 1.
 * aligned: (0,0) -> (.5,.5), factor .5: gx = (1*.5 + 4*.5)*.5 = 1.25, gy = (3*.5+6*.5)*.5 = 2.25;
 *   (1,1) -> (1,1): only nw (1,1) in bounds, weight 1; gx = (0-8)*.5 = -4, gy -4.
 * not aligned: (0,0) -> (.5,.5), factor 1: (2.5, 4.5); (1,1) -> (1.5,1.5): nw weight .25,
 *   gx = (0-8)*.5*1 = -4, gy -4. */
static void test_align_corners_both_ways(void **state)
{
    (void)state;
    const double in[4] = {1, 2, 4, 8}, go[2] = {1, 1}, grid[4] = {0, 0, 1, 1};
    const double want_dx[2][4] = {{0.25, 0.25, 0.25, 0.5}, {0.25, 0.25, 0.25, 1.25}};
    const double want_dgrid[2][4] = {{2.5, 4.5, -4, -4}, {1.25, 2.25, -4, -4}};
    for (int align = 0; align < 2; align++) {
        gs_case k = {.n = 1, .c = 1, .hi = 2, .wi = 2, .ho = 1, .wo = 2, .dt = ACL_FLOAT,
                     .align = align, .go = go, .in = in, .grid = grid};
        double dx[4], dgrid[4];
        gs_run_case(&k, dx, dgrid);
        gs_expect(align ? "aligned dx" : "dx", dx, want_dx[align], 4);
        gs_expect(align ? "aligned dgrid" : "dgrid", dgrid, want_dgrid[align], 4);
    }
}

/* Nearest, zeros, not aligned, input 1x4: ix = 2x + 1.5, rounded half to even.
 *   x 0 -> 1.5 -> 2;  x -.5 -> .5 -> 0;  x .5 -> 2.5 -> 2;  x -.25 -> 1 -> 1;
 *   x 1 -> 3.5 -> 4 (outside, dropped);  x -1 -> -.5 -> -0 -> 0 (inside).
 * g 1, 2, 4, 8, 16, 32: dx = [2+32, 8, 1+4, 0]; dgrid is written 0 (outputs start at 7). */
static void test_nearest_rounds_half_to_even(void **state)
{
    (void)state;
    const double in[4] = {1, 2, 4, 8}, go[6] = {1, 2, 4, 8, 16, 32};
    const double grid[12] = {0, 0, -0.5, 0, 0.5, 0, -0.25, 0, 1, 0, -1, 0};
    const double want_dx[4] = {34, 8, 5, 0}, want_dgrid[12] = {0};
    gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 4, .ho = 1, .wo = 6, .dt = ACL_FLOAT,
                 .interp = 1, .go = go, .in = in, .grid = grid, .fill = 7};
    double dx[4], dgrid[12];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, want_dx, 4);
    gs_expect("dgrid", dgrid, want_dgrid, 12);
}

/* Batches and channels: two batch items, two channels; channel 1 is channel 0 times 2 and
 * batch 1 uses the negated grid of batch 0 (x -> -x mirrors the 2x2 input: ix .5 stays .5).
 * Input per channel [[1,2],[4,8]] (c0) and [[2,4],[8,16]] (c1); one point (0.5, 0) per batch;
 * not aligned: ix = 1, iy = .5 -> corners (1,0),(1,1) weights .5 (x1 = 2 is outside).
 *   batch 0: dx c0 [0,.5,0,.5], c1 [0,1,0,1] (g 1 and 2); gx = sum_c (0-v(1,0))*.5+(0-v(1,1))*.5
 *     times g: c0 (-2*.5 - 8*.5)*1 = -5, c1 (-4*.5 - 16*.5)*2 = -20: -25 * factor 1 = -25;
 *     gy = sum_c (v(1,1)-v(1,0))*e (e = 1): c0 6*1, c1 12*2 = 30, factor 1: 30.
 *   batch 1 grid (-0.5, 0): ix 0: corners (0,0),(0,1) and (1,0),(1,1) with w 0:
 *     dx c0 [.5,0,.5,0], c1 [1,0,1,0]; gx = sum_c ((v(1,0)-v(0,0))*.5 + (v(1,1)-v(0,1))*.5)*g
 *     = c0 (1*.5 + 4*.5)*1 + c1 (2*.5+8*.5)*2 = 2.5 + 10 = 12.5; gy = c0 3*1 + c1 6*2 = 15. */
static void test_batches_and_channels(void **state)
{
    (void)state;
    const double in[16] = {1, 2, 4, 8, 2, 4, 8, 16, 1, 2, 4, 8, 2, 4, 8, 16};
    const double go[4] = {1, 2, 1, 2}, grid[4] = {0.5, 0, -0.5, 0};
    const double want_dx[16] = {0, .5, 0, .5, 0, 1, 0, 1, .5, 0, .5, 0, 1, 0, 1, 0};
    const double want_dgrid[4] = {-25, 30, 12.5, 15};
    gs_case k = {.n = 2, .c = 2, .hi = 2, .wi = 2, .ho = 1, .wo = 1, .dt = ACL_FLOAT,
                 .go = go, .in = in, .grid = grid};
    double dx[16], dgrid[4];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, want_dx, 16);
    gs_expect("dgrid", dgrid, want_dgrid, 4);
}

/* outputMask selects outputs; an unselected output keeps its contents (7). The seed example's
 * values are expected where selected. Masks: {1,0}, {0,1}, {1,1}, {1} (missing = false),
 * {0,1,1} (third entry ignored). */
static void test_output_mask_combinations(void **state)
{
    (void)state;
    const struct {
        int len;
        bool m[3];
    } masks[] = {{2, {true, false}}, {2, {false, true}}, {2, {true, true}},
                 {1, {true}},        {3, {false, true, true}}};
    double sentinel_dx[40], sentinel_dgrid[18];
    for (int i = 0; i < 40; i++)
        sentinel_dx[i] = 7;
    for (int i = 0; i < 18; i++)
        sentinel_dgrid[i] = 7;
    for (size_t j = 0; j < sizeof masks / sizeof masks[0]; j++) {
        gs_case k;
        double go[9], in[40], dx[40], dgrid[18];
        seed_case(&k, go, in);
        k.mask_len = masks[j].len;
        memcpy(k.mask, masks[j].m, sizeof k.mask);
        gs_run_case(&k, dx, dgrid);
        bool want_dx = masks[j].m[0], want_dgrid = masks[j].len > 1 && masks[j].m[1];
        gs_expect("dx", dx, want_dx ? kSeedDx : sentinel_dx, 40);
        gs_expect("dgrid", dgrid, want_dgrid ? kSeedDgrid : sentinel_dgrid, 18);
    }
}

/* Non-finite grid values are out of bounds (contract, derived): no dx, dgrid 0, even with
 * border padding (which would clip a finite value). Input [[1,2],[4,8]], not aligned, border;
 * point 0 (0,0) is the aligned-test point (dx .25 each, dgrid (2.5, 4.5)); the others carry
 * NaN or Inf in x or y with large g that would show in dx. */
static void test_non_finite_grid_is_out_of_bounds(void **state)
{
    (void)state;
    const double in[4] = {1, 2, 4, 8}, go[4] = {1, 100, 1000, 10000};
    const double grid[8] = {0, 0, NAN, 0, 0, INFINITY, -INFINITY, -INFINITY};
    const double want_dx[4] = {0.25, 0.25, 0.25, 0.25};
    const double want_dgrid[8] = {2.5, 4.5, 0, 0, 0, 0, 0, 0};
    for (int pad = 0; pad < 3; pad++) {
        gs_case k = {.n = 1, .c = 1, .hi = 2, .wi = 2, .ho = 1, .wo = 4, .dt = ACL_FLOAT,
                     .pad = pad, .go = go, .in = in, .grid = grid, .fill = 7};
        double dx[4], dgrid[8];
        gs_run_case(&k, dx, dgrid);
        gs_expect("dx", dx, want_dx, 4);
        gs_expect("dgrid", dgrid, want_dgrid, 8);
    }
}

/* NaN and Inf in gradOutput or input propagate (IEEE): one point at the centre of a 2x2 input
 * (all four weights .25). g NaN: dx all NaN, dgrid NaN. g Inf with input 1: dx all Inf, dgrid
 * (input differences 0) 0*Inf = NaN. */
static void test_nan_inf_values_propagate(void **state)
{
    (void)state;
    const double in[4] = {1, 1, 1, 1}, grid[2] = {0, 0};
    const double go_nan[1] = {NAN}, go_inf[1] = {INFINITY};
    const double nan4[4] = {NAN, NAN, NAN, NAN}, inf4[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    gs_case k = {.n = 1, .c = 1, .hi = 2, .wi = 2, .ho = 1, .wo = 1, .dt = ACL_FLOAT,
                 .go = go_nan, .in = in, .grid = grid};
    double dx[4], dgrid[2];
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, nan4, 4);
    gs_expect("dgrid", dgrid, nan4, 2);
    k.go = go_inf;
    gs_run_case(&k, dx, dgrid);
    gs_expect("dx", dx, inf4, 4);
    gs_expect("dgrid", dgrid, nan4, 2);
}

/* FP16/BF16 accumulate in FP32 and round once: nearest, three points on the same cell with g
 * 1, u, u where u is half an ULP of 1 (FP16 2^-11, BF16 2^-8). FP32 sum 1 + 2u is representable
 * in the format; accumulating in the format itself would tie-round 1 + u back to 1 twice. */
static void test_half_types_accumulate_in_fp32(void **state)
{
    (void)state;
    const aclDataType dts[2] = {ACL_FLOAT16, ACL_BF16};
    const double u[2] = {0x1p-11, 0x1p-8};
    for (int i = 0; i < 2; i++) {
        const double in[1] = {1}, grid[6] = {0, 0, 0, 0, 0, 0}, go[3] = {1, u[i], u[i]};
        const double want_dx[1] = {1 + 2 * u[i]};
        gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 1, .ho = 1, .wo = 3, .dt = dts[i],
                     .interp = 1, .go = go, .in = in, .grid = grid};
        double dx[1];
        gs_run_case(&k, dx, NULL);
        gs_expect("dx", dx, want_dx, 1);
    }
}

/* After a test that switches product and release, even a failed one: 910b under doc. */
static int back_to_910b(void **state)
{
    (void)state;
    unsetenv("ACLNN_EMU_SPEC");
    emu_test_init("ascend910b");
    return 0;
}

/* 950's SIMT kernel from release 9.0 adds each dx contribution by an atomic add in FLOAT16 or
 * BF16 (ops-cv op_kernel/arch35/grid_sampler2_d_grad_simt.h:155@197f5fbc, nearest): the three
 * points above in that order, g = 1, u, u on one cell, give 1 + u = a tie that rounds to even,
 * 1, twice: dx 1 where the FP32 sum rounded once is 1 + 2u. Both kernels (determinism on and
 * off); 950 under doc and vendor@8.5 (its vector kernel) keeps the FP32 sum, and 910b too. */
static void test_950_simt_sums_in_dtype(void **state)
{
    (void)state;
    const aclDataType dts[2] = {ACL_FLOAT16, ACL_BF16};
    const double u[2] = {0x1p-11, 0x1p-8};
    const char *const specs[5] = {"vendor@9.0", "vendor@9.1", "vendor@9.2", "vendor@8.5", "doc"};
    const char *const socs[2] = {"ascend950", "ascend910b"};
    for (int soc = 0; soc < 2; soc++)
        for (int sp = 0; sp < 5; sp++) {
            setenv("ACLNN_EMU_SPEC", specs[sp], 1); /* read by aclInit */
            emu_test_init(socs[soc]);
            for (int det = 0; det < 2; det++)
                for (int i = 0; i < 2; i++) {
                    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det),
                                     ACL_SUCCESS);
                    const double in[1] = {1}, grid[6] = {0}, go[3] = {1, u[i], u[i]};
                    const double want_dx[1] = {soc == 0 && sp < 3 ? 1 : 1 + 2 * u[i]};
                    gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 1, .ho = 1, .wo = 3,
                                 .dt = dts[i], .interp = 1, .go = go, .in = in, .grid = grid};
                    double dx[1];
                    gs_run_case(&k, dx, NULL);
                    gs_expect("dx", dx, want_dx, 1);
                }
        }
}

/* The order of those adds: 950's deterministic SIMT kernel adds a block of 256 points corner by
 * corner (grid_sampler2_d_grad_simt_det.h:78-106@4d57ffe7), the atomic one point by point.
 * Bilinear, align_corners, input 1x1x1x3: P0 at column 0.5 with g = 2 puts 1 on column 1 by
 * its north-east corner; P1 and P2 at column 1 put 2^-11 each there by their north-west one.
 * Corner by corner: 2^-11 + 2^-11 + 1 = 1 + 2^-10 (exact); point by point 1 + 2^-11 is a tie
 * that rounds to 1, twice: 1. */
static void test_950_simt_deterministic_order(void **state)
{
    (void)state;
    setenv("ACLNN_EMU_SPEC", "vendor@9.0", 1);
    emu_test_init("ascend950");
    const double in[3] = {0}, grid[6] = {-0.5, 0, 0, 0, 0, 0}, go[3] = {2, 0x1p-11, 0x1p-11};
    for (int det = 0; det < 2; det++) {
        assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
        gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 3, .ho = 1, .wo = 3, .dt = ACL_FLOAT16,
                     .interp = 0, .align = true, .go = go, .in = in, .grid = grid};
        double dx[3];
        gs_run_case(&k, dx, NULL);
        const double want[3] = {1, det ? 1 + 0x1p-10 : 1, 0};
        gs_expect("dx", dx, want, 3);
    }
}

/* From release 9.1 950's SIMT kernel rounds the unnormalised coordinate to the dtype
 * (grid_sampler3_d_grad_simt_base.h:64@4d57ffe7). Bilinear, align_corners, input 1x1x1x2001,
 * one point x = 2^-12, y = 0, g = 1: t = (1 + 2^-12)·1000 = 1000.244140625 in FP32, whose
 * weights 0.755859375 and 0.244140625 (FLOAT16 numbers) 9.0 and 910b give; FLOAT16 holds
 * multiples of 1/2 near 1000, so 9.1 and 9.2 take t = 1000: weights 1 and 0. Both kernels. */
static void test_950_simt_coordinate_in_dtype(void **state)
{
    (void)state;
    enum { W = 2001 };
    static double in[W], dx[W];
    const double go[1] = {1}, grid[2] = {0x1p-12, 0};
    const char *const specs[3] = {"vendor@9.0", "vendor@9.1", "vendor@9.2"};
    for (int soc = 0; soc < 2; soc++)
        for (int sp = 0; sp < 3; sp++) {
            setenv("ACLNN_EMU_SPEC", specs[sp], 1);
            emu_test_init(soc ? "ascend910b" : "ascend950");
            for (int det = 0; det < 2; det++) {
                assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det),
                                 ACL_SUCCESS);
                gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = W, .ho = 1, .wo = 1,
                             .dt = ACL_FLOAT16, .interp = 0, .align = true, .go = go, .in = in,
                             .grid = grid};
                gs_run_case(&k, dx, NULL);
                bool rounded = soc == 0 && sp > 0;
                const double want[2] = {rounded ? 1 : 0.755859375, rounded ? 0 : 0.244140625};
                gs_expect("dx", dx + 1000, want, 2);
            }
        }
}

/* DOUBLE computes in double, FLOAT in FP32: nearest, two points on one cell with g 1 and 2^-30:
 * FP32 gives 1 (2^-30 is below half an ULP of 1), double 1 + 2^-30. */
static void test_double_vs_float(void **state)
{
    (void)state;
    const double in[1] = {1}, grid[4] = {0, 0, 0, 0}, go[2] = {1, 0x1p-30};
    const double want[2][1] = {{1}, {1 + 0x1p-30}};
    const aclDataType dts[2] = {ACL_FLOAT, ACL_DOUBLE};
    for (int i = 0; i < 2; i++) {
        gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 1, .ho = 1, .wo = 2, .dt = dts[i],
                     .interp = 1, .go = go, .in = in, .grid = grid};
        double dx[1];
        gs_run_case(&k, dx, NULL);
        gs_expect(i ? "double dx" : "float dx", dx, want[i], 1);
    }
}

/* Non-contiguous views with storage offsets, FLOAT and FLOAT16: the document's example with
 * input column-major, gradOutput and grid with gaps, gridGrad with (x, y) transposed, inputGrad
 * with gaps; same 58 values as the contiguous run, and the gaps of inputGrad keep their 7s. */
static void test_strided_views_and_offsets(void **state)
{
    (void)state;
    const aclDataType dts[2] = {ACL_FLOAT, ACL_FLOAT16};
    for (int t = 0; t < 2; t++) {
        double go[9], in[40];
        gs_case k;
        seed_case(&k, go, in);
        const int64_t go_d[4] = {1, 1, 3, 3}, in_d[4] = {1, 1, 5, 8}, gr_d[4] = {1, 3, 3, 2};
        const int64_t go_s[4] = {20, 20, 6, 2}, in_s[4] = {40, 40, 1, 5}, gr_s[4] = {27, 9, 3, 1};
        const int64_t dx_s[4] = {80, 80, 16, 2}, dg_s[4] = {18, 6, 1, 3};
        void *dev[GS_NT];
        aclTensor *tgo = emu_test_tensor_view(go, go_d, 4, go_s, 0, 17, 5, dts[t], ACL_FORMAT_ND,
                                              &dev[GS_GO]);
        aclTensor *tin = emu_test_tensor_view(in, in_d, 4, in_s, 3, 43, 5, dts[t], ACL_FORMAT_ND,
                                              &dev[GS_IN]);
        aclTensor *tgr = emu_test_tensor_view(kSeedGrid, gr_d, 4, gr_s, 1, 27, 5, dts[t],
                                              ACL_FORMAT_ND, &dev[GS_GRID]);
        aclTensor *tdx = emu_test_tensor_view(NULL, in_d, 4, dx_s, 5, 84, 7, dts[t],
                                              ACL_FORMAT_ND, &dev[GS_DX]);
        aclTensor *tdg = emu_test_tensor_view(NULL, gr_d, 4, dg_s, 2, 20, 7, dts[t],
                                              ACL_FORMAT_ND, &dev[GS_DGRID]);
        bool m[2] = {true, true};
        aclBoolArray *mask = aclCreateBoolArray(m, 2);
        uint64_t ws;
        aclOpExecutor *ex;
        assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(tgo, tin, tgr, 0, 0, false,
                                                                    mask, tdx, tdg, &ws, &ex),
                         ACLNN_SUCCESS);
        assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, ex, NULL), ACLNN_SUCCESS);
        double dx[40], dgrid[18], flat[84];
        emu_test_read(tdx, dx);
        emu_test_read(tdg, dgrid);
        gs_expect("strided dx", dx, kSeedDx, 40);
        gs_expect("strided dgrid", dgrid, kSeedDgrid, 18);
        const int64_t flat_d[1] = {84}, flat_s[1] = {1};
        aclTensor *all = aclCreateTensor(flat_d, 1, dts[t], flat_s, 0, ACL_FORMAT_ND, flat_d, 1,
                                         dev[GS_DX]);
        emu_test_read(all, flat);
        for (int64_t i = 0; i < 84; i++) {
            int64_t r = i - 5; /* view element (h, w) sits at 5 + 16h + 2w */
            bool in_view = r >= 0 && r % 2 == 0 && r / 16 < 5;
            if (!in_view && flat[i] != 7)
                fail_msg("inputGrad storage[%lld] = %g outside the view", (long long)i, flat[i]);
        }
        aclDestroyTensor(all);
        aclDestroyBoolArray(mask);
        aclTensor *ts[GS_NT] = {tgo, tin, tgr, tdx, tdg};
        for (int i = 0; i < GS_NT; i++) {
            aclDestroyTensor(ts[i]);
            aclrtFree(dev[i]);
        }
    }
}

/* Outputs untouched (contract): an empty or all-false mask, and the vendor's null mask. */
static void test_unselected_outputs_untouched(void **state)
{
    (void)state;
    double sentinel_dx[40], sentinel_dgrid[18];
    for (int i = 0; i < 40; i++)
        sentinel_dx[i] = 7;
    for (int i = 0; i < 18; i++)
        sentinel_dgrid[i] = 7;
    for (int v = 0; v < 3; v++) {
        if (v == 2) {
            setenv("ACLNN_EMU_SPEC", "vendor", 1);
            emu_test_init("ascend910b");
        }
        gs_case k;
        double go[9], in[40], dx[40], dgrid[18];
        seed_case(&k, go, in);
        k.mask_len = v == 0 ? -1 : 2; /* -1: empty mask; v 2: null mask */
        k.null_mask = v == 2;
        gs_run_case(&k, dx, dgrid);
        gs_expect("dx", dx, sentinel_dx, 40);
        gs_expect("dgrid", dgrid, sentinel_dgrid, 18);
    }
    unsetenv("ACLNN_EMU_SPEC");
    emu_test_init("ascend910b");
}

/* docs/contract.md: empty tensors succeed, and a selected output that is not itself empty is
 * written in full with zeros (the sum over no channels / no grid points), as PyTorch writes. */
static void test_empty_tensors_zero_nonempty_outputs(void **state)
{
    (void)state;
    const double zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const double grid[8] = {0, 0, 0, 0, 0, 0, 0, 0}, in[4] = {1, 2, 3, 4};
    double dx[4], dgrid[8];
    gs_case k = {.n = 1, .c = 0, .hi = 2, .wi = 2, .ho = 2, .wo = 2, .dt = ACL_FLOAT,
                 .grid = grid, .fill = 7};
    gs_run_case(&k, NULL, dgrid);
    gs_expect("C=0 dgrid", dgrid, zeros, 8);
    k = (gs_case){.n = 1, .c = 1, .hi = 2, .wi = 2, .ho = 0, .wo = 2, .dt = ACL_FLOAT,
                  .in = in, .fill = 7};
    gs_run_case(&k, dx, NULL);
    gs_expect("Hout=0 dx", dx, zeros, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example_all_dtypes),
        cmocka_unit_test(test_border_clips_and_zeroes_gradient_at_limits),
        cmocka_unit_test(test_reflection_not_aligned_several_folds),
        cmocka_unit_test(test_reflection_aligned_several_folds),
        cmocka_unit_test(test_align_corners_both_ways),
        cmocka_unit_test(test_nearest_rounds_half_to_even),
        cmocka_unit_test(test_batches_and_channels),
        cmocka_unit_test(test_output_mask_combinations),
        cmocka_unit_test(test_non_finite_grid_is_out_of_bounds),
        cmocka_unit_test(test_nan_inf_values_propagate),
        cmocka_unit_test(test_half_types_accumulate_in_fp32),
        cmocka_unit_test_teardown(test_950_simt_sums_in_dtype, back_to_910b),
        cmocka_unit_test_teardown(test_950_simt_coordinate_in_dtype, back_to_910b),
        cmocka_unit_test_teardown(test_950_simt_deterministic_order, back_to_910b),
        cmocka_unit_test(test_double_vs_float),
        cmocka_unit_test(test_strided_views_and_offsets),
        cmocka_unit_test(test_unselected_outputs_untouched),
        cmocka_unit_test(test_empty_tensors_zero_nonempty_outputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

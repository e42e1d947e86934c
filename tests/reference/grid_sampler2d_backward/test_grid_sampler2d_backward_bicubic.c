/* The grid sampler's bicubic mode (interpolationMode 2, grid_bicubic.c): against PyTorch float64
 * (tests/reference/fixtures/torch_f64_bicubic.txt, made by `tools/make-torch-fixtures
 * --bicubic`: every padding mode and align_corners, points on cell edges, far out and on
 * reflection folds), against hand-derived exact values (each comment derives them from Keys'
 * kernel with A = −3/4), and its non-finite classes. */
#include <float.h>
#include <mpfr.h>

#include "same_output.h"
#include "torch_fixtures.h"

/* grid_bicubic.h's switch: BC_LANES lanes as one vector (8), as two of 4, or the CPU's (0) */
extern int bc_lanes_width;

static ref_grid_params bicubic(int64_t n, int64_t c, int64_t h_in, int64_t w_in, int64_t h_out,
                               int64_t w_out, ref_padding pad, bool align)
{
    return (ref_grid_params){n, c, h_in, w_in, h_out, w_out, REF_INTERP_BICUBIC, pad, align};
}

static void run(const ref_grid_params *p, const double *go, const double *in, const double *gr,
                ref_dtype dt, ref_output *oi, ref_output *og)
{
    ref_options opt = {.path = ref_grid_path(dt)};
    assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, &opt, oi, og), 0);
}

/* dst[i] = src[(i·mul + add) mod m]: data of every class in a fixed order */
static void cycle(double *dst, int n, const double *src, int m, int mul, int add)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[(i * mul + add) % m];
}

/* The fast path and pure MPFR on one call: both outputs bitwise alike (same_output.h); the fast
 * path's answer counts added to *hits, *falls. */
static void fast_vs_mpfr(const ref_grid_params *p, const double *go, const double *in,
                         const double *gr, ref_dtype dt, int64_t *hits, int64_t *falls)
{
    ref_output a[2], b[2];
    for (int k = 0; k < 2; k++) {
        ref_options opt = {.path = ref_grid_path(dt), .force_mpfr = k};
        assert_int_equal(ref_grid_sampler2d_backward(p, go, in, gr, &opt, k ? &b[0] : &a[0],
                                                     k ? &b[1] : &a[1]),
                         0);
        if (!k) {
            *hits += opt.fast_hits;
            *falls += opt.mpfr_fallbacks;
        }
    }
    for (int k = 0; k < 2; k++) {
        same_output(&a[k], &b[k]);
        ref_output_free(&a[k]);
        ref_output_free(&b[k]);
    }
}

static void agrees_with_torch(void **state)
{
    (void)state;
    FILE *f = torch_open_named("torch_f64_bicubic.txt");
    torch_record r;
    int ncase = 0, bad = 0, unchecked = 0;
    int64_t nel = 0;
    while (torch_next(f, &r) == 0) {
        ncase++;
        assert_int_equal(r.grid.interpolation, REF_INTERP_BICUBIC);
        ref_output oi, og;
        run(&r.grid, r.go, r.in, r.gr, REF_DT_DOUBLE, &oi, &og);
        bad += torch_check(&oi, r.dx, "dx", ncase);
        bad += torch_check(&og, r.dg, "dgrid", ncase);
        for (int64_t i = 0; i < oi.numel; i++)
            unchecked += (oi.flags[i] & REF_FLAG_UNCHECKABLE) != 0;
        for (int64_t i = 0; i < og.numel; i++)
            unchecked += (og.flags[i] & REF_FLAG_UNCHECKABLE) != 0;
        nel += oi.numel + og.numel;
        ref_output_free(&oi);
        ref_output_free(&og);
        torch_record_free(&r);
    }
    fclose(f);
    print_message("%d bicubic fixtures, %lld elements, %d outside the bound\n", ncase,
                  (long long)nel, bad);
    assert_true(ncase >= 20);
    assert_int_equal(bad, 0);
    assert_int_equal(unchecked, 0); /* finite data: every element judged */
}

/* The one-element MPFR form gives every streamed value (hi) of the fixtures. */
static void element_mpfr_agrees(void **state)
{
    (void)state;
    FILE *f = torch_open_named("torch_f64_bicubic.txt");
    torch_record r;
    mpfr_t m;
    mpfr_init2(m, 53);
    while (torch_next(f, &r) == 0) {
        ref_output oi, og;
        run(&r.grid, r.go, r.in, r.gr, REF_DT_FLOAT, &oi, &og);
        for (int which = 0; which < 2; which++) {
            const ref_output *o = which ? &og : &oi;
            for (int64_t i = 0; i < o->numel; i++) {
                assert_int_equal(ref_grid_sampler2d_backward_element_mpfr(&r.grid, r.go, r.in, r.gr,
                                                                          which, i, m), 0);
                assert_true(mpfr_get_d(m, MPFR_RNDN) == o->v[i].hi);
            }
        }
        ref_output_free(&oi);
        ref_output_free(&og);
        torch_record_free(&r);
    }
    fclose(f);
    mpfr_clear(m);
}

/* Border, align_corners, input 1×1×1×4 = 0, 1, 2, 3, one point (0, 0), g = 1. x: c = (0+1)/2·3
 * = 3/2, floor 1, t = 1/2, taps 0..3 with K(3/2) = −3/4·(1/2)(1/2)² = −3/32, K(1/2) = 5/4·1/8 −
 * 9/4·1/4 + 1 = 19/32, K(1/2), K(3/2). y: size 1, c = 0, t = 0, taps −1..2 all clamp to row 0
 * with weights 0, 1, 0, 0. input_grad = (−3/32, 19/32, 19/32, −3/32). grid_grad x: the
 * derivatives K'(3/2) = −9/4·9/4 + 15/2·3/2 − 6 = 3/16, K'(1/2) = 15/4·1/4 − 9/2·1/2 = −21/16,
 * then +21/16 and −3/16 (d/dt of K(1−t), K(2−t)): Σ val·w' = −21/16 + 42/16 − 9/16 = 3/4,
 * times mult = (4−1)/2: 9/8. grid_grad y: mult = (1−1)/2 = 0. */
static void hand_derived_border(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 1, REF_PAD_BORDER, true);
    double go[] = {1}, in[] = {0, 1, 2, 3}, gr[] = {0, 0};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    const double want[] = {-3.0 / 32, 19.0 / 32, 19.0 / 32, -3.0 / 32};
    for (int i = 0; i < 4; i++) {
        assert_true(oi.v[i].hi == want[i] && oi.v[i].lo == 0);
        assert_int_equal(oi.flags[i], 0);
    }
    assert_true(og.v[0].hi == 9.0 / 8 && og.v[1].hi == 0);
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* Reflection, not align_corners, input 1×1×1×4, point x = −3/2: c = ((−1/2)·4 − 1)/2 = −3/2,
 * floor −2, t = 1/2, taps −3, −2, −1, 0 reflected with period 8 to 2, 1, 0, 0 (PyTorch's
 * reflect_coordinates about −1/2 and 7/2), weights −3/32, 19/32, 19/32, −3/32: input_grad =
 * (19/32 − 3/32, 19/32, −3/32, 0) = (1/2, 19/32, −3/32, 0). y: size 1, every tap on row 0. */
static void hand_derived_reflection(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 1, REF_PAD_REFLECTION, false);
    double go[] = {1}, in[] = {0, 0, 0, 0}, gr[] = {-1.5, 0};
    ref_output oi;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, NULL);
    const double want[] = {0.5, 19.0 / 32, -3.0 / 32, 0};
    for (int i = 0; i < 4; i++)
        assert_true(oi.v[i].hi == want[i]);
    ref_output_free(&oi);
}

/* Zeros: taps outside contribute nothing, and a point whose every tap is outside, on every
 * branch, contributes nothing (x = 0.75 on an axis of 2, not align: c = (1.75·2 − 1)/2 = 5/4,
 * floor 1, taps 0..3 of which 0, 1 inside with K(5/4) = −3/4·(1/4)(3/4)² = −27/256 and K(1/4) =
 * 5/4/64 − 9/4/16 + 1 = 225/256; the point x = 40 none; x = 2: c = 5/2, floor 2, taps 1..4 of
 * which column 1 inside, with K(3/2) = −3/32). */
static void hand_derived_zeros(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 2, 1, 3, REF_PAD_ZEROS, false);
    double go[] = {1, 1, 1}, in[] = {0, 0}, gr[] = {0.75, -1, 40, -1, 2, -1};
    /* y = −1: c = (0·1 − 1)/2 = −1/2, floor −1, t = 1/2, row taps −2..1: row 0 is tap 2,
     * weight 19/32 */
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    assert_true(oi.v[0].hi == -27.0 / 256 * 19 / 32);
    assert_true(oi.v[1].hi == 225.0 / 256 * 19 / 32 - 3.0 / 32 * 19 / 32);
    assert_true(og.v[2].hi == 0 && og.v[3].hi == 0 && og.v[2].nterms == 0);
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* Keys' kernel (A = −3/4) and its derivative at tap k of t (w_k = K(t + 1 − k), dw_k its
 * derivative in t), by the formulas of grid_bicubic.c's opening comment */
static void keys(double t, int k, double *w, double *dw)
{
    double s = fabs(t + 1 - k), sg = t + 1 - k < 0 ? -1 : 1;
    *w = s <= 1 ? 1.25 * s * s * s - 2.25 * s * s + 1
               : -0.75 * s * s * s + 3.75 * s * s - 6 * s + 3;
    *dw = sg * (s <= 1 ? 3.75 * s * s - 4.5 * s : -2.25 * s * s + 7.5 * s - 6);
}

/* grid_grad's value and bound data by the model alone, for points whose coordinates FP32 forms
 * exactly (δ = 0, so e_w = 3/2·u + 256u and e_dw = 9/2·u + 192u, u = 2^-24) off the cell edges,
 * values multiples of 1/8 (every product and sum exact in long double): comp 0 (x) has the
 * factors |dwx|·|wy|·mult_x, comp 1 |wx|·|dwy|·mult_y; coord_err Σ|g·val|·mult·(ex·fy + fx·ey +
 * ex·ey), under_mag Σ max(1, |g|)·max(1, |val|)·2·max(1, mult)·2^-1070, both it and sum_abs
 * times 1 + (nterms + 8)·2^-52. Zeros, not align_corners, 3 channels, input 5×6 (mult 3 and 5/2:
 * the components' factors all differ), values within ±1 and within ±2. */
static void dgrid_bounds_hand_derived(void **state)
{
    (void)state;
    enum { C = 3, H = 5, W = 6, P = 3 };
    ref_grid_params p = bicubic(1, C, H, W, 1, P, REF_PAD_ZEROS, false);
    double gr[2 * P] = {0.25, -0.5, -0.625, 0.375, 0.875, 0.8125}, go[C * P], in[C * H * W];
    const double u = 0x1p-24, e[2][2] = {{4.5 * u + 192 * u, 1.5 * u + 256 * u}, /* x: edw, ew */
                                         {1.5 * u + 256 * u, 4.5 * u + 192 * u}}; /* y: ew, edw */
    const double mult[2] = {W / 2.0, H / 2.0}, size[2] = {W, H};
    for (int scale = 1; scale <= 2; scale++) {
        for (int i = 0; i < C * P; i++)
            go[i] = ((i * 5 + 3) % 17 - 8) / 8.0;
        for (int i = 0; i < C * H * W; i++)
            in[i] = scale * ((i * 7 + 2) % 17 - 8) / 8.0;
        ref_output og;
        run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
        for (int pt = 0; pt < P; pt++) {
            double w[2][4], dw[2][4];
            int64_t i0[2];
            for (int a = 0; a < 2; a++) {
                double c = ((gr[2 * pt + a] + 1) * size[a] - 1) / 2;
                i0[a] = (int64_t)floor(c);
                for (int k = 0; k < 4; k++)
                    keys(c - (double)i0[a], k, &w[a][k], &dw[a][k]);
            }
            for (int cm = 0; cm < 2; cm++) {
                long double val = 0, sabs = 0, cerr = 0, under = 0;
                int64_t nt = 0;
                for (int ky = 0; ky < 4; ky++)
                    for (int kx = 0; kx < 4; kx++) {
                        int64_t yi = i0[1] - 1 + ky, xi = i0[0] - 1 + kx;
                        if (yi < 0 || yi >= H || xi < 0 || xi >= W)
                            continue;
                        nt++;
                        double fx = cm == 0 ? dw[0][kx] : w[0][kx];
                        double fy = cm == 0 ? w[1][ky] : dw[1][ky];
                        double ex = e[0][cm], ey = e[1][cm];
                        for (int ch = 0; ch < C; ch++) {
                            long double g = go[ch * P + pt], v = in[(ch * H + yi) * W + xi];
                            long double a = fabsl(g * v);
                            val += g * v * fx * fy * mult[cm];
                            sabs += a * fabs(fx) * fabs(fy) * mult[cm];
                            cerr += a * mult[cm] * (ex * fabs(fy) + fabs(fx) * ey + ex * ey);
                            under += fmaxl(1, fabsl(g)) * fmaxl(1, fabsl(v)) * 2 * mult[cm];
                        }
                    }
                const ref_value *v = &og.v[2 * pt + cm];
                long double k = 1 + (long double)(nt * C + 8) * 0x1p-52L;
                assert_int_equal(v->nterms, nt * C);
                assert_int_equal(og.flags[2 * pt + cm], 0);
                assert_true(v->hi == (double)val);
                assert_true(fabsl(v->sum_abs - sabs * k) <= sabs * 0x1p-45L);
                assert_true(fabsl(v->coord_err - cerr * k) <= cerr * 0x1p-45L);
                assert_true(fabsl(v->under_mag - under * k * REF_UNDER_SCALE) <=
                            under * REF_UNDER_SCALE * 0x1p-45L + 0x1p-1074);
            }
        }
        ref_output_free(&og);
    }
}

/* Non-finite classes. Exact coordinates on a cell edge (t = 0, δ = 0): the weights are 0, 1, 0,
 * 0 in every format, so an infinite input on the tap of weight 0 gives grid_grad x = NaN
 * (0·∞) for certain: judged. The same point at a coordinate the device rounds (FP32, δ > 0) and
 * t within δ of the edge: the class depends on the device's floor, unjudgeable. */
static void nonfinite_classes(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 5, 1, 1, REF_PAD_BORDER, true);
    /* x = −1/2: c = (1/2)/2·4 = 1, taps 0..3, tap 3 (weight K(2) = 0, derivative −K'(2) = 0) */
    double go[] = {1}, in[] = {0, 0, 0, INFINITY, 0}, gr[] = {-0.5, 0};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    assert_true(isnan(og.v[0].hi));
    assert_int_equal(og.flags[0] & (REF_FLAG_NONFINITE | REF_FLAG_UNCHECKABLE), REF_FLAG_NONFINITE);
    ref_output_free(&oi);
    ref_output_free(&og);
    /* x = −1/2 + 2^-40: t = 2^-39 but FP32 rounds the coordinate by far more (δ ≈ 2^-21) */
    gr[0] = -0.5 + 0x1p-40;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    assert_true(og.flags[0] & REF_FLAG_UNCHECKABLE);
    ref_output_free(&oi);
    ref_output_free(&og);
    /* An infinite gradient at (0, 0) on a 5×5 input: c = 2 on both axes, t = 0 exact, taps
     * 1..4 with weights 0, 1, 0, 0: element (2, 2) gets ∞·1·1 = ∞, the other fifteen taps
     * ∞·0 = NaN, all judged; row 0 and column 0 nothing. */
    ref_grid_params q = bicubic(1, 1, 5, 5, 1, 1, REF_PAD_BORDER, true);
    double gi[] = {INFINITY}, zero[25] = {0}, g2[] = {0, 0};
    run(&q, gi, zero, g2, REF_DT_FLOAT, &oi, NULL);
    for (int yi = 0; yi < 5; yi++)
        for (int xi = 0; xi < 5; xi++) {
            const ref_value *v = &oi.v[yi * 5 + xi];
            if (yi == 0 || xi == 0)
                assert_true(v->hi == 0 && oi.flags[yi * 5 + xi] == 0);
            else if (yi == 2 && xi == 2)
                assert_true(v->hi == INFINITY);
            else
                assert_true(isnan(v->hi));
            assert_int_equal(oi.flags[yi * 5 + xi] & REF_FLAG_UNCHECKABLE, 0);
        }
    ref_output_free(&oi);
}

/* A product of the device's may overflow where the exact value is small: FLOAT, border, the
 * input FLT_MAX on the taps of a point and g = 2^-149; val·(dw·w) passes FLT_MAX before g scales
 * it down (the device's order), so grid_grad is REF_FLAG_RANGE (any non-finite result legal). */
static void partial_product_overflow(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 4, 4, 1, 1, REF_PAD_BORDER, false);
    double go[] = {0x1p-149}, in[16], gr[] = {0.1, 0.3};
    for (int i = 0; i < 16; i++)
        in[i] = i % 3 ? 0x1.fffffep127 : -0x1.fffffep127;
    ref_output og;
    run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
    assert_true(isfinite(og.v[0].hi) && fabs(og.v[0].hi) < 1e-4); /* ~2^-21 */
    assert_true(og.flags[0] & REF_FLAG_RANGE);
    assert_true(og.flags[1] & REF_FLAG_RANGE);
    ref_output_free(&og);
}

/* A device's term, within its coefficient error, may pass FLT_MAX where the exact value does
 * not: FLOAT, g = FLT_MAX, zeros, input 1×4 with align_corners, x = (1 + 2^-10)/1.5 − 1: c ≈ 1 +
 * 2^-10, tap 1's weight K(t) ≈ 1 − 2.25·2^-20 (y: size 1, the row's weight exactly 1), so
 * element 1 is FLT_MAX·(1 − 2.1e-6) exactly while the device's FP32 coefficient errs by up to
 * ~1.5e-5: REF_FLAG_RANGE. */
static void sum_near_overflow(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 1, REF_PAD_ZEROS, true);
    double go[] = {0x1.fffffep127}, in[4] = {0}, gr[] = {(1 + 0x1p-10) / 1.5 - 1, 0};
    ref_output oi;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, NULL);
    assert_true(oi.v[1].hi < 0x1.fffffep127 && oi.v[1].hi > 0x1.fffffep127 * (1 - 1e-5));
    assert_true(oi.flags[1] & REF_FLAG_RANGE);
    ref_output_free(&oi);
}

/* Every bound is a number (an overflowing |g·val| times a zero weight once made it NaN, which no
 * device value satisfies): DOUBLE, DBL_MAX and non-finite gradients and inputs, points on and a
 * few ULPs off cell edges. */
static void bounds_are_numbers(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 2, 3, 4, 2, 3, REF_PAD_REFLECTION, true);
    double go[12], in[24], gr[12];
    const double special[] = {DBL_MAX, -DBL_MAX, INFINITY, NAN, 1.5, -2, 0x1p-1074, 0};
    for (int i = 0; i < 12; i++)
        go[i] = special[(i * 5) % 8];
    for (int i = 0; i < 24; i++)
        in[i] = special[(i * 3) % 8];
    const double xs[] = {0, 1.0 / 3, -1 + 0x1p-52, 0.5 + 0x1p-50, -1, 2.0 / 3 - 0x1p-52};
    for (int i = 0; i < 12; i++)
        gr[i] = xs[i % 6];
    ref_output oi, og;
    for (int dt = 0; dt < 2; dt++) {
        ref_dtype t = dt ? REF_DT_DOUBLE : REF_DT_FLOAT;
        ref_path path = ref_grid_path(t);
        run(&p, go, in, gr, t, &oi, &og);
        for (int64_t i = 0; i < oi.numel; i++)
            assert_false(isnan(ref_bound(t, &path, &oi.v[i])));
        for (int64_t i = 0; i < og.numel; i++)
            assert_false(isnan(ref_bound(t, &path, &og.v[i])));
        ref_output_free(&oi);
        ref_output_free(&og);
    }
    /* |g·val| = 2·DBL_MAX overflows on the ghost tap of x = −1 + 2^-52 (t = 1.5·2^-53, within the
     * coordinate error of the edge), whose weight is 0 */
    ref_grid_params q = bicubic(1, 1, 4, 4, 1, 1, REF_PAD_BORDER, true);
    double g2[] = {2}, big[16], pt[] = {-1 + 0x1p-52, 0};
    for (int i = 0; i < 16; i++)
        big[i] = DBL_MAX;
    ref_path dpath = ref_grid_path(REF_DT_DOUBLE);
    run(&q, g2, big, pt, REF_DT_DOUBLE, NULL, &og);
    assert_false(isnan(ref_bound(REF_DT_DOUBLE, &dpath, &og.v[0])));
    assert_true(og.flags[0] & REF_FLAG_RANGE);
    ref_output_free(&og);
}

/* An infinite gradient times a finite product the device's format flushes to 0 (FP32: 2^-149 ·
 * 3/16) gives NaN there, +∞ exactly: unjudgeable. FLOAT, zeros, input 1×4, x = 0: c = 3/2, taps
 * 0..3 with w' = 3/16, −21/16, 21/16, −3/16 (hand-derived above); y = 0 on a row of 1: weight 1.
 * Input (2^-149, −1, 1, −1): every term of grid_grad x is +∞. A NaN gradient is NaN on every
 * branch: judged. */
static void nonfinite_times_underflow(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 1, REF_PAD_ZEROS, false);
    double go[] = {INFINITY}, in[] = {0x1p-149, -1, 1, -1}, gr[] = {0, 0};
    ref_output og;
    run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
    assert_true(og.v[0].hi == INFINITY);
    assert_true(og.flags[0] & REF_FLAG_UNCHECKABLE);
    ref_output_free(&og);
    go[0] = NAN;
    run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
    assert_true(isnan(og.v[0].hi));
    assert_int_equal(og.flags[0] & REF_FLAG_UNCHECKABLE, 0);
    ref_output_free(&og);
}

/* The same in DOUBLE, where the reference's own product of the finite factors underflowed to 0
 * and read as an exact 0 (tools/differential --bicubic seed 4002, b112: the emulated device's
 * NaN FAILed against -inf). Zeros, not align, input 1×1 = 3·2^-1074, g = −∞, grid (−3, −3):
 * c = ((−3 + 1)·1 − 1)/2 = −3/2 on both axes, floor −2, t = 1/2, taps −3..0 of which only 0
 * (k = 3) is inside: w = K(3/2) = A/8 = −3/32, w' = −K'(3/2) = −(−A/4) = −3/16, mult W/2 = 1/2.
 * grid_grad x = y = val·g·(−3/16)·(−3/32)·(1/2) = 3·2^-1074 · 9/1024 · (−∞) = −∞ exactly, but
 * the finite product (≈ 2^-1080) is 0 in double on a device: NaN there, so unjudged. input_grad
 * = g·w·w = −∞·9/1024 has no underflow: −∞, judged. */
static void nonfinite_times_underflow_double(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 1, 1, 1, REF_PAD_ZEROS, false);
    double go[] = {-INFINITY}, in[] = {3 * 0x1p-1074}, gr[] = {-3, -3};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_DOUBLE, &oi, &og);
    assert_true(oi.v[0].hi == -INFINITY);
    assert_int_equal(oi.flags[0] & REF_FLAG_UNCHECKABLE, 0);
    for (int k = 0; k < 2; k++) {
        assert_true(og.v[k].hi == -INFINITY);
        assert_true(og.flags[k] & REF_FLAG_UNCHECKABLE);
    }
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* An element past the double range that an unresolved point also reaches: DOUBLE, reflection,
 * not align, input 1×2 = (1, 2). Points B and C at x = −1/2: c = ((−1/2 + 1)·2 − 1)/2 = 0,
 * t = 0, Keys' weights (K(1), K(0), K(1), K(2)) = (0, 1, 0, 0), so column 0 receives each g =
 * DBL_MAX whole: 2·DBL_MAX, past the range by DBL_MAX (lo = +inf: every device overflows).
 * Point A at x = 10^17 with g = 1 has an unknown fold (unresolved) and reaches either column
 * by at most Σ|w|² ≈ 3.92 (column 1: 0.5 exactly, judged within ±3.92). Column 0 was flagged
 * INTERVAL around hi = +inf (interval [inf, inf]; tools/differential --bicubic seed 4007,
 * b595); it is judged as +inf now, no interval. */
static void beyond_range_with_unresolved_point(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 2, 1, 3, REF_PAD_REFLECTION, false);
    double go[] = {1, DBL_MAX, DBL_MAX}, in[] = {1, 2}, gr[] = {1e17, 0, -0.5, 0, -0.5, 0};
    ref_output oi;
    run(&p, go, in, gr, REF_DT_DOUBLE, &oi, NULL);
    assert_true(oi.v[0].hi == INFINITY && oi.v[0].lo > 0);
    assert_int_equal(oi.flags[0] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), 0);
    assert_true(oi.v[1].hi == 0.5 && (oi.flags[1] & REF_FLAG_INTERVAL));
    ref_output_free(&oi);
}

/* The tap the other floor does not have: FLOAT, zeros, input 1×6 with align_corners, x with
 * c = 2 − 2^-30 (t = 1 − 2^-30, within FP32's coordinate error of the edge): taps 0..3, tap 0's
 * weight K(2 − 2^-30) ≈ 0 and the device's floor may be 2 (taps 1..4). A NaN on input column 0
 * makes grid_grad x NaN exactly, finite on that floor: unjudged. */
static void nan_on_vanishing_tap(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 6, 1, 1, REF_PAD_ZEROS, true);
    double go[] = {1}, in[] = {NAN, 1, 2, 3, 4, 5}, gr[] = {(2 - 0x1p-30) * 2 / 5 - 1, 0};
    ref_output og;
    run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
    assert_true(isnan(og.v[0].hi));
    assert_true(og.flags[0] & REF_FLAG_UNCHECKABLE);
    ref_output_free(&og);
}

/* A finite exact value past the double range whose other floor gives a finite one: DOUBLE,
 * border, input 6×1 with align_corners, y = 0x1.6666666666666p+0 (just below 1.4): c just below
 * 6, floor 5, taps 4..7 → rows 4, 5, 5, 5 with row 4 = DBL_MAX and g = 2^1023: grid_grad y ≈
 * 1.3e601 exactly (hi = +∞); the device's floor 6 puts every tap on row 5, where Σ w' = 0: a
 * finite answer is legal, so the element is unjudged (not "non-finite required"). */
static void beyond_range_other_floor(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 6, 1, 1, 1, REF_PAD_BORDER, true);
    double go[] = {0x1p1023}, in[] = {-2, -3, 1, -2, DBL_MAX, -1.5}, gr[] = {0, 0x1.6666666666666p+0};
    ref_output og;
    run(&p, go, in, gr, REF_DT_DOUBLE, NULL, &og);
    assert_true(og.v[1].hi == INFINITY && !(og.flags[1] & REF_FLAG_NONFINITE));
    assert_true(og.flags[1] & REF_FLAG_UNCHECKABLE);
    ref_output_free(&og);
}

/* A point whose floor the device may miss by more than one (FP32, reflection, x = 1e7 on an
 * axis of 4: δ ≈ 2·2^-24·4e7 ≈ 4.8) has unknown taps: every element it may reach is judged within
 * an interval (g·Σ ŵx·ŵy is within ±1.4²|g| on any branch, and so is the exact part: offsets
 * ±3.92·|g|), grid_grad within ±mult·Σ|g|·max|val|·6.1·1.4 around 0; not left unjudged. */
static void unresolved_point_interval(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 1, REF_PAD_REFLECTION, false);
    double go[] = {0.5}, in[] = {1, -2, 3, -4}, gr[] = {1e7, 0};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(oi.flags[i] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), REF_FLAG_INTERVAL);
        assert_true(oi.ival[2 * i] <= -3.92 * 0.5 && oi.ival[2 * i] > -2.1);
        assert_true(oi.ival[2 * i + 1] >= 3.92 * 0.5 && oi.ival[2 * i + 1] < 2.1);
    }
    /* mult = 2, Σ|g|·max|val| = 0.5·4: |grid_grad x| ≤ 2·2·6.1·1.4 = 34.16 */
    assert_int_equal(og.flags[0] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), REF_FLAG_INTERVAL);
    assert_true(og.v[0].hi + og.ival[0] <= -34.16 && og.v[0].hi + og.ival[0] > -34.2);
    assert_true(og.v[0].hi + og.ival[1] >= 34.16 && og.v[0].hi + og.ival[1] < 34.2);
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* The same point on eight channels, so each element's channels are one lane group
 * (bc_dx_lanes), with g = 0.1 (a double of 53 bits; FLOAT sets only the coordinate's error) in
 * each: its products with the weights (−3/32, ...) leave a low word, so the fast sums of
 * elements 1 and 2 are decided. With g = 0.5 or any FP32 value the products are exact doubles,
 * which ref_decide leaves undecided, and the lanes' plain finish (dx_lanes_plain) never ran.
 * That finish must still leave the elements the unresolved point reaches to the interval:
 * offsets ±3.92·|g| (at most ±4.2·|g|) as above, in every channel. */
static void unresolved_point_interval_lanes(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 8, 1, 4, 1, 1, REF_PAD_REFLECTION, false);
    double g = 0.1, go[8], in[32], gr[] = {1e7, 0}, row[] = {1, -2, 3, -4};
    for (int c = 0; c < 8; c++) {
        go[c] = g;
        for (int i = 0; i < 4; i++)
            in[4 * c + i] = row[i];
    }
    ref_output oi;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, NULL);
    for (int i = 0; i < 32; i++) {
        assert_int_equal(oi.flags[i] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), REF_FLAG_INTERVAL);
        assert_true(oi.ival[2 * i] <= -3.92 * g && oi.ival[2 * i] > -4.2 * g);
        assert_true(oi.ival[2 * i + 1] >= 3.92 * g && oi.ival[2 * i + 1] < 4.2 * g);
    }
    ref_output_free(&oi);
}

/* The same unresolved point after a resolved one in the batch (x = 0.3, g = 0.25): the resolved
 * point's grid_grad is MPFR's element value, without interval or offsets; the unresolved one's
 * interval lies at its own offsets (elements 2, 3), the bound derived above (g = 0.5). */
static void unresolved_after_resolved_point(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 4, 1, 2, REF_PAD_REFLECTION, false);
    double go[] = {0.25, 0.5}, in[] = {1, -2, 3, -4}, gr[] = {0.3, 0, 1e7, 0};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    mpfr_t e;
    mpfr_init2(e, 200);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(ref_grid_sampler2d_backward_element_mpfr(&p, go, in, gr, 1, k, e), 0);
        assert_true(og.v[k].hi == mpfr_get_d(e, MPFR_RNDN));
        assert_int_equal(og.flags[k] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), 0);
        assert_true(og.ival[2 * k] == 0 && og.ival[2 * k + 1] == 0);
    }
    mpfr_clear(e);
    assert_int_equal(og.flags[2] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE), REF_FLAG_INTERVAL);
    assert_true(og.v[2].hi + og.ival[4] <= -34.16 && og.v[2].hi + og.ival[4] > -34.2);
    assert_true(og.v[2].hi + og.ival[5] >= 34.16 && og.v[2].hi + og.ival[5] < 34.2);
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* An unresolved point's unknown taps may overflow the device's products where the exact ones do
 * not: FLOAT, reflection with align_corners on an axis of 8 (period 14), x = 2·14000004.5/7 − 1:
 * c ≈ 14000004.5 (FP32's coordinate error ≈ 3.8: unresolved), exact taps 3..6; input 1.7e38 on
 * column 1, which other floors reach; g = 2.7: grid_grad x and y (y's scale (1 − 1)/2 = 0, ∞·0 =
 * NaN) are REF_FLAG_RANGE besides their intervals. */
static void unresolved_point_range(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 1, 8, 1, 1, REF_PAD_REFLECTION, true);
    double go[] = {2.7}, in[] = {1, 1.7e38, -2, 3, 1, -1, 2, 0.5};
    double gr[] = {2 * 14000004.5 / 7 - 1, 0.3};
    ref_output og;
    run(&p, go, in, gr, REF_DT_FLOAT, NULL, &og);
    for (int k = 0; k < 2; k++)
        assert_int_equal(og.flags[k] & (REF_FLAG_INTERVAL | REF_FLAG_RANGE | REF_FLAG_UNCHECKABLE),
                         REF_FLAG_INTERVAL | REF_FLAG_RANGE);
    ref_output_free(&og);
}

/* The double-double fast path and pure MPFR give every answer bitwise alike (same_output.h), on
 * the fixtures and on data of every special class (DBL_MAX, subnormals, non-finite, zeros;
 * points on, near and far from cell edges) in FLOAT and DOUBLE; most answers are fast. */
static void fast_equals_mpfr(void **state)
{
    (void)state;
    FILE *f = torch_open_named("torch_f64_bicubic.txt");
    torch_record r;
    int64_t hits = 0, falls = 0;
    while (torch_next(f, &r) == 0) {
        fast_vs_mpfr(&r.grid, r.go, r.in, r.gr, REF_DT_FLOAT, &hits, &falls);
        torch_record_free(&r);
    }
    fclose(f);
    print_message("fixtures: %lld answers fast, %lld by MPFR\n", (long long)hits, (long long)falls);
    assert_true(hits > 4 * falls);
    ref_grid_params p = bicubic(2, 3, 4, 5, 3, 3, REF_PAD_BORDER, false);
    const double special[] = {DBL_MAX, -0x1p-1074, INFINITY, NAN, 1.5, -2, 0, 0x1.fffffep127,
                              3, -0.25, 0x1p-149, 7};
    const double xs[] = {0, 1.0 / 3, -1 + 0x1p-52, 0.5 + 0x1p-50, -1, 1e8, 0.6, -0.2, 2.75};
    double go[54], in[120], gr[36];
    cycle(go, 54, special, 12, 5, 1);
    cycle(in, 120, special, 12, 7, 0);
    cycle(gr, 36, xs, 9, 4, 0);
    for (int pad = 0; pad < 3; pad++)
        for (int dt = 0; dt < 2; dt++) {
            p.padding = (ref_padding)pad;
            p.align_corners = dt;
            fast_vs_mpfr(&p, go, in, gr, dt ? REF_DT_DOUBLE : REF_DT_FLOAT, &hits, &falls);
        }
}

/* A non-finite grid coordinate contributes nothing (docs/contract.md), gridGrad 0. */
static void nonfinite_coordinate(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 2, 2, 1, 1, REF_PAD_BORDER, false);
    double go[] = {1}, in[] = {1, 2, 3, 4}, gr[] = {NAN, 0};
    ref_output oi, og;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
    for (int i = 0; i < 4; i++)
        assert_true(oi.v[i].hi == 0 && oi.v[i].nterms == 0);
    assert_true(og.v[0].hi == 0 && og.v[1].hi == 0);
    ref_output_free(&oi);
    ref_output_free(&og);
}

/* Underflow magnified by the gradient (FP32, align, 2×2 input): two points at x = y = −1 + 2^-23,
 * c = (x + 1)/2 = 2^-24 on both axes, gradients 2^126 and −2^126: every input_grad element is
 * exactly 0 (equal weights, opposite gradients). A device's wy·wx below 2^-126 errs by η = 2^-150,
 * then × |g|: with g·w's own rounding at most 2·2·η·2^126 = 2^-22 over the two terms. The bound
 * covers it through the coefficient term (|g|·e_x·e_y, e ≥ 256u: far more) and now the underflow
 * term too, whose magnification Σ max(1, |g|) = 2^127 under_mag carries (0 before). */
static void underflow_magnified_by_gradient(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 2, 2, 1, 2, REF_PAD_ZEROS, true);
    double x = -1 + 0x1p-23, gr[4] = {x, x, x, x}, go[2] = {0x1p126, -0x1p126};
    double in[4] = {1, 2, 3, 4};
    ref_path path = ref_grid_path(REF_DT_FLOAT);
    ref_output oi;
    run(&p, go, in, gr, REF_DT_FLOAT, &oi, NULL);
    for (int k = 0; k < 4; k++) {
        assert_true(oi.v[k].hi == 0 && oi.flags[k] == 0);
        assert_true(ref_bound(REF_DT_FLOAT, &path, &oi.v[k]) >= 0x1p-22);
        assert_true(oi.v[k].under_mag >= 0x1p127 * REF_UNDER_SCALE);
    }
    ref_output_free(&oi);
}

/* under_mag's terms are IEEE products of doubles that start below the normal range:
 * input_grad's max(1, |g|)·2^-1070, grid_grad's max(1, |g|)·2^-1070·max(1, |val|)·2·max(1, mult),
 * summed term by term (k = 1 + (nterms + 8)·2^-52 after). The reference forms them in units of
 * 2^-1074 (no subnormal products); the expected values here are the products themselves, on
 * gradients whose scaled products round to the subnormal grid (16·3.09375 = 49.5: a tie, to
 * 50), reach the normal range from just below it (16·(2^48 − 2^-5) = 2^52 − 1/2: to 2^52), are
 * normal (1e300) or pass the units' range (2^1000·16). One point on grid (0, 0) of a 6×5 input: its
 * 16 taps at rows and columns 1..4, each input_grad element one term. */
static void under_mag_as_subnormal_products(void **state)
{
    (void)state;
    ref_grid_params p = bicubic(1, 1, 6, 5, 1, 1, REF_PAD_ZEROS, false);
    const double gs[] = {1, 1 + 0x1p-40, 3.03125, -3.09375, 0x1.fffffffffffffp+47, 1e300,
                         0x1p1000, 0.5};
    double in[30], gr[2] = {0, 0};
    for (int i = 0; i < 30; i++)
        in[i] = (i % 2 ? -1 : 1) * (1 + i * 0.3711 + i * i * 0x1p-45);
    for (size_t j = 0; j < sizeof gs / sizeof gs[0]; j++) {
        volatile double scale = REF_UNDER_SCALE; /* formed at run time, in subnormal products */
        double g = gs[j], ag = fmax(1, fabs(g));
        ref_output oi, og;
        run(&p, &g, in, gr, REF_DT_FLOAT, &oi, &og);
        for (int yi = 1; yi <= 4; yi++)
            for (int xi = 1; xi <= 4; xi++)
                assert_true(oi.v[yi * 5 + xi].under_mag == ag * scale * (1 + 9 * 0x1p-52));
        const double mult[2] = {2.5, 3}; /* w_in/2, h_in/2 */
        for (int comp = 0; comp < 2; comp++) {
            double u = 0;
            for (int yi = 1; yi <= 4; yi++)
                for (int xi = 1; xi <= 4; xi++)
                    u += ag * scale * fmax(1, fabs(in[yi * 5 + xi])) * 2 * mult[comp];
            assert_true(og.v[comp].under_mag == u * (1 + 24 * 0x1p-52));
        }
        ref_output_free(&oi);
        ref_output_free(&og);
    }
}

/* Fast path against pure MPFR on bicubic's corners, every output bitwise (same_output.h): each
 * padding and align_corners, the paths of DOUBLE, FLOAT, FLOAT16 and BF16 (the latter two compute
 * in FP32, their data in their own formats' ranges), coordinates on lattice points (align, size
 * 5: x = −1, −0.5, 0, 0.5, 1 give c = 0..4), with t within 2^-24 and 2^-52 of 0 and 1, far out,
 * and data of every magnitude: the formats' largest values with both signs on taps of one
 * element (their sums cancel or pass the range), subnormals, zeros, non-finite. Measured: 4892
 * answers fast, 10516 by MPFR (the extremes leave the fast range). */
static void fast_equals_mpfr_corners(void **state)
{
    (void)state;
    const double xs[] = {-1, -0.5, 0, 0.5, 1, 0.5 + 0x1p-24, 0.5 - 0x1p-24, 0x1p-52,
                         -0x1p-53, 1 - 0x1p-53, -1 + 0x1p-24, 0.3, -0.7, 1.5, -3, 1e8};
    const double dt_data[4][6] = {
        {DBL_MAX, -DBL_MAX, 0x1p-1074, -0x1.8p-1070, 0x1.6a09e667f3bcdp-1, 3},
        {0x1.fffffep127, -0x1.fffffep127, 0x1p-149, -0x1.8p-148, 0x1.6a09ep-1, -5},
        {65504, -65504, 0x1p-24, -0x1.8p-23, 0x1.6ap-1, 7},
        {0x1.fep127, -0x1.fep127, 0x1p-133, -0x1.8p-132, 0x1.6ap-1, -9}};
    const ref_dtype dts[4] = {REF_DT_DOUBLE, REF_DT_FLOAT, REF_DT_FLOAT16, REF_DT_BF16};
    const double extra[] = {0, -0.0, 1, -0.25, INFINITY, NAN};
    ref_grid_params p = bicubic(2, 3, 5, 5, 4, 4, REF_PAD_ZEROS, true);
    double go[96], in[150], gr[64];
    int64_t hits = 0, falls = 0;
    for (int d = 0; d < 4; d++)
        for (int pad = 0; pad < 3; pad++)
            for (int align = 0; align < 2; align++)
                for (int mix = 0; mix < 3; mix++) {
                    p.padding = (ref_padding)pad;
                    p.align_corners = align;
                    /* mix 0: finite data only; 1: zeros too; 2: non-finite too */
                    int nv = 6 + (mix == 0 ? 0 : mix == 1 ? 4 : 6);
                    for (int i = 0; i < 96; i++) {
                        int k = (i * 7 + d + mix) % nv;
                        go[i] = k < 6 ? dt_data[d][k] : extra[k - 6];
                    }
                    for (int i = 0; i < 150; i++) {
                        int k = (i * 5 + 3 * pad + align) % nv;
                        in[i] = k < 6 ? dt_data[d][k] : extra[k - 6];
                    }
                    cycle(gr, 64, xs, 16, 3, pad + 2 * mix);
                    fast_vs_mpfr(&p, go, in, gr, dts[d], &hits, &falls);
                }
    print_message("corners: %lld answers fast, %lld by MPFR\n", (long long)hits, (long long)falls);
    assert_true(hits > 1000); /* the extremes are MPFR's: most answers there */
}

/* The coordinate stage's integer form (coord_int, int_weights: c, floor(c), t and the
 * coefficients from integers, MPFR where they do not fit) gives MPFR's values on its corners:
 * ±0, half-way t (x = −0.75 aligned on 5), t of 38 and 39 bits after the point (the integer
 * form's limit), x of 2^-70 and 2^-71 (its other), |x| at 2^20, size 1 either alignment,
 * reflection folds and far coordinates, negative c with a fraction, t = 0 (a derivative's −0:
 * with gradients and data all 1, size 1 and x = 0, grid_grad's only term is −0). Data constant
 * 1 makes grid_grad cancel exactly (Σ_k K' = 0): MPFR's sums of the exact coefficients the
 * integer form set. */
static void int_coordinates_equal_mpfr(void **state)
{
    (void)state;
    const double xs[] = {0, -0.0, 1, -1, 0.5, -0.5, -0.75, 0.25, 0x1p-37, 0x1p-38, 0x1p-39,
                         0x1p-42, 0x1p-44, -1 + 0x1p-42, -1 + 0x1p-37, -1 + 0x1p-38, -1 + 0x1p-39, 0x1p-70, 0x1.8p-70, 0x1p-71,
                         0x1p20 - 1, 0x1p20, -0x1p20 + 0.5, 0.3, 0x1.333334p-2, 1.5, -3, 2.5,
                         -1.3, -1 - 0x1p-30, 1e8, -1e30, 3e15, 0x1p-1074, 1 - 0x1p-53};
    enum { NX = sizeof xs / sizeof xs[0] };
    const int64_t sizes[4][2] = {{1, 1}, {2, 2}, {5, 3}, {4, 7}};
    const double vals[] = {1.5, -2, 0.375, 3, -0.25, 7}, gos[] = {1, -0.5, 2.25};
    double gr[2 * NX], go[2 * NX], in[2 * 28];
    for (int i = 0; i < NX; i++) {
        gr[2 * i] = xs[i];
        gr[2 * i + 1] = xs[(i * 7 + 3) % NX];
    }
    int64_t hits = 0, falls = 0;
    for (int sz = 0; sz < 4; sz++)
        for (int pad = 0; pad < 3; pad++)
            for (int align = 0; align < 2; align++)
                for (int mode = 0; mode < 8; mode++) { /* bit 0: double; 1: data all 1; 2: gradients */
                    ref_grid_params p = bicubic(1, 2, sizes[sz][0], sizes[sz][1], 1, NX,
                                                (ref_padding)pad, align);
                    for (int i = 0; i < 2 * 28; i++)
                        in[i] = mode & 2 ? 1 : vals[(i * 5 + pad) % 6];
                    for (int i = 0; i < 2 * NX; i++)
                        go[i] = mode & 4 ? 1 : gos[i % 3];
                    fast_vs_mpfr(&p, go, in, gr, mode & 1 ? REF_DT_DOUBLE : REF_DT_FLOAT, &hits,
                                 &falls);
                }
    print_message("integer coordinates: %lld answers fast, %lld by MPFR\n", (long long)hits,
                  (long long)falls);
    assert_true(hits > 0 && falls > 0);
}

/* input_grad's channels side by side (bc_dx_lanes: 8 lanes where at least 4 channels of a
 * chunk remain; force_mpfr takes them one at a time): 13 channels, so lanes of 8 and of 5 (3
 * idle), at both widths (bc_lanes_width), bitwise pure MPFR's on every field, with data of
 * ordinary values, then with zeros, values past the fast range (products below 2^-900 or above
 * 2^900) and non-finite gradients in some lanes only (the lane redone alone), on every dtype's
 * path, padding and alignment. */
static void fast_equals_mpfr_lanes(void **state)
{
    (void)state;
    const double xs[] = {-1, -0.5, 0.1, 0.5, 0.95, 0.5 + 0x1p-24, 0.3, -0.7, 1.05, -0.9,
                         0.6, -0.2, 0.77, -0.33, 0x1p-52, 1 - 0x1p-53};
    const double vals[] = {0.3, -1.7, 0x1.6a09e6p-1, 3.25, -0.0625, 1e-3, -2.5, 0.9, 7, -0.4,
                           0, 0x1p-600, -0x1p-1074, 0x1p700, DBL_MAX, -0.0, INFINITY, NAN};
    const ref_dtype dts[2] = {REF_DT_FLOAT, REF_DT_DOUBLE};
    ref_grid_params p = bicubic(2, 13, 5, 6, 4, 5, REF_PAD_ZEROS, false);
    double go[2 * 13 * 20], in[2 * 13 * 30], gr[2 * 20 * 2];
    int64_t hits = 0, falls = 0;
    for (int wd = 0; wd < 4; wd++) /* both widths of the lanes (on any CPU), both dtypes */
        for (int pad = 0; pad < 3; pad++)
            for (int align = 0; align < 2; align++)
                for (int mix = 0; mix < 3; mix++) {
                    int d = wd % 2;
                    bc_lanes_width = wd < 2 ? 4 : 8;
                    p.padding = (ref_padding)pad;
                    p.align_corners = align;
                    /* mix 0: ordinary values; 1: zeros and past the fast range too; 2: every
                     * value, gradients of one channel in 7 non-finite now and then */
                    int nv = mix == 0 ? 10 : mix == 1 ? 16 : 18;
                    for (int i = 0; i < (int)(sizeof go / sizeof go[0]); i++)
                        go[i] = vals[(i * 7 + d + pad) % (i / 20 % 7 == 3 ? nv : nv < 16 ? nv : 16)];
                    cycle(in, (int)(sizeof in / sizeof in[0]), vals, mix == 0 ? 10 : 16, 5, align);
                    cycle(gr, 80, xs, 16, 3, pad + 2 * mix);
                    fast_vs_mpfr(&p, go, in, gr, dts[d], &hits, &falls);
                }
    bc_lanes_width = 0;
    print_message("lanes: %lld answers fast, %lld by MPFR\n", (long long)hits, (long long)falls);
    assert_true(hits > 10000 && falls > 10000); /* the extremes are MPFR's */
}

/* input_grad's lanes sum an element's terms their own way (an error-free addition into s, the
 * errors and low words rounded into c, with a bound of their own): elements of 40 to 192 terms
 * (48 points at 3 coordinates on a 4×4 input) whose gradients span 2^-30..2^30 and, in most
 * channels, nearly cancel (at each coordinate, the last point's g the others' sum negated, to
 * float), so the sums lose most of their bits and the weights' own error (2^-102) decides
 * whether the fast sum can answer; both widths and dtypes, bitwise pure MPFR's on every field. */
static void lanes_cancelling_sums_equal_mpfr(void **state)
{
    (void)state;
    enum { NP = 48, NC = 8 };
    const double xs[3][2] = {{0.1, -0.3}, {0.1 + 0x1p-20, -0.3}, {-0.45, 0.35}};
    ref_grid_params p = bicubic(1, NC, 4, 4, 1, NP, REF_PAD_BORDER, false);
    double go[NC * NP], in[NC * 16], gr[2 * NP];
    uint64_t r = 0x9E3779B97F4A7C15u;
    int64_t hits = 0, falls = 0;
    for (int i = 0; i < NP; i++) {
        gr[2 * i] = xs[i % 3][0];
        gr[2 * i + 1] = xs[i % 3][1];
    }
    for (int i = 0; i < NC * 16; i++)
        in[i] = 0.125 * (i % 11) - 0.5;
    for (int wd = 0; wd < 4; wd++) {
        bc_lanes_width = wd < 2 ? 4 : 8;
        for (int c = 0; c < NC; c++) {
            double sum[3] = {0, 0, 0};
            for (int i = 0; i < NP - 3; i++) {
                r = r * 6364136223846793005u + 1442695040888963407u;
                double m = (double)((int32_t)(r >> 32) >> 8) * 0x1p-23; /* float, |m| ≤ 1 */
                go[c * NP + i] = ldexp(m, (int)(r >> 20 & 63) - 31);
                sum[i % 3] += go[c * NP + i];
            }
            for (int i = NP - 3; i < NP; i++) /* a coordinate's gradients cancel: one weight */
                go[c * NP + i] = c == 0 ? 1 : (double)(float)-sum[i % 3];
        }
        fast_vs_mpfr(&p, go, in, gr, wd % 2 ? REF_DT_DOUBLE : REF_DT_FLOAT, &hits, &falls);
    }
    bc_lanes_width = 0;
    print_message("cancelling lanes: %lld answers fast, %lld by MPFR\n", (long long)hits,
                  (long long)falls);
    assert_true(hits > 0 && falls > 0);
}

/* grid_grad's taps read channel-innermost (the batch's input and gradOutput copied so: both
 * outputs in one pass, or grid_grad alone) over two blocks of 32 channels, with both lane
 * widths: 37 channels of values within ±1 (the bound's unit blocks) or not, one channel's
 * values past the fast range in mix 2, every field bitwise pure MPFR's. */
static void fast_equals_mpfr_channels_inner(void **state)
{
    (void)state;
    const double xs[] = {-1, -0.5, 0.1, 0.5, 0.95, 0.5 + 0x1p-24, 0.3, -0.7, 1.05, -0.9, 0.6};
    ref_grid_params p = bicubic(2, 37, 6, 7, 3, 5, REF_PAD_ZEROS, false);
    enum { NGO = 2 * 37 * 15, NIN = 2 * 37 * 42 };
    static double go[NGO], in[NIN];
    double gr[2 * 15 * 2];
    int64_t hits = 0, falls = 0;
    for (int w = 4; w <= 8; w += 4)
        for (int pad = 0; pad < 3; pad++)
            for (int mix = 0; mix < 3; mix++) {
                bc_lanes_width = w;
                p.padding = (ref_padding)pad;
                p.align_corners = mix == 1;
                for (int i = 0; i < NGO; i++)
                    go[i] = ((i * 37 + mix) % 101 - 50) / (mix == 1 && i % 13 == 5 ? 7.0 : 51.0);
                for (int i = 0; i < NIN; i++)
                    in[i] = (i / 42 % 37 == 33 && mix == 2) ? 0x1p950 * (i % 3 - 1)
                                                             : ((i * 53 + pad) % 97 - 48) / 49.0;
                cycle(gr, 60, xs, 11, 4, pad + mix);
                fast_vs_mpfr(&p, go, in, gr, REF_DT_FLOAT, &hits, &falls);
                ref_output a, b;
                ref_options opt = {.path = ref_grid_path(REF_DT_FLOAT)};
                assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &opt, NULL, &a), 0);
                opt.force_mpfr = true;
                assert_int_equal(ref_grid_sampler2d_backward(&p, go, in, gr, &opt, NULL, &b), 0);
                same_output(&a, &b);
                ref_output_free(&a);
                ref_output_free(&b);
            }
    bc_lanes_width = 0;
    print_message("channels inner: %lld answers fast, %lld by MPFR\n", (long long)hits,
                  (long long)falls);
    assert_true(hits > 20 * falls);
}

/* input_grad's under_mag (grid_bicubic.c's opening comment): Σ max(1, |g|)·2^-1070 over an
 * element's terms, times 1 + (terms + 8)·2^-52, each a double operation. Every point at one
 * coordinate and each channel's gradients one value G, so an element's sum is terms·G·2^-1070,
 * exact; the expected value is that times the factor in plain double (subnormal or not). G =
 * 2^40 puts the product a unit or more above the sum (its rounding decides), G ≤ 3 leaves it the
 * sum; 8 channels take the lanes, 3 one at a time. */
static void under_mag_grows_as_product(void **state)
{
    (void)state;
    const double gs[] = {0x1p40, 0.5, 0x1p20, 3, -0x1p40, 1, 0x1.8p30, -2};
    enum { NP = 16 }; /* points: 16 terms an element reached, 1.5 units above 2^40's sum */
    for (int64_t nc = 3; nc <= 8; nc += 5) {
        ref_grid_params p = bicubic(1, nc, 5, 5, 1, NP, REF_PAD_BORDER, false);
        double go[8 * NP], in[8 * 25], gr[2 * NP];
        for (int i = 0; i < 8 * NP; i++)
            go[i] = gs[i / NP];
        for (int i = 0; i < 8 * 25; i++)
            in[i] = 0.25 * (i % 7) - 0.5;
        for (int i = 0; i < NP; i++) {
            gr[2 * i] = 0.1;
            gr[2 * i + 1] = -0.3;
        }
        ref_output oi, og;
        run(&p, go, in, gr, REF_DT_FLOAT, &oi, &og);
        int grown = 0;
        for (int64_t i = 0; i < oi.numel; i++) {
            double G = fabs(gs[i / 25]), f = G <= 1 ? 0x1p-1070 : G * 0x1p-1070;
            double sum = (double)oi.v[i].nterms * f;
            double want = sum * (1 + (double)(oi.v[i].nterms + 8) * 0x1p-52);
            if (memcmp(&want, &oi.v[i].under_mag, sizeof want))
                fail_msg("element %lld: under_mag %a, expected %a", (long long)i,
                         oi.v[i].under_mag, want);
            grown += want != sum;
        }
        assert_true(grown > 0 && oi.numel - grown > 0); /* both sides of the shortcut */
        ref_output_free(&oi);
        ref_output_free(&og);
    }
}

/* Both outputs in one call (one pass over the batches: grid_grad kept until input_grad's last
 * chunk) give what a call for each output gives alone (one pass each), bitwise. */
static void one_pass_equals_two(void **state)
{
    (void)state;
    const double xs[] = {0, 1.0 / 3, -1 + 0x1p-52, 0.5 + 0x1p-50, -1, 1e8, 0.6, -0.2, 2.75};
    const double vals[] = {1.5, -2, 0.375, 0x1p-149, -7, 3.25, NAN, 0, 1e30, -0.5, 2, INFINITY};
    ref_grid_params p = bicubic(3, 2, 4, 5, 3, 2, REF_PAD_ZEROS, false);
    double go[36], in[120], gr[36];
    cycle(go, 36, vals, 12, 5, 1);
    cycle(in, 120, vals, 12, 7, 0);
    cycle(gr, 36, xs, 9, 4, 0);
    for (int pad = 0; pad < 3; pad++)
        for (int align = 0; align < 2; align++) {
            p.padding = (ref_padding)pad;
            p.align_corners = align;
            ref_output both[2], alone[2];
            run(&p, go, in, gr, REF_DT_FLOAT, &both[0], &both[1]);
            run(&p, go, in, gr, REF_DT_FLOAT, &alone[0], NULL);
            run(&p, go, in, gr, REF_DT_FLOAT, NULL, &alone[1]);
            for (int k = 0; k < 2; k++) {
                same_output(&both[k], &alone[k]);
                ref_output_free(&both[k]);
                ref_output_free(&alone[k]);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agrees_with_torch),     cmocka_unit_test(element_mpfr_agrees),
        cmocka_unit_test(hand_derived_border),   cmocka_unit_test(hand_derived_reflection),
        cmocka_unit_test(hand_derived_zeros),    cmocka_unit_test(nonfinite_classes),
        cmocka_unit_test(dgrid_bounds_hand_derived),
        cmocka_unit_test(nonfinite_coordinate),  cmocka_unit_test(partial_product_overflow),
        cmocka_unit_test(bounds_are_numbers),    cmocka_unit_test(sum_near_overflow),
        cmocka_unit_test(nonfinite_times_underflow), cmocka_unit_test(nan_on_vanishing_tap),
        cmocka_unit_test(nonfinite_times_underflow_double),
        cmocka_unit_test(beyond_range_with_unresolved_point),
        cmocka_unit_test(beyond_range_other_floor), cmocka_unit_test(unresolved_point_interval),
        cmocka_unit_test(unresolved_point_interval_lanes),
        cmocka_unit_test(fast_equals_mpfr),         cmocka_unit_test(unresolved_point_range),
        cmocka_unit_test(unresolved_after_resolved_point),
        cmocka_unit_test(underflow_magnified_by_gradient),
        cmocka_unit_test(under_mag_as_subnormal_products),
        cmocka_unit_test(fast_equals_mpfr_corners), cmocka_unit_test(one_pass_equals_two),
        cmocka_unit_test(int_coordinates_equal_mpfr), cmocka_unit_test(fast_equals_mpfr_lanes),
        cmocka_unit_test(fast_equals_mpfr_channels_inner),
        cmocka_unit_test(lanes_cancelling_sums_equal_mpfr),
        cmocka_unit_test(under_mag_grows_as_product),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Bicubic on the vendor's releases 9.1 and 9.2: what each kernel does with a non-finite
 * coordinate or one past the int32 range (grid_vendor_bicubic.c; docs/contract.md "Non-finite
 * grid coordinates in the vendor's kernels"), read from ops-cv at 4d57ffe7.
 * Input 1xCx3x4 holding 1..12 in every channel, one grid point (x, 0.25), gradOutput 1,
 * align_corners false. y = 0.25 unnormalises to 1.375: rows 0..3, clamped under border to
 * 0, 1, 2, 2, with Keys' weights -0.10986328125, 0.74951171875, 0.42626953125, -0.06591796875
 * (by hand, A = -0.75); on one column those give dx -0.10986328125, 0.74951171875 and
 * 0.3603515625 and dgrid y 6.2578125, dgrid x 0 (test_grid_sampler2d_backward_doc_nonfinite.c
 * derives them; PyTorch 1.13 float64 agrees). Expected values below are by hand from the code. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "reference.h"
#include "reference_grid_sampler2d_backward.h"

#define MAXC 32

typedef struct {
    double v[2][12 * MAXC];
    uint8_t fl[2][12 * MAXC];
} answers;

static int keep(void *ctx, const ref_chunk *ch)
{
    answers *a = ctx;
    int w = ch->slot == REF_GRID_INPUT_GRAD ? 0 : 1;
    for (int64_t k = 0; k < ch->out->numel; k++) {
        a->v[w][ch->first + k] = ch->out->v[k].hi;
        a->fl[w][ch->first + k] = ch->out->flags[k];
    }
    return 0;
}

typedef struct {
    ref_spec spec;
    ref_product product;
    int padding;
    int64_t c;
    bool det;
} setup;

static answers run(setup s, double x)
{
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = s.product,
                          .spec = s.spec, .deterministic = s.det};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {2}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {s.padding}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    const int64_t dims[5][4] = {{1, s.c, 1, 1}, {1, s.c, 3, 4}, {1, 1, 1, 2}, {1, s.c, 3, 4},
                                {1, 1, 1, 2}};
    for (int t = 0; t < 5; t++) {
        q.t[t] = (ref_tensor_desc){.present = true, .dtype = REF_DT_FLOAT, .format = REF_FMT_ND,
                                   .rank = 4};
        memcpy(q.t[t].dims, dims[t], sizeof dims[t]);
    }
    double go[MAXC], in[12 * MAXC], grid[2] = {x, 0.25};
    for (int i = 0; i < 12 * MAXC; i++)
        in[i] = i % 12 + 1;
    for (int i = 0; i < MAXC; i++)
        go[i] = 1;
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    answers a;
    memset(&a, 0, sizeof a);
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = keep, .ctx = &a};
    ref_case_answer ans;
    assert_int_equal(ref_case(&q, &r, &ans), 0);
    return a;
}

static const double edge_col[3] = {-0.10986328125, 0.74951171875, 0.3603515625};

/* 950's SIMT kernel under border: t = inf - inf is NaN, so every coefficient is; a ±inf tap
 * clamps to column 3 or 0 and adds g·NaN on rows 0..2 (the y taps), a NaN tap goes to -100
 * (nothing); grid_grad sums val·NaN: NaN. Under both determinism settings (C = 1: SIMT). */
static void simt_border(void **state)
{
    (void)state;
    for (int det = 0; det < 2; det++)
        for (int sp = 0; sp < 2; sp++) {
            setup s = {sp ? REF_SPEC_VENDOR_92 : REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND950,
                       REF_PAD_BORDER, 1, det};
            answers p = run(s, INFINITY), m = run(s, -INFINITY), n = run(s, NAN);
            for (int e = 0; e < 12; e++) {
                assert_true(e % 4 == 3 ? isnan(p.v[0][e]) : p.v[0][e] == 0);
                assert_true(e % 4 == 0 ? isnan(m.v[0][e]) : m.v[0][e] == 0);
                assert_true(n.v[0][e] == 0 && !(n.fl[0][e] & REF_FLAG_UNCHECKABLE));
            }
            for (int k = 0; k < 2; k++)
                assert_true(isnan(p.v[1][k]) && isnan(m.v[1][k]) && isnan(n.v[1][k]));
        }
}

/* SIMT under zeros and reflection: every tap of a non-finite coordinate is out (zeros tests
 * x >= W; reflection's fmodf(inf) and NaN go to -100), grid_grad NaN all the same. */
static void simt_zeros_reflection(void **state)
{
    (void)state;
    const int pads[2] = {REF_PAD_ZEROS, REF_PAD_REFLECTION};
    const double xs[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            answers a = run((setup){REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND950, pads[i], 1, false},
                            xs[k]);
            for (int e = 0; e < 12; e++)
                assert_true(a.v[0][e] == 0 && !(a.fl[0][e] & REF_FLAG_UNCHECKABLE));
            assert_true(isnan(a.v[1][0]) && isnan(a.v[1][1]));
        }
}

/* 950, FLOAT, 32 channels, border: without determinism the tiling hands the call to the vector
 * kernel (+inf to -100: column 0 with finite weights, dgrid x 0); with it, the SIMT kernel. */
static void routing_950(void **state)
{
    (void)state;
    answers v = run((setup){REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND950, REF_PAD_BORDER, 32, false},
                    INFINITY);
    answers d = run((setup){REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND950, REF_PAD_BORDER, 32, true},
                    INFINITY);
    for (int ch = 0; ch < 32; ch += 31)
        for (int e = 0; e < 12; e++) {
            double want = e % 4 == 0 ? edge_col[e / 4] : 0;
            assert_true(v.v[0][ch * 12 + e] == want);
            assert_true(e % 4 == 3 ? isnan(d.v[0][ch * 12 + e]) : d.v[0][ch * 12 + e] == 0);
        }
    assert_true(v.v[1][0] == 0 && v.v[1][1] == 32 * 6.2578125);
    assert_true(isnan(d.v[1][0]) && isnan(d.v[1][1]));
}

/* The vector kernel (910b) under border sends an FP32 coordinate above 2^31 to -100: x = 1e10
 * (c = 2e10 + 1.5) lands on column 0 like a NaN; x = 1e8 (c < 2^31) stays at column 3, as on
 * 950's SIMT kernel for both; x = 2^30 - 0.75 unnormalises to 2^31 exactly, kept by the kernel
 * and then overflowing its int32 floor: unjudged, as is the grid_grad of that point. */
static void vector_past_int32(void **state)
{
    (void)state;
    setup b = {REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND910B, REF_PAD_BORDER, 1, false};
    setup s = {REF_SPEC_VENDOR_92, REF_PRODUCT_ASCEND950, REF_PAD_BORDER, 1, false};
    answers far = run(b, 1e10), near = run(b, 1e8), simt = run(s, 1e10), mid = run(b, 0x1p30 - 0.75);
    for (int e = 0; e < 12; e++) {
        assert_true(far.v[0][e] == (e % 4 == 0 ? edge_col[e / 4] : 0));
        assert_true(near.v[0][e] == (e % 4 == 3 ? edge_col[e / 4] : 0));
        assert_true(simt.v[0][e] == (e % 4 == 3 ? edge_col[e / 4] : 0));
        assert_true(mid.fl[0][e] & REF_FLAG_UNCHECKABLE);
        assert_false(far.fl[0][e] & REF_FLAG_UNCHECKABLE);
    }
    assert_true(far.v[1][0] == 0 && far.v[1][1] == 6.2578125 && near.v[1][1] == 6.2578125);
    assert_true((mid.fl[1][0] & REF_FLAG_UNCHECKABLE) && (mid.fl[1][1] & REF_FLAG_UNCHECKABLE));
}

/* The vector kernel under reflection replaces nothing: the taps of a NaN, ±inf or past-int32
 * coordinate come from the hardware's float-to-int32 cast, undefined in the code and the
 * documents, so every input_grad element of the batch is unjudged; grid_grad is NaN for NaN
 * (t = NaN - a finite floor) and unjudged otherwise. */
static void vector_reflection(void **state)
{
    (void)state;
    setup b = {REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND910_93, REF_PAD_REFLECTION, 1, false};
    const double xs[3] = {NAN, -INFINITY, 1e10};
    for (int k = 0; k < 3; k++) {
        answers a = run(b, xs[k]);
        for (int e = 0; e < 12; e++)
            assert_true(a.fl[0][e] & REF_FLAG_UNCHECKABLE);
        for (int c = 0; c < 2; c++)
            assert_true(k == 0 ? isnan(a.v[1][c]) && !(a.fl[1][c] & REF_FLAG_UNCHECKABLE)
                               : (a.fl[1][c] & REF_FLAG_UNCHECKABLE) != 0);
    }
    answers z = run((setup){REF_SPEC_VENDOR_91, REF_PRODUCT_ASCEND910B, REF_PAD_ZEROS, 1, false},
                    NAN);
    for (int e = 0; e < 12; e++) /* zeros: -100 is out, as the exact model */
        assert_true(z.v[0][e] == 0 && !(z.fl[0][e] & REF_FLAG_UNCHECKABLE));
    assert_true(z.v[1][0] == 0 && z.v[1][1] == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(simt_border),
        cmocka_unit_test(simt_zeros_reflection),
        cmocka_unit_test(routing_950),
        cmocka_unit_test(vector_past_int32),
        cmocka_unit_test(vector_reflection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A NaN or ±inf grid coordinate under border or reflection padding (last test: bicubic on a
 * vendor release's vector kernel). Under the documents both
 * "out of bounds, nothing" (the primary) and PyTorch's clamp into the border are legal (the
 * clamp's values as alternatives); under a vendor release only the release's answer.
 * Input 1x1x3x4 holding 1..12, one grid point (x, 0.25), gradOutput 1, bilinear, align_corners
 * false. Expected by hand: y = 0.25 unnormalises to ((0.25 + 1)·3 − 1)/2 = 1.375, rows 1 and 2
 * with weights 0.625 and 0.375; the clamped x sits on column 0 with gradient factor 0, so dx is
 * 0.625 at element 4 and 0.375 at element 8 and dgrid is (0, (9 − 5)·3/2 = 6). PyTorch 1.13
 * float64 gives exactly these for x = -inf under border (dx[4] 0.625, dx[8] 0.375, dgrid
 * (0, 6)); it crashes on x = NaN under border and on every non-finite x under reflection
 * (bilinear), so those are by hand, from the same clamp (its nearest kernel puts NaN, and under
 * reflection ±inf, at column 0 too). */
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

typedef struct {
    double v[2][12];          /* primary values by output (0: input_grad, 1: grid_grad) */
    int nalt[2][12];
    double alt[2][12][4];     /* alternatives' values (primary included) */
} answers;

static int keep(void *ctx, const ref_chunk *ch)
{
    answers *a = ctx;
    int w = ch->slot == REF_GRID_INPUT_GRAD ? 0 : 1;
    for (int64_t k = 0; k < ch->out->numel; k++) {
        int64_t e = ch->first + k;
        a->v[w][e] = ch->out->v[k].hi;
        if (!(ch->out->flags[k] & REF_FLAG_AMBIGUOUS) || ch->out->alt_first[k] < 0) continue;
        a->nalt[w][e] = ch->out->alt_count[k];
        for (int32_t i = 0; i < ch->out->alt_count[k] && i < 4; i++)
            a->alt[w][e][i] = ch->out->alts[ch->out->alt_first[k] + i].hi;
    }
    return 0;
}

static answers run_on(ref_spec spec, ref_product product, ref_dtype dtype, int interpolation,
                      int padding, double x)
{
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = product, .spec = spec};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {interpolation}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {padding}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    const int64_t dims[5][4] = {{1, 1, 1, 1}, {1, 1, 3, 4}, {1, 1, 1, 2}, {1, 1, 3, 4},
                                {1, 1, 1, 2}};
    for (int t = 0; t < 5; t++) {
        q.t[t] = (ref_tensor_desc){.present = true, .dtype = dtype, .format = REF_FMT_ND,
                                   .rank = 4};
        memcpy(q.t[t].dims, dims[t], sizeof dims[t]);
    }
    double go[1] = {1}, in[12], grid[2] = {x, 0.25};
    for (int i = 0; i < 12; i++)
        in[i] = i + 1;
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    answers a;
    memset(&a, 0, sizeof a);
    ref_case_request r = {.dtype = dtype, .inputs = inputs, .chunk = keep, .ctx = &a};
    ref_case_answer ans;
    assert_int_equal(ref_case(&q, &r, &ans), 0);
    return a;
}

static answers run(ref_spec spec, int padding, double x)
{
    return run_on(spec, REF_PRODUCT_ASCEND910B, REF_DT_FLOAT, 0, padding, x);
}

static bool has(const answers *a, int w, int e, double v)
{
    if (a->nalt[w][e] == 0) return a->v[w][e] == v;
    for (int i = 0; i < a->nalt[w][e]; i++)
        if (a->alt[w][e][i] == v) return true;
    return false;
}

/* Under the documents: nothing (the primary) or the clamp, at every element it reaches. */
static void doc_allows_nothing_and_the_clamp(void **state)
{
    (void)state;
    const struct { int padding; double x; } cases[] = {
        {REF_PAD_BORDER, NAN}, {REF_PAD_BORDER, -INFINITY}, {REF_PAD_REFLECTION, NAN},
        {REF_PAD_REFLECTION, INFINITY}, {REF_PAD_REFLECTION, -INFINITY}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        answers a = run(REF_SPEC_DOC, cases[c].padding, cases[c].x);
        for (int e = 0; e < 12; e++) {
            assert_true(a.v[0][e] == 0); /* the primary: out of bounds */
            double clamp = e == 4 ? 0.625 : e == 8 ? 0.375 : 0;
            assert_true(has(&a, 0, e, 0) && has(&a, 0, e, clamp));
            assert_int_equal(a.nalt[0][e], clamp != 0 ? 2 : 0);
        }
        assert_true(a.v[1][0] == 0 && a.v[1][1] == 0 && a.nalt[1][0] == 0);
        assert_true(has(&a, 1, 1, 0) && has(&a, 1, 1, 6) && a.nalt[1][1] == 2);
    }
    /* +inf under border: the east edge, column 3 (PyTorch: dx[7] 0.625, dx[11] 0.375) */
    answers a = run(REF_SPEC_DOC, REF_PAD_BORDER, INFINITY);
    assert_true(has(&a, 0, 7, 0.625) && has(&a, 0, 11, 0.375) && has(&a, 0, 7, 0));
    assert_true(has(&a, 1, 1, (12 - 8) * 1.5));
}

/* Zeros padding has one answer; so has a vendor release (910b's vector kernel drops NaN under
 * border, docs/contract.md "Non-finite grid coordinates in the vendor's kernels"). */
static void one_answer_elsewhere(void **state)
{
    (void)state;
    answers z = run(REF_SPEC_DOC, REF_PAD_ZEROS, NAN);
    answers v = run(REF_SPEC_VENDOR_91, REF_PAD_BORDER, NAN);
    for (int e = 0; e < 12; e++) {
        assert_true(z.v[0][e] == 0 && z.nalt[0][e] == 0);
        assert_true(v.v[0][e] == 0 && v.nalt[0][e] == 0);
    }
    assert_true(v.v[1][1] == 0 && v.nalt[1][1] == 0);
}

/* Releases 9.1 and 9.2, bicubic under border on 910b's vector kernel: a non-finite x becomes
 * -100 once unnormalised and all four taps clamp to column 0 (ops-cv
 * grid_sampler2_d_grad_bicubic.h:530-545,845-850@4d57ffe7). y = 1.375 (t = 0.375): Keys'
 * weights with A = -0.75 are -0.10986328125, 0.74951171875, 0.42626953125, -0.06591796875 by
 * hand, the last two on row 2 (row 3 clamps to 2): dx 0.3603515625 there; dgrid x 0 (the
 * weights' derivatives sum to 0 on one column), dgrid y 6.2578125. PyTorch 1.13 float64 with x
 * = -100 (the kernel's value) or -7 gives these exactly. DOUBLE (AICPU) keeps the point out of
 * bounds (bicubic is refused under the documents: not asked); 950's SIMT kernel does neither
 * (test_grid_sampler2d_backward_vendor_bicubic.c). */
static void vendor_bicubic_border_low_edge(void **state)
{
    (void)state;
    const double xs[] = {NAN, INFINITY, -INFINITY};
    const double want[12] = {-0.10986328125, 0, 0, 0, 0.74951171875, 0, 0, 0, 0.3603515625};
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 3; i++) {
            ref_spec spec = s ? REF_SPEC_VENDOR_92 : REF_SPEC_VENDOR_91;
            answers a = run_on(spec, REF_PRODUCT_ASCEND910B, REF_DT_FLOAT, 2, REF_PAD_BORDER, xs[i]);
            for (int e = 0; e < 12; e++)
                assert_true(a.v[0][e] == want[e] && a.nalt[0][e] == 0);
            assert_true(a.v[1][0] == 0 && a.v[1][1] == 6.2578125);
            answers d = run_on(spec, REF_PRODUCT_ASCEND910B, REF_DT_DOUBLE, 2, REF_PAD_BORDER, xs[i]);
            for (int e = 0; e < 12; e++)
                assert_true(d.v[0][e] == 0);
        }
}

/* Past 2^16 output elements the clamped variants are not computed; the elements a clamped
 * point may reach are then unjudged, not judged by the first reading alone: input 1x1x200x400
 * (80,000 elements), one NaN point at (NaN, 0.25) under border. Its clamp (column 0, rows
 * 124 and 125 by hand: ((0.25 + 1)·200 − 1)/2 = 124.5) lies on the two outer columns, so every
 * element there is unjudged, the inner ones judged (0); its grid_grad unjudged. Before, all were
 * judged as "nothing" (flags 0). */
typedef struct { int64_t judged_inner, unjudged_edge, judged_edge; uint8_t dgrid[2]; } far_count;

static int count_far(void *ctx, const ref_chunk *ch)
{
    far_count *f = ctx;
    for (int64_t k = 0; k < ch->out->numel; k++) {
        int64_t e = ch->first + k, xi = e % 400, yi = e / 400;
        bool un = ch->out->flags[k] & REF_FLAG_UNCHECKABLE;
        if (ch->slot == REF_GRID_GRID_GRAD) {
            f->dgrid[e] = ch->out->flags[k];
            continue;
        }
        bool edge = xi <= 1 || xi >= 398 || yi <= 1 || yi >= 198;
        if (edge)
            un ? f->unjudged_edge++ : f->judged_edge++;
        else if (!un && ch->out->v[k].hi == 0)
            f->judged_inner++;
    }
    return 0;
}

static void doc_past_the_limit_unjudged(void **state)
{
    (void)state;
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = REF_PRODUCT_ASCEND910B,
                          .spec = REF_SPEC_DOC};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {REF_PAD_BORDER}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    const int64_t dims[5][4] = {{1, 1, 1, 1}, {1, 1, 200, 400}, {1, 1, 1, 2}, {1, 1, 200, 400},
                                {1, 1, 1, 2}};
    for (int t = 0; t < 5; t++) {
        q.t[t] = (ref_tensor_desc){.present = true, .dtype = REF_DT_FLOAT, .format = REF_FMT_ND,
                                   .rank = 4};
        memcpy(q.t[t].dims, dims[t], sizeof dims[t]);
    }
    double go[1] = {1}, grid[2] = {NAN, 0.25}, *in = calloc(80000, sizeof *in);
    assert_non_null(in);
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    far_count f = {0};
    ref_case_request r = {.dtype = REF_DT_FLOAT, .inputs = inputs, .chunk = count_far, .ctx = &f};
    ref_case_answer ans;
    assert_int_equal(ref_case(&q, &r, &ans), 0);
    free(in);
    assert_int_equal(f.unjudged_edge, 80000 - 196 * 396);
    assert_int_equal(f.judged_edge, 0);
    assert_int_equal(f.judged_inner, 196 * 396);
    assert_true((f.dgrid[0] & REF_FLAG_UNCHECKABLE) && (f.dgrid[1] & REF_FLAG_UNCHECKABLE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doc_allows_nothing_and_the_clamp),
        cmocka_unit_test(one_answer_elsewhere),
        cmocka_unit_test(vendor_bicubic_border_low_edge),
        cmocka_unit_test(doc_past_the_limit_unjudged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

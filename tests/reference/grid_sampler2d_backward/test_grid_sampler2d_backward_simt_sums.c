/* 950's SIMT kernel sums input_grad in FLOAT16 or BF16 from release 9.0 (grid_simt_sums.c;
 * docs/contract.md "Sums in the dtype on 950"): the bound covers every order of those sums, and
 * a partial sum past the dtype's range makes a non-finite answer legal. Hand-derived: nearest,
 * align_corners, input 1x1x2x2, every grid point at (-1, -1), so all of gradOutput lands on
 * input_grad[0]; its other elements get nothing. */
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

#define NPT 5

typedef struct {
    ref_value v;
    uint8_t flags;
} first_dx;

static int keep(void *ctx, const ref_chunk *ch)
{
    first_dx *a = ctx;
    if (ch->slot == REF_GRID_INPUT_GRAD && ch->first == 0) {
        a->v = ch->out->v[0];
        a->flags = ch->out->flags[0];
    }
    return 0;
}

/* A call with align_corners and padding (0 zeros, 1 border): npt points (one row) on an input
 * 1x1xHxW. */
static ref_status_query query(ref_product product, ref_spec spec, ref_dtype dt, int interp,
                              int padding, int64_t npt, int64_t h, int64_t w)
{
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = product,
                          .spec = spec};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {interp}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {padding}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {1}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    const int64_t dims[5][4] = {{1, 1, 1, npt}, {1, 1, h, w}, {1, 1, npt, 2}, {1, 1, h, w},
                                {1, 1, npt, 2}};
    for (int t = 0; t < 5; t++) {
        q.t[t] = (ref_tensor_desc){.present = true, .dtype = dt, .format = REF_FMT_ND, .rank = 4};
        memcpy(q.t[t].dims, dims[t], sizeof dims[t]);
    }
    return q;
}

/* input_grad[0] of gradOutput go[0..npt) under (product, spec, dtype), and its bound. */
static first_dx run(ref_product product, ref_spec spec, ref_dtype dt, const double *go, int npt,
                    double *bound)
{
    ref_status_query q = query(product, spec, dt, 1, 0, npt, 2, 2);
    double in[4] = {1, 2, 3, 4}, grid[2 * NPT];
    for (int i = 0; i < 2 * NPT; i++)
        grid[i] = -1;
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    first_dx a;
    memset(&a, 0, sizeof a);
    ref_case_request r = {.dtype = dt, .inputs = inputs, .chunk = keep, .ctx = &a};
    ref_case_answer ans;
    assert_int_equal(ref_case(&q, &r, &ans), 0);
    *bound = ref_bound(dt, &ans.judge, &a.v);
    return a;
}

/* g = 1, then four times 2^-11: exact 1 + 2^-9, which FLOAT16 holds. Added in that order in
 * FLOAT16 each 1 + 2^-11 is a tie that rounds to even: the device gives 1, 2^-9 = 2 ULPs off.
 * FP32 rounded once errs by no more than half an ULP (bound ~2^-11): 1 fails there, on 910b and
 * on 950 under doc and vendor@8.5. Under 9.0, 9.1, 9.2 on 950 the bound adds
 * ((1 + 2^-11)^5 - 1)·Σ|terms| ≈ 5·2^-11 for the five terms rounded to FLOAT16 and summed in
 * it: 1 passes, and 1 - 2^-9 (2^-8 off) still fails. */
static void fp16_sums_in_any_order(void **state)
{
    (void)state;
    const double go[NPT] = {1, 0x1p-11, 0x1p-11, 0x1p-11, 0x1p-11};
    const double exact = 1 + 0x1p-9;
    double b;
    const ref_spec narrow[3] = {REF_SPEC_DOC, REF_SPEC_VENDOR_OLD, REF_SPEC_VENDOR};
    for (int i = 0; i < 3; i++) {
        ref_product pr = i == 2 ? REF_PRODUCT_ASCEND910B : REF_PRODUCT_ASCEND950;
        first_dx a = run(pr, narrow[i], REF_DT_FLOAT16, go, NPT, &b);
        assert_true(a.v.hi == exact && a.v.coord_err == 0);
        assert_true(b < 0x1p-10 && fabs(1 - exact) > b);
    }
    const ref_spec simt[3] = {REF_SPEC_VENDOR, REF_SPEC_VENDOR_91, REF_SPEC_VENDOR_92};
    for (int i = 0; i < 3; i++) {
        first_dx a = run(REF_PRODUCT_ASCEND950, simt[i], REF_DT_FLOAT16, go, NPT, &b);
        assert_true(a.v.hi == exact && !(a.flags & REF_FLAG_RANGE));
        assert_true(fabs(1 - exact) <= b && b < 0x1p-8);
        assert_true(b > 5 * 0x1p-11 * exact); /* the five roundings to FLOAT16 at least */
    }
}

/* BF16 likewise: g = 1 and four times 2^-8, exact 1 + 2^-6; in BF16 each 1 + 2^-8 ties to 1. */
static void bf16_sums_in_any_order(void **state)
{
    (void)state;
    const double go[NPT] = {1, 0x1p-8, 0x1p-8, 0x1p-8, 0x1p-8};
    const double exact = 1 + 0x1p-6;
    double b;
    run(REF_PRODUCT_ASCEND950, REF_SPEC_VENDOR_OLD, REF_DT_BF16, go, NPT, &b);
    assert_true(fabs(1 - exact) > b);
    first_dx a = run(REF_PRODUCT_ASCEND950, REF_SPEC_VENDOR, REF_DT_BF16, go, NPT, &b);
    assert_true(a.v.hi == exact && fabs(1 - exact) <= b && b < 0x1p-5);
}

/* FLOAT16, g = 65504, 65504, -65504: exact 65504, but added in that order the first partial sum
 * 131008 rounds to +inf (past 65520), and inf - 65504 stays inf. The SIMT reading flags the
 * element REF_FLAG_RANGE (a non-finite answer is legal); FP32 rounded once has no such sum. */
static void fp16_partial_sum_overflows(void **state)
{
    (void)state;
    const double go[3] = {65504, 65504, -65504};
    double b;
    first_dx a = run(REF_PRODUCT_ASCEND950, REF_SPEC_VENDOR_OLD, REF_DT_FLOAT16, go, 3, &b);
    assert_true(a.v.hi == 65504 && !(a.flags & REF_FLAG_RANGE));
    a = run(REF_PRODUCT_ASCEND950, REF_SPEC_VENDOR, REF_DT_FLOAT16, go, 3, &b);
    assert_true(a.v.hi == 65504 && (a.flags & REF_FLAG_RANGE));
    a = run(REF_PRODUCT_ASCEND950, REF_SPEC_VENDOR, REF_DT_FLOAT16, (double[3]){1, 2, 3}, 3, &b);
    assert_true(a.v.hi == 6 && !(a.flags & REF_FLAG_RANGE));
}

/* From 9.1 the kernel rounds the unnormalised coordinate to the dtype. Bilinear, align_corners,
 * input 1x1x1x2001, one point x = 2^-12 (a FLOAT16), y = 0, g = 1: t = (1 + 2^-12)·1000 =
 * 1000.244140625, so exact input_grad[1000] = 0.755859375, [1001] = 0.244140625 (both FLOAT16
 * numbers). FLOAT16 holds multiples of 1/2 near 1000: the device's coordinate is 1000, giving
 * 1 and 0. Under 9.0 (coordinate in FP32) that is far outside the bound; from 9.1 the
 * coordinate term (|∂value/∂c| = 1 times δ ≥ 2^-11·1000) holds it, and a value 0.75 off
 * (1.5) still fails. */
#define LINE 2050
typedef struct {
    double v[LINE];
    double bound[LINE];
    ref_path judge;
    ref_dtype dt;
} line_dx;

static int keep_line(void *ctx, const ref_chunk *ch)
{
    line_dx *a = ctx;
    for (int64_t k = 0; ch->slot == REF_GRID_INPUT_GRAD && k < ch->out->numel; k++) {
        a->v[ch->first + k] = ch->out->v[k].hi;
        a->bound[ch->first + k] = ref_bound(a->dt, &a->judge, &ch->out->v[k]);
    }
    return 0;
}

/* input_grad of one point (x, 0) with g = 1 on ascend950, bilinear, an input 1x1x1xw. */
static line_dx *run_point(ref_spec spec, ref_dtype dt, int padding, int64_t w, double x)
{
    ref_status_query q = query(REF_PRODUCT_ASCEND950, spec, dt, 0, padding, 1, 1, w);
    static double in[LINE];
    double go[1] = {1}, grid[2] = {x, 0};
    const double *inputs[REF_MAX_SLOTS] = {go, in, grid};
    line_dx *a = calloc(1, sizeof *a);
    assert_non_null(a);
    a->dt = dt;
    ref_case_request plan = {.dtype = dt};
    ref_case_answer ans;
    assert_int_equal(ref_case(&q, &plan, &ans), 0); /* the plan: its judge path */
    a->judge = ans.judge;
    ref_case_request r = {.dtype = dt, .inputs = inputs, .chunk = keep_line, .ctx = a};
    assert_int_equal(ref_case(&q, &r, &ans), 0);
    return a;
}

static line_dx *run_line(ref_spec spec)
{
    return run_point(spec, REF_DT_FLOAT16, 0, 2001, 0x1p-12);
}

static void fp16_coordinate_near_1000(void **state)
{
    (void)state;
    line_dx *a = run_line(REF_SPEC_VENDOR);
    assert_true(a->v[1000] == 0.755859375 && a->v[1001] == 0.244140625);
    assert_true(fabs(1 - a->v[1000]) > a->bound[1000] && fabs(a->v[1001]) > a->bound[1001]);
    free(a);
    const ref_spec later[2] = {REF_SPEC_VENDOR_91, REF_SPEC_VENDOR_92};
    for (int i = 0; i < 2; i++) {
        a = run_line(later[i]);
        assert_true(a->v[1000] == 0.755859375 && a->v[1001] == 0.244140625);
        assert_true(fabs(1 - a->v[1000]) <= a->bound[1000] && fabs(a->v[1001]) <= a->bound[1001]);
        assert_true(fabs(1.5 - a->v[1000]) > a->bound[1000]);
        assert_true(a->v[0] == 0 && a->bound[0] < 0x1p-20); /* no point near it */
        free(a);
    }
}

/* From 9.1 the clip bound is T(size − 1) as well. Bilinear, border, align_corners, input
 * 1x1x1xW, one point x = 1.5, y = 0, g = 1: t = 1.25·(W − 1), far right of the image (no
 * rounding of it comes near the bound), so clipped with weight 1 on the bound's column. FLOAT16,
 * W = 2050: T(2049) = 2048 (2049 is halfway between FLOAT16's 2048 and 2050; ties to even), so
 * input_grad[2048] = 1 and [2049] = 0; in FP32 (9.0) the bound is 2049, [2049] = 1. BF16,
 * W = 258: T(257) = 256 likewise (BF16 holds multiples of 2 in [256, 512)). */
static void clip_bound_in_dtype(ref_dtype dt, int64_t w, int64_t last_t)
{
    line_dx *a = run_point(REF_SPEC_VENDOR, dt, 1, w, 1.5);
    assert_true(a->v[w - 1] == 1 && a->v[last_t] == 0);
    assert_true(a->bound[w - 1] < 0x1p-5 && a->bound[last_t] < 0x1p-5);
    free(a);
    const ref_spec later[2] = {REF_SPEC_VENDOR_91, REF_SPEC_VENDOR_92};
    for (int i = 0; i < 2; i++) {
        a = run_point(later[i], dt, 1, w, 1.5);
        assert_true(a->v[last_t] == 1 && a->v[w - 1] == 0);
        assert_true(a->bound[last_t] < 0x1p-5 && a->bound[w - 1] < 0x1p-5);
        free(a);
    }
}

static void fp16_clip_bound_2048(void **state)
{
    (void)state;
    clip_bound_in_dtype(REF_DT_FLOAT16, 2050, 2048);
}

static void bf16_clip_bound_256(void **state)
{
    (void)state;
    clip_bound_in_dtype(REF_DT_BF16, 258, 256);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp16_sums_in_any_order),
        cmocka_unit_test(bf16_sums_in_any_order),
        cmocka_unit_test(fp16_partial_sum_overflows),
        cmocka_unit_test(fp16_coordinate_near_1000),
        cmocka_unit_test(fp16_clip_bound_2048),
        cmocka_unit_test(bf16_clip_bound_256),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

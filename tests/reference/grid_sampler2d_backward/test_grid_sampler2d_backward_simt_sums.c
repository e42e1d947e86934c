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

/* input_grad[0] of gradOutput go[0..npt) under (product, spec, dtype), and its bound. */
static first_dx run(ref_product product, ref_spec spec, ref_dtype dt, const double *go, int npt,
                    double *bound)
{
    ref_status_query q = {.op = REF_OP_GRID_SAMPLER2D_BACKWARD, .product = product,
                          .spec = spec};
    q.p[REF_GRID_INTERPOLATION_MODE] = (ref_param){true, 1, {1}, 0};
    q.p[REF_GRID_PADDING_MODE] = (ref_param){true, 1, {0}, 0};
    q.p[REF_GRID_ALIGN_CORNERS] = (ref_param){true, 1, {1}, 0};
    q.p[REF_GRID_OUTPUT_MASK] = (ref_param){true, 2, {true, true}, 0};
    const int64_t dims[5][4] = {{1, 1, 1, npt}, {1, 1, 2, 2}, {1, 1, npt, 2}, {1, 1, 2, 2},
                                {1, 1, npt, 2}};
    for (int t = 0; t < 5; t++) {
        q.t[t] = (ref_tensor_desc){.present = true, .dtype = dt, .format = REF_FMT_ND, .rank = 4};
        memcpy(q.t[t].dims, dims[t], sizeof dims[t]);
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp16_sums_in_any_order),
        cmocka_unit_test(bf16_sums_in_any_order),
        cmocka_unit_test(fp16_partial_sum_overflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

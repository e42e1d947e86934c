/* aclnnGridSampler2DBackward fault knobs (ACLNN_EMU_FAULT, read at aclInit; kernels/README.md),
 * the twin of tests/kernels/avgpool2d_backward/test_faults.c: each fault the grid sampler honours
 * itself changes what it claims and nothing else (window-off-by-one is avg-pool's alone; the
 * generic faults of the shared second phase are test_faults_generic.c). Expected values are
 * hand-derived from facts §4 and the FP16/BF16 formats. */
#include "call.h"

static void init_with_fault(const char *fault)
{
    if (fault != NULL)
        setenv("ACLNN_EMU_FAULT", fault, 1);
    else
        unsetenv("ACLNN_EMU_FAULT");
    emu_test_init("ascend910b");
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    unsetenv("ACLNN_EMU_FAULT");
    return 0;
}

/* skip-check skips the grid-last-dim check (the one the grid sampler skips) and runs the kernel
 * on a 3-wide or 1-wide grid; the other checks stay (interpolationMode 4 is still 161002). */
static void skip_check(void **state)
{
    (void)state;
    gs_call k = gs_valid_call(ACL_FLOAT);
    k.dims[GS_GRID][3] = k.dims[GS_DGRID][3] = 3;
    init_with_fault(NULL);
    assert_int_equal(gs_first_phase(&k), ACLNN_ERR_PARAM_INVALID);
    init_with_fault("skip-check");
    assert_int_equal(gs_first_phase(&k), ACLNN_SUCCESS);
    k.dims[GS_GRID][3] = k.dims[GS_DGRID][3] = 1;
    assert_int_equal(gs_first_phase(&k), ACLNN_SUCCESS);
    k = gs_valid_call(ACL_FLOAT);
    k.interp = 4;
    assert_int_equal(gs_first_phase(&k), ACLNN_ERR_PARAM_INVALID);
}

/* One input pixel (1x1) and two grid points at (0, 0): with align_corners false the pixel
 * coordinate is x/2 = 0, so nearest puts both gradOutput values into dx[0] and dgrid is 0. */
static gs_case two_points_one_pixel(aclDataType dt, const double go[2])
{
    static const double in[1] = {0}, grid[4] = {0, 0, 0, 0};
    gs_case k = {.n = 1, .c = 1, .hi = 1, .wi = 1, .ho = 1, .wo = 2, .dt = dt,
                 .interp = 1, .go = go, .in = in, .grid = grid, .fill = -7};
    return k;
}

/* status: 161002 becomes success with an executor that writes nothing (both outputs keep their
 * fill -7), 161001 becomes 161002, and a valid call still computes (dx = 1 + 2 = 3). */
static void status(void **state)
{
    (void)state;
    init_with_fault("status");
    const double go[2] = {1, 2};
    gs_case k = two_points_one_pixel(ACL_FLOAT, go);
    k.interp = 4;
    double dx[1], dgrid[4];
    gs_run_case(&k, dx, dgrid);
    const double untouched[4] = {-7, -7, -7, -7};
    gs_expect("dx", dx, untouched, 1);
    gs_expect("dgrid", dgrid, untouched, 4);
    gs_call c = gs_valid_call(ACL_FLOAT);
    c.null_t[GS_GO] = true;
    assert_int_equal(gs_first_phase(&c), ACLNN_ERR_PARAM_INVALID);
    k.interp = 1;
    gs_run_case(&k, dx, dgrid);
    const double three[1] = {3}, zeros[4] = {0, 0, 0, 0};
    gs_expect("dx", dx, three, 1);
    gs_expect("dgrid", dgrid, zeros, 4);
}

/* round-truncate reaches the grid sampler's own store of staged FP16/BF16 results. dx[0] is the
 * FP32 sum 1 + 3*2^-12 (FP16) or 1 + 3*2^-9 (BF16), exact, i.e. 0.75 of a unit in the last place
 * above 1: rounded to nearest it is 1 + 2^-10 = 1.0009765625 (FP16) or 1 + 2^-7 = 1.0078125
 * (BF16); truncated it is 1. Both kernels (deterministic on and off) store the same way. */
static void round_truncate(void **state)
{
    (void)state;
    const struct {
        aclDataType dt;
        double small, rounded;
    } rows[2] = {{ACL_FLOAT16, 3.0 / 4096, 1.0009765625}, {ACL_BF16, 3.0 / 512, 1.0078125}};
    for (int r = 0; r < 2; r++) {
        const double go[2] = {1, rows[r].small};
        gs_case k = two_points_one_pixel(rows[r].dt, go);
        double dx[1];
        for (int det = 1; det >= 0; det--) {
            init_with_fault(NULL);
            assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
            gs_run_case(&k, dx, NULL);
            gs_expect("dx rounded", dx, &rows[r].rounded, 1);
            init_with_fault("round-truncate");
            assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
            gs_run_case(&k, dx, NULL);
            const double one = 1;
            gs_expect("dx truncated", dx, &one, 1);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(skip_check, teardown),
        cmocka_unit_test_teardown(status, teardown),
        cmocka_unit_test_teardown(round_truncate, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

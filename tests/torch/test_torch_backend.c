/* The torch backend (kernels/torch) through the CANN interface: where PyTorch's contract differs
 * from CANN's it answers as torch does, and torch's errors become statuses, not crashes.
 * Expected numbers are hand-derived from the avg-pool and grid-sampler formulas of
 * spec/facts.md §4; expected messages are torch 1.13's own words (checked with python3-torch). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu_test_util.h"

static const int64_t k2[2] = {2, 2};
static const int64_t p0[2] = {0, 0};

/* avg-pool of 1x1x4x4 with `kernel` (stride = kernel, padding 0) in `dtype`; gradInput poisoned
 * with -7; ACL_OPT_DETERMINISTIC set to `det`. Returns the first-phase status; runs the second
 * phase on success. */
static aclnnStatus avgpool_det(aclDataType dtype, const double *g, const int64_t *gdims,
                               const int64_t *kernel, int64_t divisor, double *gin, bool null_go,
                               int64_t det)
{
    aclrtStream stream = emu_test_init(NULL);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
    static const int64_t xdims[4] = {1, 1, 4, 4};
    double x[16] = {0}, poison[16];
    for (int i = 0; i < 16; i++)
        poison[i] = -7;
    void *dg, *dx, *dgi;
    aclTensor *go = emu_test_tensor(g, gdims, 4, dtype, ACL_FORMAT_NCHW, &dg);
    aclTensor *self = emu_test_tensor(x, xdims, 4, dtype, ACL_FORMAT_NCHW, &dx);
    aclTensor *gi = emu_test_tensor(poison, xdims, 4, dtype, ACL_FORMAT_NCHW, &dgi);
    aclIntArray *k = aclCreateIntArray(kernel, 2), *p = aclCreateIntArray(p0, 2);
    uint64_t ws = 99;
    aclOpExecutor *exec = NULL;
    aclnnStatus rc = aclnnAvgPool2dBackwardGetWorkspaceSize(null_go ? NULL : go, self, k, k, p,
                                                            false, true, divisor, 0, gi, &ws,
                                                            &exec);
    if (rc == ACLNN_SUCCESS) {
        assert_int_equal(ws, 0);
        assert_int_equal(aclnnAvgPool2dBackward(NULL, 0, exec, stream), ACLNN_SUCCESS);
        assert_int_equal(aclrtSynchronizeStream(stream), ACL_SUCCESS);
    }
    emu_test_read(gi, gin);
    aclDestroyTensor(go);
    aclDestroyTensor(self);
    aclDestroyTensor(gi);
    aclDestroyIntArray(k);
    aclDestroyIntArray(p);
    aclrtFree(dg);
    aclrtFree(dx);
    aclrtFree(dgi);
    return rc;
}

static aclnnStatus avgpool(aclDataType dtype, const double *g, const int64_t *gdims,
                           const int64_t *kernel, int64_t divisor, double *gin, bool null_go)
{
    return avgpool_det(dtype, g, gdims, kernel, divisor, gin, null_go, 0);
}

/* DOUBLE, which CANN's avg-pool rejects (161002) and torch computes: 2x2 windows, gradOutput
 * [1, 2, 3, 4] → each input cell gains g/4 (hand-derived, facts §4), exact in double. */
static void test_double_avgpool_succeeds(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool(ACL_DOUBLE, g, gdims, k2, 0, gin, false), ACLNN_SUCCESS);
    for (int h = 0; h < 4; h++)
        for (int w = 0; w < 4; w++)
            assert_true(gin[h * 4 + w] == g[(h / 2) * 2 + w / 2] / 4);
}

/* divisorOverride 3 is passed to torch as the divisor: each cell gains g/3, which double
 * division rounds exactly as 1.0/3.0 does for g = 1. */
static void test_divisor_override(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool(ACL_DOUBLE, g, gdims, k2, 3, gin, false), ACLNN_SUCCESS);
    for (int i = 0; i < 16; i++)
        assert_true(gin[i] == g[(i / 8) * 2 + (i % 4) / 2] / 3.0);
}

/* A NULL tensor cannot become a torch tensor: 161001, output untouched. */
static void test_null_tensor(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool(ACL_FLOAT, g, gdims, k2, 0, gin, true), ACLNN_ERR_PARAM_NULLPTR);
    assert_non_null(strstr(aclGetRecentErrMsg(), "gradOutput"));
    for (int i = 0; i < 16; i++)
        assert_true(gin[i] == -7);
}

/* Kernel 5 on a 4x4 input without padding: torch's shape check throws ("Given input size:
 * (1x4x4). Calculated output size: (1x0x0). Output size is too small") → 161002 in the first
 * phase, torch's words in aclGetRecentErrMsg, output untouched. */
static void test_torch_rejects(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 1, 1};
    static const int64_t k5[2] = {5, 5};
    const double g[1] = {1};
    double gin[16];
    assert_int_equal(avgpool(ACL_FLOAT, g, gdims, k5, 0, gin, false), ACLNN_ERR_PARAM_INVALID);
    const char *msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    assert_non_null(strstr(msg, "torch: "));
    assert_non_null(strstr(msg, "Output size is too small"));
    for (int i = 0; i < 16; i++)
        assert_true(gin[i] == -7);
}

/* FLOAT16 avg-pool: torch 1.13's CPU kernel has no Half version ("avg_pool2d_backward" not
 * implemented for 'Half') → 161002, where CANN computes it. */
static void test_half_not_in_torch_cpu(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool(ACL_FLOAT16, g, gdims, k2, 0, gin, false), ACLNN_ERR_PARAM_INVALID);
    assert_non_null(strstr(aclGetRecentErrMsg(), "not implemented for 'Half'"));
}

/* A dtype with no torch floating type here (INT32) → 161002 before torch is called. */
static void test_unmapped_dtype(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool(ACL_INT32, g, gdims, k2, 0, gin, false), ACLNN_ERR_PARAM_INVALID);
    assert_non_null(strstr(aclGetRecentErrMsg(), "INT32"));
}

/* Grid sampler, bilinear, zeros, align_corners false, 1x1x2x2 input [1,2,3,4], one sample at
 * grid (0, 0) = the centre: unnormalize gives x = y = 0.5, all four weights 1/4, so with g = 1
 * dx = [0.25 x4]; dgrid_x = ((2-1) + (4-3))/2 · g · (W/2 = 1) = 1, dgrid_y = ((3-1)+(4-2))/2 = 2.
 * inputGrad is a strided view (W stride 2, offset 1 into a 9-element buffer filled with -7):
 * only the view's elements change. */
static void test_grid_strided_output(void **state)
{
    (void)state;
    aclrtStream stream = emu_test_init(NULL);
    static const int64_t xdims[4] = {1, 1, 2, 2}, gdims[4] = {1, 1, 1, 1}, griddims[4] = {1, 1, 1, 2};
    static const int64_t vstrides[4] = {8, 8, 4, 2};
    const double x[4] = {1, 2, 3, 4}, g[1] = {1}, grid[2] = {0, 0};
    void *dx, *dg, *dgrid, *ddx, *ddgrid;
    aclTensor *go = emu_test_tensor(g, gdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dg);
    aclTensor *in = emu_test_tensor(x, xdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dx);
    aclTensor *gr = emu_test_tensor(grid, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dgrid);
    aclTensor *ig = emu_test_tensor_view(NULL, xdims, 4, vstrides, 1, 9, -7, ACL_FLOAT,
                                         ACL_FORMAT_ND, &ddx);
    aclTensor *gg = emu_test_tensor(NULL, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &ddgrid);
    const bool m[2] = {true, true};
    aclBoolArray *mask = aclCreateBoolArray(m, 2);
    uint64_t ws;
    aclOpExecutor *exec;
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 0, 0, false, mask, ig,
                                                                gg, &ws, &exec),
                     ACLNN_SUCCESS);
    assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, exec, stream), ACLNN_SUCCESS);
    float buf[9], dgr[2];
    assert_int_equal(aclrtMemcpy(buf, sizeof buf, ddx, sizeof buf, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    assert_int_equal(aclrtMemcpy(dgr, sizeof dgr, ddgrid, sizeof dgr, ACL_MEMCPY_DEVICE_TO_HOST),
                     0);
    const float want[9] = {-7, 0.25f, -7, 0.25f, -7, 0.25f, -7, 0.25f, -7};
    for (int i = 0; i < 9; i++)
        assert_true(buf[i] == want[i]);
    assert_true(dgr[0] == 1.0f && dgr[1] == 2.0f);

    /* Empty mask: both outputs false → success, nothing written (contract, outputMask). */
    float before[9];
    memcpy(before, buf, sizeof buf);
    aclBoolArray *empty = aclCreateBoolArray(NULL, 0);
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 0, 0, false, empty,
                                                                ig, gg, &ws, &exec),
                     ACLNN_SUCCESS);
    assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, exec, stream), ACLNN_SUCCESS);
    assert_int_equal(aclrtMemcpy(buf, sizeof buf, ddx, sizeof buf, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    assert_memory_equal(buf, before, sizeof buf);

    /* NULL mask → 161001. */
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 0, 0, false, NULL, ig,
                                                                gg, &ws, &exec),
                     ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyBoolArray(empty);
    aclDestroyBoolArray(mask);
    aclDestroyTensor(go);
    aclDestroyTensor(in);
    aclDestroyTensor(gr);
    aclDestroyTensor(ig);
    aclDestroyTensor(gg);
    void *bufs[5] = {dx, dg, dgrid, ddx, ddgrid};
    for (int i = 0; i < 5; i++)
        aclrtFree(bufs[i]);
}

/* Grid sampler, bicubic (interpolationMode 2, which torch's backward has), zeros, align_corners
 * false, the same 1x1x2x2 input [1,2,3,4] and one sample at the centre: x = y = 0.5, t = 0.5.
 * Keys' weights with A = -0.75: cubic1(0.5) = (1.25·0.5 - 2.25)·0.25 + 1 = 0.59375 for the two
 * in-bounds taps (-1 and 2 are outside: zeros), so dx = 0.59375^2 = 0.3525390625 on each pixel.
 * Their derivatives: d cubic1(t)/dt = 3·1.25·t^2 - 2·2.25·t = -1.3125 for tap 0, +1.3125 for tap 1,
 * so dgrid_x = 2 · 0.59375 · (2 - 1) · 1.3125 · (W/2 = 1) = 1.55859375 and dgrid_y = 2 · 0.59375 ·
 * (3 - 1) · 1.3125 = 3.1171875 (all exact in FLOAT). */
static void test_grid_bicubic(void **state)
{
    (void)state;
    aclrtStream stream = emu_test_init(NULL);
    static const int64_t xdims[4] = {1, 1, 2, 2}, gdims[4] = {1, 1, 1, 1}, griddims[4] = {1, 1, 1, 2};
    const double x[4] = {1, 2, 3, 4}, g[1] = {1}, grid[2] = {0, 0};
    void *dx, *dg, *dgrid, *ddx, *ddgrid;
    aclTensor *go = emu_test_tensor(g, gdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dg);
    aclTensor *in = emu_test_tensor(x, xdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dx);
    aclTensor *gr = emu_test_tensor(grid, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &dgrid);
    aclTensor *ig = emu_test_tensor(NULL, xdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &ddx);
    aclTensor *gg = emu_test_tensor(NULL, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &ddgrid);
    const bool m[2] = {true, true};
    aclBoolArray *mask = aclCreateBoolArray(m, 2);
    uint64_t ws;
    aclOpExecutor *exec;
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 2, 0, false, mask, ig,
                                                                gg, &ws, &exec),
                     ACLNN_SUCCESS);
    assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, exec, stream), ACLNN_SUCCESS);
    float dxo[4], dgr[2];
    assert_int_equal(aclrtMemcpy(dxo, sizeof dxo, ddx, sizeof dxo, ACL_MEMCPY_DEVICE_TO_HOST), 0);
    assert_int_equal(aclrtMemcpy(dgr, sizeof dgr, ddgrid, sizeof dgr, ACL_MEMCPY_DEVICE_TO_HOST),
                     0);
    for (int i = 0; i < 4; i++)
        assert_true(dxo[i] == 0.3525390625f);
    assert_true(dgr[0] == 1.55859375f && dgr[1] == 3.1171875f);
    aclDestroyBoolArray(mask);
    aclDestroyTensor(go);
    aclDestroyTensor(in);
    aclDestroyTensor(gr);
    aclDestroyTensor(ig);
    aclDestroyTensor(gg);
    void *bufs[5] = {dx, dg, dgrid, ddx, ddgrid};
    for (int i = 0; i < 5; i++)
        aclrtFree(bufs[i]);
}

/* ACL_OPT_DETERMINISTIC=1 is applied as torch's deterministic-algorithms mode; torch's CPU
 * kernels of both ops are allowed under it, so the call succeeds with the same values. */
static void test_deterministic_mode(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {1, 1, 2, 2};
    const double g[4] = {1, 2, 3, 4};
    double gin[16];
    assert_int_equal(avgpool_det(ACL_FLOAT, g, gdims, k2, 0, gin, false, 1), ACLNN_SUCCESS);
    for (int i = 0; i < 16; i++)
        assert_true(gin[i] == g[(i / 8) * 2 + (i % 4) / 2] / 4);
}

/* Tensor data outside device memory (a host pointer) → 361001, as the emulated device says. */
static void test_host_pointer(void **state)
{
    (void)state;
    emu_test_init(NULL);
    static const int64_t dims[4] = {1, 1, 2, 2};
    float host[4] = {0};
    aclTensor *t = aclCreateTensor(dims, 4, ACL_FLOAT, NULL, 0, ACL_FORMAT_NCHW, dims, 4, host);
    aclIntArray *k = aclCreateIntArray(k2, 2), *p = aclCreateIntArray(p0, 2);
    uint64_t ws;
    aclOpExecutor *exec;
    assert_int_equal(aclnnAvgPool2dBackwardGetWorkspaceSize(t, t, k, k, p, false, true, 0, 0, t,
                                                            &ws, &exec),
                     ACLNN_ERR_RUNTIME_ERROR);
    aclDestroyTensor(t);
    aclDestroyIntArray(k);
    aclDestroyIntArray(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_double_avgpool_succeeds),
        cmocka_unit_test(test_divisor_override),
        cmocka_unit_test(test_null_tensor),
        cmocka_unit_test(test_torch_rejects),
        cmocka_unit_test(test_half_not_in_torch_cpu),
        cmocka_unit_test(test_unmapped_dtype),
        cmocka_unit_test(test_grid_strided_output),
        cmocka_unit_test(test_grid_bicubic),
        cmocka_unit_test(test_deterministic_mode),
        cmocka_unit_test(test_host_pointer),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    emu_test_fini();
    return rc;
}

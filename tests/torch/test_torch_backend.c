/* The torch backend (kernels/torch) through the CANN interface: where PyTorch's contract differs
 * from CANN's it answers as torch does, and torch's errors become statuses, not crashes.
 * Expected numbers are hand-derived from the avg-pool and grid-sampler formulas of
 * spec/facts.md §4; expected messages are torch 1.13's own words (checked with python3-torch). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
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

/* One grid-sampler call in FLOAT: the 1x1x2x2 input [1, 2, 3, 4], one grid point (gx, gy),
 * gradOutput 1, both outputs selected; inputGrad a view (ig_strides, offset 1) over 9 elements
 * filled with -7 when ig_strides is given, else contiguous. dev: gradOutput, input, grid,
 * inputGrad, gridGrad. */
struct grid_call {
    aclrtStream stream;
    aclTensor *go, *in, *gr, *ig, *gg;
    aclBoolArray *mask;
    void *dev[5];
};

static void grid_setup(struct grid_call *c, double gx, double gy, const int64_t *ig_strides)
{
    static const int64_t xdims[4] = {1, 1, 2, 2}, gdims[4] = {1, 1, 1, 1};
    static const int64_t griddims[4] = {1, 1, 1, 2};
    const double x[4] = {1, 2, 3, 4}, g[1] = {1}, grid[2] = {gx, gy};
    const bool m[2] = {true, true};
    c->stream = emu_test_init(NULL);
    c->go = emu_test_tensor(g, gdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &c->dev[0]);
    c->in = emu_test_tensor(x, xdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &c->dev[1]);
    c->gr = emu_test_tensor(grid, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &c->dev[2]);
    c->ig = ig_strides ? emu_test_tensor_view(NULL, xdims, 4, ig_strides, 1, 9, -7, ACL_FLOAT,
                                              ACL_FORMAT_ND, &c->dev[3])
                       : emu_test_tensor(NULL, xdims, 4, ACL_FLOAT, ACL_FORMAT_ND, &c->dev[3]);
    c->gg = emu_test_tensor(NULL, griddims, 4, ACL_FLOAT, ACL_FORMAT_ND, &c->dev[4]);
    c->mask = aclCreateBoolArray(m, 2);
}

/* The first phase with `mask`, then the second when the first succeeds; the first's status. */
static aclnnStatus grid_run(struct grid_call *c, int64_t mode, int64_t padding,
                            const aclBoolArray *mask)
{
    uint64_t ws;
    aclOpExecutor *exec;
    aclnnStatus rc = aclnnGridSampler2DBackwardGetWorkspaceSize(c->go, c->in, c->gr, mode, padding,
                                                                false, mask, c->ig, c->gg, &ws,
                                                                &exec);
    if (rc == ACLNN_SUCCESS)
        assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, exec, c->stream), ACLNN_SUCCESS);
    return rc;
}

/* n floats of device buffer dev[i] into host. */
static void grid_read(const struct grid_call *c, int i, float *host, size_t n)
{
    size_t bytes = n * sizeof *host;
    assert_int_equal(aclrtMemcpy(host, bytes, c->dev[i], bytes, ACL_MEMCPY_DEVICE_TO_HOST), 0);
}

static void grid_teardown(struct grid_call *c)
{
    aclDestroyBoolArray(c->mask);
    aclTensor *t[5] = {c->go, c->in, c->gr, c->ig, c->gg};
    for (int i = 0; i < 5; i++) {
        aclDestroyTensor(t[i]);
        aclrtFree(c->dev[i]);
    }
}

/* Grid sampler, bilinear, zeros, align_corners false, one sample at grid (0, 0) = the centre:
 * unnormalize gives x = y = 0.5, all four weights 1/4, so with g = 1 dx = [0.25 x4];
 * dgrid_x = ((2-1) + (4-3))/2 · g · (W/2 = 1) = 1, dgrid_y = ((3-1)+(4-2))/2 = 2.
 * inputGrad is a strided view (W stride 2, offset 1 into a 9-element buffer filled with -7):
 * only the view's elements change. */
static void test_grid_strided_output(void **state)
{
    (void)state;
    static const int64_t vstrides[4] = {8, 8, 4, 2};
    struct grid_call c;
    grid_setup(&c, 0, 0, vstrides);
    assert_int_equal(grid_run(&c, 0, 0, c.mask), ACLNN_SUCCESS);
    float buf[9], dgr[2];
    grid_read(&c, 3, buf, 9);
    grid_read(&c, 4, dgr, 2);
    const float want[9] = {-7, 0.25f, -7, 0.25f, -7, 0.25f, -7, 0.25f, -7};
    for (int i = 0; i < 9; i++)
        assert_true(buf[i] == want[i]);
    assert_true(dgr[0] == 1.0f && dgr[1] == 2.0f);

    /* Empty mask: both outputs false → success, nothing written (contract, outputMask). */
    float before[9];
    memcpy(before, buf, sizeof buf);
    aclBoolArray *empty = aclCreateBoolArray(NULL, 0);
    assert_int_equal(grid_run(&c, 0, 0, empty), ACLNN_SUCCESS);
    grid_read(&c, 3, buf, 9);
    assert_memory_equal(buf, before, sizeof buf);

    /* NULL mask → 161001. */
    assert_int_equal(grid_run(&c, 0, 0, NULL), ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyBoolArray(empty);
    grid_teardown(&c);
}

/* Grid sampler, bicubic (interpolationMode 2, which torch's backward has), zeros, align_corners
 * false, one sample at the centre: x = y = 0.5, t = 0.5.
 * Keys' weights with A = -0.75: cubic1(0.5) = (1.25·0.5 - 2.25)·0.25 + 1 = 0.59375 for the two
 * in-bounds taps (-1 and 2 are outside: zeros), so dx = 0.59375^2 = 0.3525390625 on each pixel.
 * Their derivatives: d cubic1(t)/dt = 3·1.25·t^2 - 2·2.25·t = -1.3125 for tap 0, +1.3125 for tap 1,
 * so dgrid_x = 2 · 0.59375 · (2 - 1) · 1.3125 · (W/2 = 1) = 1.55859375 and dgrid_y = 2 · 0.59375 ·
 * (3 - 1) · 1.3125 = 3.1171875 (all exact in FLOAT). */
static void test_grid_bicubic(void **state)
{
    (void)state;
    struct grid_call c;
    grid_setup(&c, 0, 0, NULL);
    assert_int_equal(grid_run(&c, 2, 0, c.mask), ACLNN_SUCCESS);
    float dxo[4], dgr[2];
    grid_read(&c, 3, dxo, 4);
    grid_read(&c, 4, dgr, 2);
    for (int i = 0; i < 4; i++)
        assert_true(dxo[i] == 0.3525390625f);
    assert_true(dgr[0] == 1.55859375f && dgr[1] == 3.1171875f);
    grid_teardown(&c);
}

/* torch 1.13's own CPU kernel dies of SIGSEGV on a NaN grid coordinate under bilinear with
 * border or reflection padding (called from Python with no aclcts code: pytorch/pytorch#24823,
 * kernels/torch/crash_probe.py). The kernel runs in a child process: the caller gets 561000,
 * the message names the signal, the outputs stay as they were, and the process lives on to make
 * the next call. */
static void test_grid_torch_crash_is_an_error(void **state)
{
    (void)state;
    struct grid_call c;
    grid_setup(&c, NAN, 0, NULL);
    float poison[4] = {-7, -7, -7, -7}, dxo[4];
    assert_int_equal(aclrtMemcpy(c.dev[3], sizeof poison, poison, sizeof poison,
                                 ACL_MEMCPY_HOST_TO_DEVICE), 0);
    for (int64_t padding = 1; padding <= 2; padding++) {
        assert_int_equal(grid_run(&c, 0, padding, c.mask), ACLNN_ERR_INNER);
        const char *msg = aclGetRecentErrMsg();
        assert_non_null(msg);
        assert_non_null(strstr(msg, "at::grid_sampler_2d_backward died of SIGSEGV"));
        grid_read(&c, 3, dxo, 4);
        assert_memory_equal(dxo, poison, sizeof poison);
    }
    grid_teardown(&c);
}

/* A grid value past 2^20 also runs in the child (its coordinate might overflow): there torch
 * answers, and the answer comes back whole. x = 2^21 lies far right of the 2x2 input, so under
 * zeros padding every tap is outside: dx = 0 and dgrid = 0 (both poisoned with -7 before). */
static void test_grid_far_point_in_child(void **state)
{
    (void)state;
    struct grid_call c;
    grid_setup(&c, 0x1p21, 0, NULL);
    float poison[4] = {-7, -7, -7, -7}, dxo[4], dgr[2];
    assert_int_equal(aclrtMemcpy(c.dev[3], sizeof poison, poison, sizeof poison,
                                 ACL_MEMCPY_HOST_TO_DEVICE), 0);
    assert_int_equal(aclrtMemcpy(c.dev[4], sizeof dgr, poison, sizeof dgr,
                                 ACL_MEMCPY_HOST_TO_DEVICE), 0);
    assert_int_equal(grid_run(&c, 0, 0, c.mask), ACLNN_SUCCESS);
    grid_read(&c, 3, dxo, 4);
    grid_read(&c, 4, dgr, 2);
    for (int i = 0; i < 4; i++)
        assert_true(dxo[i] == 0);
    assert_true(dgr[0] == 0 && dgr[1] == 0);
    grid_teardown(&c);
}

/* gradOutput of another batch than self runs in the child (torch reads past it); a torch
 * exception there is the same 161002 with torch's words: FLOAT16 has no CPU kernel. */
static void test_error_in_child(void **state)
{
    (void)state;
    static const int64_t gdims[4] = {2, 1, 2, 2};
    const double g[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    double gin[16];
    assert_int_equal(avgpool(ACL_FLOAT16, g, gdims, k2, 0, gin, false), ACLNN_ERR_PARAM_INVALID);
    assert_non_null(strstr(aclGetRecentErrMsg(), "torch: \"avg_pool2d_backward\" not implemented for 'Half'"));
    for (int i = 0; i < 16; i++)
        assert_true(gin[i] == -7);
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
        cmocka_unit_test(test_grid_torch_crash_is_an_error),
        cmocka_unit_test(test_grid_far_point_in_child),
        cmocka_unit_test(test_error_in_child),
        cmocka_unit_test(test_deterministic_mode),
        cmocka_unit_test(test_host_pointer),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    emu_test_fini();
    return rc;
}

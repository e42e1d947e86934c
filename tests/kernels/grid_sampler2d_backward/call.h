/* Helpers shared by the aclnnGridSampler2DBackward tests (status, numerics, determinism,
 * faults). Only the CANN interface and emu_test_util are used; included once per test
 * program. */
#ifndef ACLCTS_TESTS_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_TESTS_GRID_SAMPLER2D_BACKWARD_H_

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu_test_util.h"

enum { GS_GO, GS_IN, GS_GRID, GS_DX, GS_DGRID, GS_NT };

/* One call of the first phase: the five tensors' shapes and dtypes (zero-filled), which are
 * NULL, and the scalar arguments. */
typedef struct {
    int ndim[GS_NT];
    int64_t dims[GS_NT][5];
    aclDataType dt[GS_NT];
    bool null_t[GS_NT];
    int64_t interp, pad;
    bool align;
    bool null_mask;
    int mask_len;
    bool mask[3];
} gs_call;

/* The document's example shapes: gradOutput [1,1,3,3], input [1,1,5,8], grid [1,3,3,2]. */
static inline gs_call gs_valid_call(aclDataType dt)
{
    gs_call k = {
        .ndim = {4, 4, 4, 4, 4},
        .dims = {{1, 1, 3, 3}, {1, 1, 5, 8}, {1, 3, 3, 2}, {1, 1, 5, 8}, {1, 3, 3, 2}},
        .dt = {dt, dt, dt, dt, dt},
        .mask_len = 2,
        .mask = {true, true},
    };
    return k;
}

/* Runs the first phase (and, on success, the second); returns the first phase's status. */
static inline aclnnStatus gs_first_phase(const gs_call *k)
{
    aclTensor *t[GS_NT] = {0};
    void *dev[GS_NT] = {0};
    for (int i = 0; i < GS_NT; i++) {
        if (k->null_t[i])
            continue;
        /* zero-filled storage of 8 bytes per element (any dtype fits); negative dims count 1 */
        int64_t strides[5], storage = 1;
        for (int d = k->ndim[i]; d-- > 0;) {
            strides[d] = storage;
            storage *= k->dims[i][d] > 0 ? k->dims[i][d] : 1;
        }
        size_t bytes = (size_t)storage * 8;
        void *zeros = calloc(1, bytes);
        assert_int_equal(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        assert_int_equal(aclrtMemcpy(dev[i], bytes, zeros, bytes, ACL_MEMCPY_HOST_TO_DEVICE),
                         ACL_SUCCESS);
        free(zeros);
        t[i] = aclCreateTensor(k->dims[i], (uint64_t)k->ndim[i], k->dt[i], strides, 0,
                               ACL_FORMAT_ND, &storage, 1, dev[i]);
        assert_non_null(t[i]);
    }
    aclBoolArray *mask = k->null_mask ? NULL : aclCreateBoolArray(k->mask, (uint64_t)k->mask_len);
    uint64_t ws = 99;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = aclnnGridSampler2DBackwardGetWorkspaceSize(
        t[GS_GO], t[GS_IN], t[GS_GRID], k->interp, k->pad, k->align, mask, t[GS_DX],
        t[GS_DGRID], &ws, &ex);
    if (st == ACLNN_SUCCESS) {
        assert_non_null(ex);
        assert_int_equal(ws, 0);
        assert_int_equal(aclnnGridSampler2DBackward(NULL, 0, ex, NULL), ACLNN_SUCCESS);
    }
    if (mask)
        aclDestroyBoolArray(mask);
    for (int i = 0; i < GS_NT; i++) {
        if (t[i])
            aclDestroyTensor(t[i]);
        if (dev[i])
            aclrtFree(dev[i]);
    }
    return st;
}

/* A numeric case on contiguous tensors: gradOutput [n,c,ho,wo], input [n,c,hi,wi], grid
 * [n,ho,wo,2]; outputs start filled with `fill`. */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    aclDataType dt;
    int64_t interp, pad;
    bool align;
    const double *go, *in, *grid;
    int mask_len; /* 0: {true, true}; -1: an empty mask */
    bool mask[3];
    bool null_mask;
    double fill;
} gs_case;

/* Runs both phases (asserting success) and reads the outputs back (either may be NULL). */
static inline void gs_run_case(const gs_case *k, double *dx, double *dgrid)
{
    const int64_t go_d[4] = {k->n, k->c, k->ho, k->wo}, in_d[4] = {k->n, k->c, k->hi, k->wi};
    const int64_t gr_d[4] = {k->n, k->ho, k->wo, 2};
    void *dev[GS_NT];
    aclTensor *go = emu_test_tensor(k->go, go_d, 4, k->dt, ACL_FORMAT_ND, &dev[GS_GO]);
    aclTensor *in = emu_test_tensor(k->in, in_d, 4, k->dt, ACL_FORMAT_ND, &dev[GS_IN]);
    aclTensor *gr = emu_test_tensor(k->grid, gr_d, 4, k->dt, ACL_FORMAT_ND, &dev[GS_GRID]);
    int64_t s_in[4] = {in_d[1] * in_d[2] * in_d[3], in_d[2] * in_d[3], in_d[3], 1};
    int64_t s_gr[4] = {gr_d[1] * gr_d[2] * 2, gr_d[2] * 2, 2, 1};
    aclTensor *tdx = emu_test_tensor_view(NULL, in_d, 4, s_in, 0, emu_test_numel(in_d, 4),
                                          k->fill, k->dt, ACL_FORMAT_ND, &dev[GS_DX]);
    aclTensor *tdg = emu_test_tensor_view(NULL, gr_d, 4, s_gr, 0, emu_test_numel(gr_d, 4),
                                          k->fill, k->dt, ACL_FORMAT_ND, &dev[GS_DGRID]);
    bool both[2] = {true, true};
    aclBoolArray *mask = k->null_mask      ? NULL
                         : k->mask_len > 0 ? aclCreateBoolArray(k->mask, (uint64_t)k->mask_len)
                         : k->mask_len < 0 ? aclCreateBoolArray(both, 0)
                                           : aclCreateBoolArray(both, 2);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, k->interp, k->pad,
                                                                k->align, mask, tdx, tdg, &ws,
                                                                &ex),
                     ACLNN_SUCCESS);
    assert_int_equal(aclnnGridSampler2DBackward(NULL, ws, ex, NULL), ACLNN_SUCCESS);
    if (dx)
        emu_test_read(tdx, dx);
    if (dgrid)
        emu_test_read(tdg, dgrid);
    if (mask)
        aclDestroyBoolArray(mask);
    aclTensor *all[GS_NT] = {go, in, gr, tdx, tdg};
    for (int i = 0; i < GS_NT; i++) {
        aclDestroyTensor(all[i]);
        aclrtFree(dev[i]);
    }
}

/* Asserts got[i] == want[i] exactly for all i (NaN == NaN), naming the index on failure. */
static inline void gs_expect(const char *what, const double *got, const double *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        bool same = got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]);
        if (!same)
            fail_msg("%s[%lld] = %.17g, expected %.17g", what, (long long)i, got[i], want[i]);
    }
}

#endif

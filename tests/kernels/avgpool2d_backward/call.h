/* Shared helpers of the aclnnAvgPool2dBackward tests (test_*.c): a case
 * description, and one call through both phases of the public interface. Include after
 * <cmocka.h>. */
#ifndef ACLCTS_TESTS_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_TESTS_AVGPOOL2D_BACKWARD_H_

#include <stdlib.h>
#include <string.h>

#include "emu_test_util.h"

enum { AP_GO, AP_SELF, AP_GI };
/* Bits of ap_case.nulls: which argument is passed as NULL. */
enum {
    AP_NULL_GO = 1, AP_NULL_SELF = 2, AP_NULL_KERNEL = 4, AP_NULL_STRIDE = 8, AP_NULL_PAD = 16,
    AP_NULL_GI = 32, AP_NULL_WS_SIZE = 64, AP_NULL_EXECUTOR = 128
};

typedef struct {
    int ndim[3];
    int64_t dims[3][5]; /* room for a rank-5 misuse */
    aclDataType dt[3];
    aclFormat fmt[3];
    int64_t kernel[3], stride[3], pad[3];
    int nkernel, nstride, npad;
    bool ceil_mode, count_include_pad;
    int64_t divisor;
    int8_t cube_math;
    unsigned nulls;
} ap_case;

/* A 4-D NCHW FLOAT case: self (n, c, h, w), gradOutput (n, c, oh, ow), square kernel, stride,
 * padding given once; countIncludePad true, cubeMathType 1 (legal with FLOAT everywhere). */
static inline ap_case ap_case4(int64_t n, int64_t c, int64_t h, int64_t w, int64_t oh,
                               int64_t ow, int64_t k, int64_t s, int64_t p)
{
    ap_case cs;
    memset(&cs, 0, sizeof cs);
    for (int i = 0; i < 3; i++) {
        cs.ndim[i] = 4;
        cs.dims[i][0] = n;
        cs.dims[i][1] = c;
        cs.dims[i][2] = i == AP_GO ? oh : h;
        cs.dims[i][3] = i == AP_GO ? ow : w;
        cs.dt[i] = ACL_FLOAT;
        cs.fmt[i] = ACL_FORMAT_NCHW;
    }
    cs.kernel[0] = k;
    cs.stride[0] = s;
    cs.pad[0] = p;
    cs.nkernel = cs.nstride = cs.npad = 1;
    cs.count_include_pad = true;
    cs.cube_math = 1;
    return cs;
}

/* The valid default: self [1,1,4,4], kernel 2, stride 2, padding 0 -> gradOutput [1,1,2,2]. */
static inline ap_case ap_default(void) { return ap_case4(1, 1, 4, 4, 2, 2, 2, 2, 0); }

static inline void ap_set_dtype(ap_case *cs, aclDataType dt)
{
    cs->dt[0] = cs->dt[1] = cs->dt[2] = dt;
}

/* Runs both phases. gradOutput holds `go` (zeros when NULL), gradInput starts filled with
 * `gi_fill`; when the first phase succeeds the second must succeed too, and gradInput is read
 * into `gi` (when not NULL). Returns the first phase's status; *ws gets the workspace size. */
static inline aclnnStatus ap_call_ws(const ap_case *cs, const double *go, double gi_fill,
                                     double *gi, uint64_t *ws_out)
{
    void *dev[3] = {NULL, NULL, NULL};
    aclTensor *t[3];
    for (int i = 0; i < 3; i++) {
        int64_t n = emu_test_numel(cs->dims[i], cs->ndim[i]);
        double *host = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
        for (int64_t j = 0; j < n; j++) {
            host[j] = i == AP_GO ? (go ? go[j] : 0.0) : i == AP_GI ? gi_fill : 0.0;
        }
        t[i] = emu_test_tensor(host, cs->dims[i], cs->ndim[i], cs->dt[i], cs->fmt[i], &dev[i]);
        free(host);
    }
    aclIntArray *k = aclCreateIntArray(cs->kernel, (uint64_t)cs->nkernel);
    aclIntArray *s = aclCreateIntArray(cs->stride, (uint64_t)cs->nstride);
    aclIntArray *p = aclCreateIntArray(cs->pad, (uint64_t)cs->npad);
    uint64_t ws = 12345;
    aclOpExecutor *ex = NULL;
    unsigned nl = cs->nulls;
    aclnnStatus st = aclnnAvgPool2dBackwardGetWorkspaceSize(
        nl & AP_NULL_GO ? NULL : t[AP_GO], nl & AP_NULL_SELF ? NULL : t[AP_SELF],
        nl & AP_NULL_KERNEL ? NULL : k, nl & AP_NULL_STRIDE ? NULL : s, nl & AP_NULL_PAD ? NULL : p,
        cs->ceil_mode, cs->count_include_pad, cs->divisor, cs->cube_math,
        nl & AP_NULL_GI ? NULL : t[AP_GI], nl & AP_NULL_WS_SIZE ? NULL : &ws,
        nl & AP_NULL_EXECUTOR ? NULL : &ex);
    if (st == ACLNN_SUCCESS) {
        assert_non_null(ex);
        void *wsp = NULL;
        if (ws > 0) {
            assert_int_equal(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
        }
        assert_int_equal(aclnnAvgPool2dBackward(wsp, ws, ex, NULL), ACLNN_SUCCESS);
        if (wsp != NULL) {
            aclrtFree(wsp);
        }
        if (gi != NULL) {
            emu_test_read(t[AP_GI], gi);
        }
        if (ws_out != NULL) {
            *ws_out = ws;
        }
    }
    aclDestroyIntArray(k);
    aclDestroyIntArray(s);
    aclDestroyIntArray(p);
    for (int i = 0; i < 3; i++) {
        aclDestroyTensor(t[i]);
        aclrtFree(dev[i]);
    }
    return st;
}

static inline aclnnStatus ap_call(const ap_case *cs, const double *go, double *gi)
{
    return ap_call_ws(cs, go, -7.0, gi, NULL);
}

/* Asserts element-wise bitwise-equal doubles (NaN equals NaN). */
static inline void ap_assert_values(const double *got, const double *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        if (!(got[i] == want[i] || (got[i] != got[i] && want[i] != want[i]))) {
            fail_msg("element %lld: got %.17g, want %.17g", (long long)i, got[i], want[i]);
        }
    }
}

#endif

/* aclnnAvgPool2dBackward determinism (spec/000 "Deterministic computation"):
 * with ACL_OPT_DETERMINISTIC = 1 results are bitwise identical across runs and thread counts;
 * without it, ACLNN_EMU_SHUFFLE makes the scatter order, and so the last bits, change between
 * runs even on one thread. Data: kernel 3, stride 1 (up to 9 overlapping terms per element) and
 * values of mixed magnitude from a fixed LCG, so different orders round differently. */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "call.h"

#define H 24
#define OH 22 /* (24 - 3)/1 + 1 */
#define PLANES 6
#define N_GO (PLANES * OH * OH)
#define N_GI (PLANES * H * H)

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    unsetenv("ACLNN_EMU_SHUFFLE");
    omp_set_num_threads(omp_get_num_procs());
    return 0;
}

/* Values m * 2^e with m in (-1, 1) of 20 bits and e in [-8, 8]: exact in FP32. */
static void fill(double *go)
{
    uint64_t s = 12345;
    for (int i = 0; i < N_GO; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        double m = (double)((int64_t)(s >> 44) - (1 << 19)) / (1 << 20);
        go[i] = ldexp(m, (int)((s >> 20) % 17) - 8);
    }
}

static ap_case the_case(void)
{
    ap_case cs = ap_case4(2, 3, H, H, OH, OH, 3, 1, 0);
    cs.count_include_pad = false; /* vector path on 910b */
    return cs;
}

static void deterministic_bitwise(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    static double go[N_GO], first[N_GI], again[N_GI];
    fill(go);
    ap_case cs = the_case();
    omp_set_num_threads(1);
    assert_int_equal(ap_call(&cs, go, first), ACLNN_SUCCESS);
    for (int threads = 1; threads <= 4; threads++) {
        omp_set_num_threads(threads);
        for (int r = 0; r < 3; r++) {
            assert_int_equal(ap_call(&cs, go, again), ACLNN_SUCCESS);
            assert_memory_equal(first, again, sizeof first);
        }
    }
    /* A shuffle seed does not touch the deterministic kernel. */
    setenv("ACLNN_EMU_SHUFFLE", "7", 1);
    emu_test_init("ascend910b");
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_int_equal(ap_call(&cs, go, again), ACLNN_SUCCESS);
    assert_memory_equal(first, again, sizeof first);
}

/* Higham's bound for a sum of n <= 9 terms in FP32: |error| <= gamma(8) * sum|terms|, with
 * gamma(8) = 8u/(1-8u), u = 2^-24 (facts §5); terms g/div with div = 9 here. */
static void assert_close_to(const double *got, const double *ref, const double *go)
{
    for (int p = 0; p < PLANES; p++) {
        for (int h = 0; h < H; h++) {
            for (int w = 0; w < H; w++) {
                double abs_sum = 0;
                for (int oh = h - 2; oh <= h; oh++) {
                    for (int ow = w - 2; ow <= w; ow++) {
                        if (oh >= 0 && oh < OH && ow >= 0 && ow < OH) {
                            abs_sum += fabs(go[(p * OH + oh) * OH + ow]) / 9;
                        }
                    }
                }
                double u = ldexp(1, -24), bound = 8 * u / (1 - 8 * u) * abs_sum * 2;
                int i = (p * H + h) * H + w;
                if (fabs(got[i] - ref[i]) > bound) {
                    fail_msg("element %d: %.9g vs %.9g beyond %.3g", i, got[i], ref[i], bound);
                }
            }
        }
    }
}

static void shuffled_differs(void **state)
{
    (void)state;
    static double go[N_GO], ref[N_GI], runs[4][N_GI];
    fill(go);
    ap_case cs = the_case();
    emu_test_init("ascend910b");
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_int_equal(ap_call(&cs, go, ref), ACLNN_SUCCESS);
    setenv("ACLNN_EMU_SHUFFLE", "42", 1);
    emu_test_init("ascend910b"); /* determinism is off after aclInit */
    omp_set_num_threads(1);
    int differing = 0;
    for (int r = 0; r < 4; r++) {
        uint64_t ws = 0;
        assert_int_equal(ap_call_ws(&cs, go, 0.0, runs[r], &ws), ACLNN_SUCCESS);
        assert_true(ws > 0); /* the scatter accumulates in the workspace */
        assert_close_to(runs[r], ref, go);
        if (r > 0 && memcmp(runs[r], runs[0], sizeof runs[0]) != 0) {
            differing++;
        }
    }
    assert_true(differing >= 2);
}

/* Without a shuffle seed, one thread scatters in row-major order: the result stays within the
 * sum bound of the deterministic one. */
static void unshuffled_close(void **state)
{
    (void)state;
    static double go[N_GO], ref[N_GI], got[N_GI];
    fill(go);
    ap_case cs = the_case();
    emu_test_init("ascend910b");
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_int_equal(ap_call(&cs, go, ref), ACLNN_SUCCESS);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        assert_int_equal(ap_call(&cs, go, got), ACLNN_SUCCESS);
        assert_close_to(got, ref, go);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(deterministic_bitwise, teardown),
        cmocka_unit_test_teardown(shuffled_differs, teardown),
        cmocka_unit_test_teardown(unshuffled_close, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

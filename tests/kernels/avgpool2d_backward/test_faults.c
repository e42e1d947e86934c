/* aclnnAvgPool2dBackward fault knobs (ACLNN_EMU_FAULT, read at aclInit; kernels/README.md):
 * each changes what it claims and nothing else. Expected values hand-derived from facts §4. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "call.h"

static void init_with_fault(const char *fault)
{
    if (fault != NULL) {
        setenv("ACLNN_EMU_FAULT", fault, 1);
    } else {
        unsetenv("ACLNN_EMU_FAULT");
    }
    emu_test_init("ascend910b");
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    unsetenv("ACLNN_EMU_FAULT");
    return 0;
}

/* skip-check: the padding <= kernel/2 rule is skipped (kernel 2, padding 2 on 4x4: out
 * (4+4-2)/2+1 = 4 succeeds), other rules still hold (kernel 0 stays 161002). */
static void skip_check(void **state)
{
    (void)state;
    ap_case cs = ap_case4(1, 1, 4, 4, 4, 4, 2, 2, 2);
    init_with_fault(NULL);
    assert_int_equal(ap_call(&cs, NULL, NULL), ACLNN_ERR_PARAM_INVALID);
    init_with_fault("skip-check");
    assert_int_equal(ap_call(&cs, NULL, NULL), ACLNN_SUCCESS);
    ap_case zero_k = ap_default();
    zero_k.kernel[0] = 0;
    assert_int_equal(ap_call(&zero_k, NULL, NULL), ACLNN_ERR_PARAM_INVALID);
}

/* window-off-by-one on kernel 2, stride 1, 3x3, countIncludePad false (vector), g = 36*[[1,2],
 * [3,4]]. Correct windows [0,2), [1,3), div 4: terms 9, 18, 27, 36 ->
 * [[9,27,18],[36,90,54],[27,63,36]]. With the fault h1 = min(h0+3, 3): [0,3) count 3 and [1,3)
 * count 2: divisors 9, 6, 6, 4 -> terms 4, 12, 18, 36; rows 1 and 2 are both covered by both
 * windows: [[4,16,16],[22,70,70],[22,70,70]]. */
static void window_off_by_one(void **state)
{
    (void)state;
    ap_case cs = ap_case4(1, 1, 3, 3, 2, 2, 2, 1, 0);
    cs.count_include_pad = false;
    const double go[4] = {36, 72, 108, 144};
    const double good[9] = {9, 27, 18, 36, 90, 54, 27, 63, 36};
    const double bad[9] = {4, 16, 16, 22, 70, 70, 22, 70, 70};
    double gi[9];
    init_with_fault(NULL);
    assert_int_equal(ap_call(&cs, go, gi), ACLNN_SUCCESS);
    ap_assert_values(gi, good, 9);
    init_with_fault("window-off-by-one");
    for (int det = 1; det >= 0; det--) {
        assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
        assert_int_equal(ap_call(&cs, go, gi), ACLNN_SUCCESS);
        ap_assert_values(gi, bad, 9);
    }
}

/* status: 161002 becomes success with an executor that writes nothing (gradInput keeps its
 * fill -7), 161001 becomes 161002. */
static void status(void **state)
{
    (void)state;
    init_with_fault("status");
    ap_case cs = ap_default();
    cs.pad[0] = -1;
    double gi[16];
    assert_int_equal(ap_call(&cs, NULL, gi), ACLNN_SUCCESS);
    for (int i = 0; i < 16; i++) {
        assert_true(gi[i] == -7.0);
    }
    cs = ap_default();
    cs.nulls = AP_NULL_GO;
    assert_int_equal(ap_call(&cs, NULL, NULL), ACLNN_ERR_PARAM_INVALID);
    /* A valid call still computes: 4 ones in each 2x2 window / 4 -> 0.25 (cube, HF32 exact). */
    cs = ap_default();
    const double ones[4] = {1, 1, 1, 1};
    assert_int_equal(ap_call(&cs, ones, gi), ACLNN_SUCCESS);
    for (int i = 0; i < 16; i++) {
        assert_true(gi[i] == 0.25);
    }
}

/* round-truncate reaches the op's own store path: FP16 5/9 (vector, one 3x3 window, divisor 9)
 * = 1137.78/2048 -> 1138/2048 = 0.5556640625 rounded, 1137/2048 = 0.55517578125 truncated. */
static void round_truncate(void **state)
{
    (void)state;
    ap_case cs = ap_case4(1, 1, 3, 3, 1, 1, 3, 1, 0);
    cs.count_include_pad = false;
    ap_set_dtype(&cs, ACL_FLOAT16);
    const double five = 5;
    double gi[9];
    init_with_fault("round-truncate");
    for (int det = 1; det >= 0; det--) {
        assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
        assert_int_equal(ap_call(&cs, &five, gi), ACLNN_SUCCESS);
        for (int i = 0; i < 9; i++) {
            assert_true(gi[i] == 0.55517578125);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(skip_check, teardown),
        cmocka_unit_test_teardown(window_off_by_one, teardown),
        cmocka_unit_test_teardown(status, teardown),
        cmocka_unit_test_teardown(round_truncate, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

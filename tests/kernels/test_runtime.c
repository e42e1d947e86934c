/* The emulated runtime rejects misuse the way a real runtime does: each case
 * names the rule it checks; expected codes are the CANN values of facts.md §1 / acl_base.h. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "emu.h"
#include "emu_test_util.h"

static int setup(void **state)
{
    (void)state;
    emu_test_init(NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    return 0;
}

static void expect_msg(const char *needle)
{
    const char *m = aclGetRecentErrMsg();
    assert_non_null(m);
    if (!strstr(m, needle))
        fail_msg("message '%s' lacks '%s'", m, needle);
}

static void memcpy_count_over_dest_max_fails(void **state)
{
    (void)state;
    void *dev;
    char host[64] = {0};
    assert_int_equal(aclrtMalloc(&dev, 32, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dev, 32, host, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("exceeds destMax");
    /* destMax larger than the allocation: the copy would leave device memory. */
    assert_int_equal(aclrtMemcpy(dev, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("not inside one device allocation");
    assert_int_equal(aclrtMemcpy(dev, 32, host, 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
}

static void memcpy_unknown_kind_and_wrong_direction_fail(void **state)
{
    (void)state;
    void *dev;
    char host[16] = {0};
    assert_int_equal(aclrtMalloc(&dev, 16, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(dev, 16, host, 16, (aclrtMemcpyKind)7), ACL_ERROR_INVALID_PARAM);
    expect_msg("kind 7");
    /* HOST_TO_DEVICE with the device pointer as source. */
    assert_int_equal(aclrtMemcpy(host, 16, dev, 16, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtMemcpy(NULL, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_ERROR_INVALID_PARAM);
    expect_msg("dst is a null pointer");
    assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
}

static void free_twice_and_foreign_are_reported(void **state)
{
    (void)state;
    void *dev;
    int local;
    assert_int_equal(aclrtMalloc(&dev, 100, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
    assert_int_equal(aclrtFree(dev), ACL_ERROR_INVALID_PARAM);
    expect_msg("double free");
    assert_int_equal(aclrtFree(&local), ACL_ERROR_INVALID_PARAM);
    expect_msg("foreign pointer");
    assert_int_equal(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
}

static void guard_zone_damage_is_detected(void **state)
{
    (void)state;
    void *dev;
    assert_int_equal(aclrtMalloc(&dev, 40, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(emu_check_guards(), 0);
    ((unsigned char *)dev)[40] = 0; /* one byte past the end */
    assert_int_equal(emu_check_guards(), 1);
    assert_int_equal(aclrtFree(dev), ACL_ERROR_RT_MEMORY_FREE);
    expect_msg("out-of-bounds write");
    assert_int_equal(aclrtMalloc(&dev, 40, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    ((unsigned char *)dev)[-1] = 0; /* one byte before the start */
    assert_int_equal(aclrtFree(dev), ACL_ERROR_RT_MEMORY_FREE);
}

static void malloc_rejects_bad_arguments(void **state)
{
    (void)state;
    void *dev;
    assert_int_equal(aclrtMalloc(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtMalloc(&dev, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtMalloc(&dev, 8, (aclrtMemMallocPolicy)9), ACL_ERROR_INVALID_PARAM);
    expect_msg("policy 9");
}

static void init_twice_and_unknown_soc(void **state)
{
    (void)state;
    assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
    emu_test_fini();
    assert_int_equal(aclFinalize(), ACL_ERROR_UNINITIALIZE);
    setenv("ACLCTS_SOC", "ascend123", 1);
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
    expect_msg("ascend123");
    emu_test_init(NULL);
}

/* Every switch value aclInit does not accept, and an ACLNN_EMU_* name that is no switch, fail
 * aclInit with a message naming the variable and what it accepts (kernels/README.md). Before,
 * a typo in a switch's name was ignored and ACLNN_EMU_SHUFFLE=yes was seed 0. */
static void unknown_switches_are_named(void **state)
{
    (void)state;
    static const struct { const char *var, *value, *msg; } bad[] = {
        {"ACLNN_EMU_FAULTS", "crash", "ACLNN_EMU_FAULTS is not a switch of the emulated device: "
                                      "expected ACLNN_EMU_SPEC, "},
        {"ACLNN_EMU_SHUFFLE", "yes", "ACLNN_EMU_SHUFFLE=yes is not valid: expected a whole "
                                     "number"},
        {"ACLNN_EMU_HF32_BITS", "11x", "ACLNN_EMU_HF32_BITS=11x is not valid: expected 2..24"},
        {"ACLNN_EMU_FAULT", "crash,bogus", "ACLNN_EMU_FAULT entry 'bogus' is not a fault"},
        {"ACLCTS_SOC", "ascend123", "ACLCTS_SOC=ascend123 names no product profile: expected "
                                    "ascend910, ascend910b, ascend910_93, ascend310p, ascend310b "
                                    "or ascend950"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        emu_test_fini();
        setenv(bad[i].var, bad[i].value, 1);
        assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
        expect_msg(bad[i].msg);
        unsetenv(bad[i].var);
    }
    emu_test_init(NULL);
}

/* aclrtGetSocName reports a SoC version, as real devices do (the names the vendor's code and
 * tests use: Ascend910B3, Ascend910_9391, Ascend310P3, Ascend950PR_9599, ...): a profile id gives
 * its default version, a SoC version in ACLCTS_SOC picks the profile and is reported as given. */
static void soc_name_follows_profile(void **state)
{
    (void)state;
    const char *ids[] = {"ascend910", "ascend910b", "ascend910_93", "ascend310p", "ascend310b",
                         "ascend950"};
    const char *socs[] = {"Ascend910A", "Ascend910B3", "Ascend910_9391", "Ascend310P3",
                          "Ascend310B1", "Ascend950PR_9599"};
    for (int i = 0; i < 6; i++) {
        emu_test_init(ids[i]);
        assert_string_equal(aclrtGetSocName(), socs[i]);
        assert_string_equal(emu_profile_current()->id, ids[i]);
    }
    const char *versions[] = {"Ascend910B1", "Ascend910_9362", "Ascend310P1", "Ascend950DT_9591",
                              "Ascend910ProB"};
    const char *profile[] = {"ascend910b", "ascend910_93", "ascend310p", "ascend950",
                             "ascend910"};
    for (int i = 0; i < 5; i++) {
        emu_test_init(versions[i]);
        assert_string_equal(aclrtGetSocName(), versions[i]);
        assert_string_equal(emu_profile_current()->id, profile[i]);
    }
    emu_test_init(NULL);
    assert_string_equal(aclrtGetSocName(), "Ascend910B3"); /* default profile */
}

static void deterministic_option_round_trips(void **state)
{
    (void)state;
    int64_t v = -1;
    /* Never set: the runtime's 107021 (rt_error_codes.h), and non-deterministic as the
     * documents say (the vendor's grid sampler reads a failed get as 0). */
    assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
    assert_int_equal(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, 107021);
    assert_false(emu_deterministic());
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_SUCCESS);
    assert_int_equal(v, 1);
    assert_true(emu_deterministic());
    /* acl_base_rt.h: 2 strong consistency, 3 batch consistency, both deterministic. */
    for (int64_t k = 2; k <= 3; k++) {
        assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, k), ACL_SUCCESS);
        assert_true(emu_deterministic());
    }
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);
    /* Context calls take options 0..2, process calls 0..3 (runtime context.cpp). */
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_STRONG_CONSISTENCY, 0), ACL_SUCCESS);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1),
                     ACL_ERROR_INVALID_PARAM);
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
    assert_int_equal(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v), ACL_SUCCESS);
    assert_int_equal(v, 1);
    /* The context's setting wins over the process's. */
    assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
    assert_false(emu_deterministic());
    /* aclFinalize forgets every option. */
    emu_test_init(NULL);
    assert_int_equal(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
}

static void handles_destroyed_twice_are_reported(void **state)
{
    (void)state;
    int64_t dims[2] = {2, 3}, vals[2] = {1, 2};
    bool mask[2] = {true, false};
    aclTensor *t = aclCreateTensor(dims, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL);
    assert_non_null(t);
    assert_int_equal(aclDestroyTensor(t), ACLNN_SUCCESS);
    assert_int_equal(aclDestroyTensor(t), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclDestroyTensor(NULL), ACLNN_ERR_PARAM_NULLPTR);
    aclIntArray *a = aclCreateIntArray(vals, 2);
    assert_int_equal(aclDestroyIntArray(a), ACLNN_SUCCESS);
    assert_int_equal(aclDestroyIntArray(a), ACLNN_ERR_PARAM_INVALID);
    aclBoolArray *b = aclCreateBoolArray(mask, 2);
    /* a bool array is not an int array */
    assert_int_equal(aclDestroyIntArray((const aclIntArray *)b), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclDestroyBoolArray(b), ACLNN_SUCCESS);
    assert_null(aclCreateIntArray(NULL, 3));
    assert_null(aclCreateTensor(dims, 9, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 2, NULL));
    expect_msg("at most 8");
}

/* aclDestroyAclOpExecutor frees an executor that will not run; aclnnInit/aclnnFinalize are
 * accepted around the runtime's calls. */
static void executor_destroyed_without_running(void **state)
{
    (void)state;
    assert_int_equal(aclnnInit(NULL), ACLNN_SUCCESS);
    aclOpExecutor *e = emu_executor_new("test", 0, NULL, NULL, NULL);
    assert_non_null(e);
    assert_int_equal(aclDestroyAclOpExecutor(e), ACLNN_SUCCESS);
    assert_int_equal(aclDestroyAclOpExecutor(e), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(aclDestroyAclOpExecutor(NULL), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnFinalize(), ACLNN_SUCCESS);
}

static void second_phase_rejects_foreign_executor(void **state)
{
    (void)state;
    aclOpExecutor *fake = (aclOpExecutor *)&state;
    assert_int_equal(aclnnAvgPool2dBackward(NULL, 0, NULL, NULL), ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnAvgPool2dBackward(NULL, 0, fake, NULL), ACLNN_ERR_PARAM_INVALID);
    expect_msg("did not come from a first phase");
}

/* Fresh device memory reads as 0xcd wherever nothing was copied into it (a real device's is
 * not zeroed; kernels/runtime/memory.c), however the copies before the read covered it. */
static bool all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return false;
    return true;
}

static void fresh_memory_reads_as_0xcd(void **state)
{
    (void)state;
    enum { N = 3 << 20 }; /* past the size whose pages aclrtMalloc makes present at once */
    unsigned char *host = malloc(N), *back = malloc(N);
    assert_non_null(host);
    assert_non_null(back);
    memset(host, 0x11, N);
    void *a, *b, *c, *d;
    assert_int_equal(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&c, N, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    /* a: nothing copied in */
    assert_int_equal(aclrtMemcpy(back, N, a, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(all_bytes(back, N, 0xcd));
    /* b: two copies continuing from its start, then a read past them */
    assert_int_equal(aclrtMemcpy(b, N, host, 1000, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy((char *)b + 1000, N - 1000, host, N / 2,
                                 ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(all_bytes(back, 1000 + N / 2, 0x11));
    assert_true(all_bytes(back + 1000 + N / 2, N - 1000 - N / 2, 0xcd));
    /* c: a copy leaving a gap at the start, and a device-to-device copy out of that gap */
    assert_int_equal(aclrtMemcpy((char *)c + 100, N - 100, host, 50, ACL_MEMCPY_HOST_TO_DEVICE),
                     ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(d, 64, c, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
    assert_int_equal(aclrtMemcpy(back, N, c, N, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(all_bytes(back, 100, 0xcd));
    assert_true(all_bytes(back + 100, 50, 0x11));
    assert_true(all_bytes(back + 150, N - 150, 0xcd));
    assert_int_equal(aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
    assert_true(all_bytes(back, 64, 0xcd));
    assert_int_equal(aclrtFree(a), ACL_SUCCESS);
    assert_int_equal(aclrtFree(b), ACL_SUCCESS);
    assert_int_equal(aclrtFree(c), ACL_SUCCESS);
    assert_int_equal(aclrtFree(d), ACL_SUCCESS);
    free(host);
    free(back);
}

/* A kernel sees 0xcd in device memory nothing was copied into: its workspace here. */
static unsigned char seen_by_kernel[256];

static aclnnStatus read_workspace(aclOpExecutor *e, void *workspace)
{
    (void)e;
    memcpy(seen_by_kernel, workspace, sizeof seen_by_kernel);
    return ACLNN_SUCCESS;
}

static void kernel_reads_fresh_memory_as_0xcd(void **state)
{
    (void)state;
    void *ws;
    assert_int_equal(aclrtMalloc(&ws, 2 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclOpExecutor *e = emu_executor_new("test", 2 << 20, read_workspace, NULL, NULL);
    assert_non_null(e);
    memset(seen_by_kernel, 0, sizeof seen_by_kernel);
    assert_int_equal(emu_executor_launch("test", ws, 2 << 20, e, NULL), ACLNN_SUCCESS);
    assert_true(all_bytes(seen_by_kernel, sizeof seen_by_kernel, 0xcd));
    assert_int_equal(aclrtFree(ws), ACL_SUCCESS);
}

static void error_message_is_read_once(void **state)
{
    (void)state;
    assert_int_equal(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    assert_non_null(aclGetRecentErrMsg());
    assert_null(aclGetRecentErrMsg());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memcpy_count_over_dest_max_fails),
        cmocka_unit_test(memcpy_unknown_kind_and_wrong_direction_fail),
        cmocka_unit_test(free_twice_and_foreign_are_reported),
        cmocka_unit_test(guard_zone_damage_is_detected),
        cmocka_unit_test(malloc_rejects_bad_arguments),
        cmocka_unit_test(init_twice_and_unknown_soc),
        cmocka_unit_test(soc_name_follows_profile),
        cmocka_unit_test(executor_destroyed_without_running),
        cmocka_unit_test(deterministic_option_round_trips),
        cmocka_unit_test(handles_destroyed_twice_are_reported),
        cmocka_unit_test(second_phase_rejects_foreign_executor),
        cmocka_unit_test(error_message_is_read_once),
        cmocka_unit_test(fresh_memory_reads_as_0xcd),
        cmocka_unit_test(kernel_reads_fresh_memory_as_0xcd),
        cmocka_unit_test(unknown_switches_are_named),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* The generic faults of the shared second phase (kernels/README.md) each change exactly what
 * they claim. The problem: avg-pool backward, self [1,1,4,4] FP16, kernel 2, stride 2, no
 * padding, countIncludePad false (the vector path on ascend910b: g/div in FP32, one rounding,
 * docs/contract.md), so gradOutput is [1,1,2,2] and each input cell gets g/4 from its window
 * (facts.md §4): g = [1,2,3,4] gives rows [.25 .25 .5 .5] x2 and [.75 .75 1 1] x2. */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "emu.h"
#include "emu_test_util.h"

typedef struct {
    void *go_dev, *self_dev, *gi_dev;
    aclTensor *go, *self, *gi;
    aclIntArray *k, *s, *p;
} problem;

static const int64_t GO_DIMS[4] = {1, 1, 2, 2}, X_DIMS[4] = {1, 1, 4, 4};

/* gradInput's buffer holds 16 + 4 spare elements (fill 7) so a write past the view shows. */
static void setup_problem(problem *pr, const double *g, int64_t divisor, aclOpExecutor **ex,
                          uint64_t *ws)
{
    double ones[16];
    for (int i = 0; i < 16; i++)
        ones[i] = 1.0;
    const int64_t strides[4] = {16, 16, 4, 1}, two[2] = {2, 2}, zero[2] = {0, 0};
    pr->go = emu_test_tensor(g, GO_DIMS, 4, ACL_FLOAT16, ACL_FORMAT_NCHW, &pr->go_dev);
    pr->self = emu_test_tensor(ones, X_DIMS, 4, ACL_FLOAT16, ACL_FORMAT_NCHW, &pr->self_dev);
    pr->gi = emu_test_tensor_view(NULL, X_DIMS, 4, strides, 0, 20, 7.0, ACL_FLOAT16,
                                  ACL_FORMAT_NCHW, &pr->gi_dev);
    pr->k = aclCreateIntArray(two, 2);
    pr->s = aclCreateIntArray(two, 2);
    pr->p = aclCreateIntArray(zero, 2);
    assert_int_equal(aclnnAvgPool2dBackwardGetWorkspaceSize(pr->go, pr->self, pr->k, pr->s,
                                                            pr->p, false, false, divisor, 0,
                                                            pr->gi, ws, ex),
                     ACLNN_SUCCESS);
}

static void free_problem(problem *pr)
{
    aclDestroyTensor(pr->go);
    aclDestroyTensor(pr->self);
    aclDestroyTensor(pr->gi);
    aclDestroyIntArray(pr->k);
    aclDestroyIntArray(pr->s);
    aclDestroyIntArray(pr->p);
    aclrtFree(pr->go_dev);
    aclrtFree(pr->self_dev);
    aclrtFree(pr->gi_dev);
}

/* Runs the problem with ACLNN_EMU_FAULT=fault; out gets the 20 gradInput buffer elements and
 * go_after the gradOutput values after the call. Returns the second phase's status. */
static aclnnStatus run_with_fault(const char *fault, const double *g, int64_t divisor,
                                  double *out, double *go_after)
{
    if (fault)
        setenv("ACLNN_EMU_FAULT", fault, 1);
    else
        unsetenv("ACLNN_EMU_FAULT");
    emu_test_init("ascend910b");
    problem pr;
    aclOpExecutor *ex;
    uint64_t ws;
    setup_problem(&pr, g, divisor, &ex, &ws);
    void *wsp = NULL;
    if (ws)
        assert_int_equal(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclnnStatus rc = aclnnAvgPool2dBackward(wsp, ws, ex, NULL);
    int64_t flat_dims[1] = {20};
    aclTensor *flat = aclCreateTensor(flat_dims, 1, ACL_FLOAT16, NULL, 0, ACL_FORMAT_ND,
                                      flat_dims, 1, pr.gi_dev);
    if (out)
        emu_test_read(flat, out);
    if (go_after)
        emu_test_read(pr.go, go_after);
    aclDestroyTensor(flat);
    if (wsp)
        aclrtFree(wsp);
    free_problem(&pr);
    unsetenv("ACLNN_EMU_FAULT");
    emu_test_fini();
    return rc;
}

static const double G[4] = {1, 2, 3, 4};

/* crash, hang and leak run in a child before the parent uses OpenMP (fork after OpenMP is
 * unsafe). */
static void crash_raises_sigsegv(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* cmocka's handler would catch it in the child */
        run_with_fault("crash", G, 0, NULL, NULL);
        _exit(0);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSEGV);
}

static void hang_never_returns(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        run_with_fault("hang", G, 0, NULL, NULL);
        _exit(0);
    }
    int st;
    usleep(1500 * 1000);
    assert_int_equal(waitpid(pid, &st, WNOHANG), 0); /* still running after 1.5 s */
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &st, 0), pid);
}

static void faithful_run_matches_hand_values(void **state)
{
    (void)state;
    double out[20];
    assert_int_equal(run_with_fault(NULL, G, 0, out, NULL), ACLNN_SUCCESS);
    const double want[16] = {.25, .25, .5, .5, .25, .25, .5, .5, .75, .75, 1, 1, .75, .75, 1, 1};
    for (int i = 0; i < 16; i++)
        assert_true(out[i] == want[i]);
    for (int i = 16; i < 20; i++)
        assert_true(out[i] == 7.0); /* untouched spare */
}

static void ulp_moves_every_third_element(void **state)
{
    (void)state;
    double out[20];
    assert_int_equal(run_with_fault("ulp:2", G, 0, out, NULL), ACLNN_SUCCESS);
    /* FP16 ULP of 0.25 is 2^-12, of 0.5 is 2^-11, of 0.75 is 2^-11, of 1 is 2^-10. */
    assert_true(out[0] == 0.25 + 2 * 0x1p-12);
    assert_true(out[1] == 0.25);
    assert_true(out[3] == 0.5 + 2 * 0x1p-11);
    assert_true(out[15] == 1.0 + 2 * 0x1p-10);
}

static void oob_write_lands_past_the_view(void **state)
{
    (void)state;
    double out[20];
    assert_int_equal(run_with_fault("oob-write", G, 0, out, NULL), ACLNN_SUCCESS);
    assert_true(out[15] == 1.0);  /* the view itself is right */
    assert_true(out[16] != 7.0);  /* the element just past it is not */
    assert_true(out[17] == 7.0);
}

static void mutate_input_changes_grad_output(void **state)
{
    (void)state;
    double go[4];
    assert_int_equal(run_with_fault("mutate-input", G, 0, NULL, go), ACLNN_SUCCESS);
    assert_true(go[0] != 1.0);
    assert_true(go[1] == 2.0);
}

static void round_truncate_rounds_toward_zero(void **state)
{
    (void)state;
    /* divisorOverride 5: cell values g/5. 3/5 = 0.6 in FP32 lies above the FP16 midpoint
     * between 0x38cc (0.599609375) and 0x38cd (0.60009765625): nearest-even gives 0x38cd,
     * truncation 0x38cc (checked: numpy float16(float32(3)/5) = 0x38cd). */
    double ok[20], bad[20];
    assert_int_equal(run_with_fault(NULL, G, 5, ok, NULL), ACLNN_SUCCESS);
    assert_int_equal(run_with_fault("round-truncate", G, 5, bad, NULL), ACLNN_SUCCESS);
    assert_true(ok[8] == 0.60009765625);
    assert_true(bad[8] == 0.599609375);
}

/* Runs in a child that ends with _exit, so the deliberate leak does not trip LeakSanitizer in
 * the asan preset; like crash and hang it runs before the parent uses OpenMP. */
static void leak_keeps_device_memory(void **state)
{
    (void)state;
    pid_t pid = fork();
    if (pid == 0) {
        setenv("ACLNN_EMU_FAULT", "leak", 1);
        emu_test_init("ascend910b");
        problem pr;
        aclOpExecutor *ex;
        uint64_t ws;
        setup_problem(&pr, G, 0, &ex, &ws);
        void *wsp = NULL;
        if (ws && aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            _exit(2);
        size_t before = emu_live_device_bytes();
        if (aclnnAvgPool2dBackward(wsp, ws, ex, NULL) != ACLNN_SUCCESS)
            _exit(3);
        _exit(emu_live_device_bytes() == before + 4096 ? 0 : 4);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void ignore_deterministic_and_status_mapping(void **state)
{
    (void)state;
    setenv("ACLNN_EMU_FAULT", "ignore-deterministic,status", 1);
    emu_test_init(NULL);
    assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    assert_false(emu_deterministic());
    assert_int_equal(emu_fault_status(ACLNN_ERR_PARAM_NULLPTR), ACLNN_ERR_PARAM_INVALID);
    assert_int_equal(emu_fault_status(ACLNN_ERR_PARAM_INVALID), ACLNN_SUCCESS);
    assert_int_equal(emu_fault_status(ACLNN_SUCCESS), ACLNN_SUCCESS);
    unsetenv("ACLNN_EMU_FAULT");
    emu_test_init(NULL);
    assert_int_equal(emu_fault_status(ACLNN_ERR_PARAM_INVALID), ACLNN_ERR_PARAM_INVALID);
    setenv("ACLNN_EMU_FAULT", "nonsense", 1);
    emu_test_fini();
    assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM); /* unknown fault names fail */
    unsetenv("ACLNN_EMU_FAULT");
}

/* The batch stride the kernels use for a 2x3x4x5 FLOAT view with these strides, on a runtime
 * initialised with ACLNN_EMU_FAULT = fault (NULL: none). */
static int64_t batch_stride_under(const char *fault, const int64_t strides[4], int64_t storage)
{
    const int64_t dims[4] = {2, 3, 4, 5};
    if (fault) setenv("ACLNN_EMU_FAULT", fault, 1);
    else unsetenv("ACLNN_EMU_FAULT");
    emu_test_init(NULL);
    void *dev;
    aclTensor *t = emu_test_tensor_view(NULL, dims, 4, strides, 0, storage, 0.0, ACL_FLOAT,
                                        ACL_FORMAT_NCHW, &dev);
    int64_t s = emu_batch_stride(t);
    aclDestroyTensor(t);
    aclrtFree(dev);
    unsetenv("ACLNN_EMU_FAULT");
    return s;
}

/* dense-batch: a view dense but for its batch stride (63 = 3*4*5 + 3) is walked with the dense
 * stride 60; a view with a gap inside (W stride 2) keeps its own, and so does every view
 * without the fault. */
static void dense_batch_takes_the_dense_batch_stride(void **state)
{
    (void)state;
    const int64_t padded[4] = {63, 20, 5, 1}, gaps[4] = {120, 40, 10, 2};
    assert_int_equal(batch_stride_under(NULL, padded, 126), 63);
    assert_int_equal(batch_stride_under("dense-batch", padded, 126), 60);
    assert_int_equal(batch_stride_under("dense-batch", gaps, 240), 120);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crash_raises_sigsegv),
        cmocka_unit_test(hang_never_returns),
        cmocka_unit_test(leak_keeps_device_memory),
        cmocka_unit_test(faithful_run_matches_hand_values),
        cmocka_unit_test(ulp_moves_every_third_element),
        cmocka_unit_test(oob_write_lands_past_the_view),
        cmocka_unit_test(mutate_input_changes_grad_output),
        cmocka_unit_test(round_truncate_rounds_toward_zero),
        cmocka_unit_test(ignore_deterministic_and_status_mapping),
        cmocka_unit_test(dense_batch_takes_the_dense_batch_stride),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

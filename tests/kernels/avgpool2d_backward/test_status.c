/* aclnnAvgPool2dBackward first-phase statuses: every row of the document's error table
 * (spec/000_*.txt), facts §3, and the choices of docs/contract.md, per product and per spec
 * switch. Expected codes come from those documents: 161001 null, 161002 invalid. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "call.h"

#define NULLPTR ACLNN_ERR_PARAM_NULLPTR
#define INVALID ACLNN_ERR_PARAM_INVALID

static const char *const SUPPORTING[] = {"ascend910", "ascend910b", "ascend910_93", "ascend310p",
                                         "ascend950"};
#define N_SUPPORTING 5

static void expect(const ap_case *cs, aclnnStatus want)
{
    assert_int_equal(ap_call(cs, NULL, NULL), want);
}

/* The message must name the argument (or rule word) given. */
static void expect_msg(const ap_case *cs, aclnnStatus want, const char *word)
{
    assert_int_equal(ap_call(cs, NULL, NULL), want);
    const char *msg = aclGetRecentErrMsg();
    assert_non_null(msg);
    if (strstr(msg, word) == NULL) {
        fail_msg("message '%s' does not name '%s'", msg, word);
    }
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    unsetenv("ACLNN_EMU_SPEC");
    unsetenv("ACLNN_EMU_EMPTY_TENSOR");
    unsetenv("ACLNN_EMU_EMPTY_STRIDE");
    unsetenv("ACLNN_EMU_CUBE_MATH_CODE");
    return 0;
}

/* Table row "gradOutput, self, kernelSize, padding, or gradInput is a null pointer". */
static void null_arguments(void **state)
{
    (void)state;
    const struct {
        unsigned bit;
        const char *name;
    } rows[] = {{AP_NULL_GO, "gradOutput"}, {AP_NULL_SELF, "self"}, {AP_NULL_KERNEL, "kernelSize"},
                {AP_NULL_PAD, "padding"},   {AP_NULL_GI, "gradInput"},
                {AP_NULL_WS_SIZE, "workspaceSize"}, {AP_NULL_EXECUTOR, "executor"}};
    for (int p = 0; p < N_SUPPORTING; p++) {
        emu_test_init(SUPPORTING[p]);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
            ap_case cs = ap_default();
            cs.nulls = rows[i].bit;
            expect_msg(&cs, NULLPTR, rows[i].name);
        }
        /* Null beats every later check: a null gradInput with a bad dtype elsewhere. */
        ap_case cs = ap_default();
        cs.nulls = AP_NULL_GI;
        cs.dt[AP_GO] = ACL_INT32;
        expect(&cs, NULLPTR);
    }
}

/* facts §3: a null stride is accepted and means stride = kernel. Kernel 2 on [1,1,4,4] with
 * stride 2 gives gradOutput [1,1,2,2], so the default case with a null stride succeeds, and a
 * gradOutput sized for stride 1 ([1,1,3,3]) is rejected. */
static void null_stride_is_kernel(void **state)
{
    (void)state;
    emu_test_init(NULL);
    ap_case cs = ap_default();
    cs.nulls = AP_NULL_STRIDE;
    expect(&cs, ACLNN_SUCCESS);
    cs = ap_case4(1, 1, 4, 4, 3, 3, 2, 1, 0);
    cs.nulls = AP_NULL_STRIDE;
    expect(&cs, INVALID);
}

/* facts §2: ascend310b (Atlas 200I/500 A2) marks the op x -> 161002 naming the product. */
static void unsupported_product(void **state)
{
    (void)state;
    emu_test_init("ascend310b");
    ap_case cs = ap_default();
    expect_msg(&cs, INVALID, "Atlas 200I/500 A2");
    for (int p = 0; p < N_SUPPORTING; p++) {
        emu_test_init(SUPPORTING[p]);
        expect(&cs, ACLNN_SUCCESS);
    }
}

/* Rows "data type ... not within the supported range" and "self and gradInput inconsistent":
 * FLOAT, FLOAT16 everywhere; BF16 only on 910b, 910_93, 950; all three dtypes equal. */
static void dtypes(void **state)
{
    (void)state;
    const bool bf16_ok[N_SUPPORTING] = {false, true, true, false, true};
    for (int p = 0; p < N_SUPPORTING; p++) {
        emu_test_init(SUPPORTING[p]);
        ap_case cs = ap_default();
        ap_set_dtype(&cs, ACL_FLOAT16);
        expect(&cs, ACLNN_SUCCESS);
        ap_set_dtype(&cs, ACL_BF16);
        cs.cube_math = 1; /* legal with BF16 everywhere BF16 is */
        expect(&cs, bf16_ok[p] ? ACLNN_SUCCESS : INVALID);
        const aclDataType bad[] = {ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT8, ACL_BOOL};
        for (size_t d = 0; d < sizeof bad / sizeof bad[0]; d++) {
            for (int which = 0; which < 3; which++) {
                cs = ap_default();
                cs.dt[which] = bad[d];
                expect(&cs, INVALID);
            }
        }
        cs = ap_default();
        cs.dt[AP_GO] = ACL_FLOAT16;
        expect_msg(&cs, INVALID, "gradOutput is FLOAT16 while gradInput is FLOAT");
        cs = ap_default();
        cs.dt[AP_SELF] = ACL_FLOAT16;
        expect_msg(&cs, INVALID, "self is FLOAT16 while gradInput is FLOAT");
        cs = ap_default();
        cs.dt[AP_GI] = ACL_FLOAT16;
        expect(&cs, INVALID);
    }
}

/* Row "data format not within the supported range": NCHW or NCL for each tensor; format and rank
 * are not cross-checked (contract, derived), so NCL on 4-D tensors is accepted. */
static void formats(void **state)
{
    (void)state;
    emu_test_init(NULL);
    const aclFormat bad[] = {ACL_FORMAT_ND, ACL_FORMAT_NHWC, ACL_FORMAT_NC1HWC0};
    for (size_t f = 0; f < sizeof bad / sizeof bad[0]; f++) {
        for (int which = 0; which < 3; which++) {
            ap_case cs = ap_default();
            cs.fmt[which] = bad[f];
            expect_msg(&cs, INVALID, "format");
        }
    }
    ap_case cs = ap_default();
    cs.fmt[0] = cs.fmt[1] = cs.fmt[2] = ACL_FORMAT_NCL;
    expect(&cs, ACLNN_SUCCESS);
    /* dtype (check 3) is reported before format (check 4). */
    cs = ap_default();
    cs.fmt[AP_GO] = ACL_FORMAT_ND;
    cs.dt[AP_SELF] = ACL_INT32;
    expect_msg(&cs, INVALID, "INT32");
}

/* Row "dimension of gradOutput, self or gradInput not within the supported range": rank 3 or
 * 4 each, and the three equal. */
static void ranks(void **state)
{
    (void)state;
    emu_test_init(NULL);
    for (int which = 0; which < 3; which++) {
        ap_case cs = ap_default();
        cs.ndim[which] = 2; /* the first two dims of the 4-D shape */
        expect(&cs, INVALID);
        cs = ap_default();
        cs.ndim[which] = 5;
        expect(&cs, INVALID);
        /* Rank 3 on one tensor only: ranks differ. */
        cs = ap_default();
        cs.ndim[which] = 3;
        cs.dims[which][0] = cs.dims[which][1];
        cs.dims[which][1] = cs.dims[which][2];
        cs.dims[which][2] = cs.dims[which][3];
        expect_msg(&cs, INVALID, "dims");
    }
}

/* Rows on kernelSize, stride, padding (length and values) and "padding exceeds 1/2 of the
 * kernel" (the document's example: paddingH = 2, kernelH = 2). */
static void parameter_values(void **state)
{
    (void)state;
    emu_test_init(NULL);
    ap_case cs = ap_default();
    cs.nkernel = 0;
    expect_msg(&cs, INVALID, "kernelSize");
    cs = ap_default();
    cs.nkernel = 3;
    cs.kernel[1] = cs.kernel[2] = 2;
    expect_msg(&cs, INVALID, "kernelSize");
    cs = ap_default();
    cs.kernel[0] = 0;
    expect_msg(&cs, INVALID, "kernelSize");
    cs = ap_default();
    cs.kernel[0] = -2;
    expect(&cs, INVALID);
    cs = ap_default();
    cs.nstride = 3;
    cs.stride[1] = cs.stride[2] = 2;
    expect_msg(&cs, INVALID, "stride");
    cs = ap_default();
    cs.stride[0] = 0;
    expect_msg(&cs, INVALID, "stride");
    cs = ap_default();
    cs.stride[0] = -1;
    expect(&cs, INVALID);
    cs = ap_default();
    cs.npad = 0; /* facts §3: empty padding -> 161002 */
    expect_msg(&cs, INVALID, "padding");
    cs = ap_default();
    cs.npad = 3;
    expect(&cs, INVALID);
    cs = ap_default();
    cs.pad[0] = -1;
    expect_msg(&cs, INVALID, "padding");
    /* Kernel 2, padding 2: 2*2 > 2. Output size would be 4 on [1,1,4,4]. */
    cs = ap_case4(1, 1, 4, 4, 4, 4, 2, 2, 2);
    expect_msg(&cs, INVALID, "half the kernel");
    /* Kernel 2, padding 1: 2*1 = 2 is allowed; out = (4+2-2)/2+1 = 3. */
    cs = ap_case4(1, 1, 4, 4, 3, 3, 2, 2, 1);
    expect(&cs, ACLNN_SUCCESS);
    /* Kernel 3, padding 2: 2*2 > 3. */
    cs = ap_case4(1, 1, 4, 4, 3, 3, 3, 2, 2);
    expect(&cs, INVALID);
    /* Per-axis: kernel (4, 2), padding (2, 1) is fine; padding (1, 2) breaks W. */
    cs = ap_case4(1, 1, 4, 4, 3, 3, 4, 2, 2);
    cs.nkernel = cs.npad = 2;
    cs.kernel[1] = 2;
    cs.pad[1] = 1;
    expect(&cs, ACLNN_SUCCESS); /* H: (4+4-4)/2+1 = 3, W: (4+2-2)/2+1 = 3 */
    cs.pad[0] = 1;
    cs.pad[1] = 2;
    expect_msg(&cs, INVALID, "paddingW");
}

/* Under a vendor contract gradOutput's H, W are free, but the lowering computes
 * (H - 1) * stride + kernel in int64 (ops-nn v9.0.0 aclnn_avgpool2d_backward.cpp:610-611): where
 * that overflows, 161002 (docs/contract.md A13, derived). A fuzz finding: the window arithmetic
 * overflowed in the emulation before. A stride just small enough is a valid call. */
static void vendor_window_overflow(void **state)
{
    (void)state;
    setenv("ACLNN_EMU_SPEC", "vendor", 1);
    emu_test_init(NULL);
    ap_case cs = ap_case4(1, 1, 4, 4, 3, 2, 2, INT64_C(1) << 62, 0); /* 2 * 2^62 + 2 overflows */
    expect_msg(&cs, INVALID, "int64");
    cs.stride[0] = (INT64_MAX - 2) / 2; /* 2 * s + 2 <= INT64_MAX */
    expect(&cs, ACLNN_SUCCESS);
    unsetenv("ACLNN_EMU_SPEC");
    emu_test_init(NULL);
}

/* Stride of length 0: 161002 under `doc`, stride = kernel under `vendor` (facts §3) and under
 * ACLNN_EMU_EMPTY_STRIDE=kernel alone. */
static void empty_stride_switch(void **state)
{
    (void)state;
    ap_case cs = ap_default();
    cs.nstride = 0;
    emu_test_init(NULL);
    expect(&cs, INVALID);
    setenv("ACLNN_EMU_SPEC", "vendor", 1);
    emu_test_init(NULL);
    expect(&cs, ACLNN_SUCCESS);
    unsetenv("ACLNN_EMU_SPEC");
    setenv("ACLNN_EMU_EMPTY_STRIDE", "kernel", 1);
    emu_test_init(NULL);
    expect(&cs, ACLNN_SUCCESS);
    unsetenv("ACLNN_EMU_EMPTY_STRIDE");
}

/* Row "divisorOverride not within the supported range; does not apply to Ascend 950":
 * [-255, 255] on ascend910 and ascend310p only. */
static void divisor_range(void **state)
{
    (void)state;
    const bool checked[N_SUPPORTING] = {true, false, false, true, false};
    const int64_t values[] = {256, -256, 100000};
    for (int p = 0; p < N_SUPPORTING; p++) {
        emu_test_init(SUPPORTING[p]);
        ap_case cs = ap_default();
        for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
            cs.divisor = values[v];
            if (checked[p]) {
                expect_msg(&cs, INVALID, "divisorOverride");
            } else {
                expect(&cs, ACLNN_SUCCESS);
            }
        }
        cs.divisor = 255;
        expect(&cs, ACLNN_SUCCESS);
        cs.divisor = -255;
        expect(&cs, ACLNN_SUCCESS);
    }
}

/* Rows "dimension value less than 0" and the shape rules of the contract. */
static void shapes(void **state)
{
    (void)state;
    emu_test_init(NULL);
    for (int which = 0; which < 3; which++) {
        ap_case cs = ap_default();
        cs.dims[which][1] = -1;
        expect_msg(&cs, INVALID, "negative");
    }
    ap_case cs = ap_default();
    cs.dims[AP_GI][3] = 5; /* self [1,1,4,4] vs gradInput [1,1,4,5] */
    expect_msg(&cs, INVALID, "gradInput");
    cs = ap_default();
    cs.dims[AP_GO][1] = 2; /* channel differs from self's */
    expect_msg(&cs, INVALID, "gradOutput");
    cs = ap_default();
    cs.dims[AP_GO][0] = 2;
    expect(&cs, INVALID);
    cs = ap_default();
    cs.dims[AP_GO][2] = 3; /* (4-2)/2+1 = 2, not 3 */
    expect(&cs, INVALID);
    /* Kernel 3 on a 1x1 input: (1-3)/1+1 = -1 < 1. */
    cs = ap_case4(1, 1, 1, 1, 1, 1, 3, 1, 0);
    expect_msg(&cs, INVALID, "forward output size");
    /* ceil mode (facts §4): in 4, k 2, s 3 -> floor((4-2+2)/3)+1 = 2 ((2-1)*3 = 3 < 4 keeps
     * it); floor mode gives (4-2)/3+1 = 1. */
    cs = ap_case4(1, 1, 4, 4, 2, 2, 2, 3, 0);
    cs.ceil_mode = true;
    expect(&cs, ACLNN_SUCCESS);
    cs.ceil_mode = false;
    expect(&cs, INVALID);
    cs.dims[AP_GO][2] = cs.dims[AP_GO][3] = 1;
    expect(&cs, ACLNN_SUCCESS);
    /* ceil drops the last window: in 5, k 3, s 3, p 1 -> floor((5+2-3+2)/3)+1 = 3, and
     * (3-1)*3 = 6 >= 5+1, so 2. */
    cs = ap_case4(1, 1, 5, 5, 3, 3, 3, 3, 1);
    cs.ceil_mode = true;
    expect(&cs, INVALID);
    cs.dims[AP_GO][2] = cs.dims[AP_GO][3] = 2;
    expect(&cs, ACLNN_SUCCESS);
    /* 3-D (C, H, W): leading dim C must match. */
    cs = ap_default();
    for (int i = 0; i < 3; i++) {
        cs.ndim[i] = 3;
        cs.fmt[i] = ACL_FORMAT_NCL;
        memmove(cs.dims[i], cs.dims[i] + 1, 3 * sizeof(int64_t));
    }
    expect(&cs, ACLNN_SUCCESS);
    cs.dims[AP_GO][0] = 3;
    expect(&cs, INVALID);
}

/* Empty tensors: the document says unsupported (161002, `doc`); the vendor code succeeds with
 * workspace 0 (facts §3; `vendor` and ACLNN_EMU_EMPTY_TENSOR=success). */
static void empty_tensors(void **state)
{
    (void)state;
    ap_case batch0 = ap_case4(0, 1, 4, 4, 2, 2, 2, 2, 0);
    ap_case height0 = ap_case4(1, 1, 0, 4, 0, 2, 2, 2, 0); /* (0-2)/2+1 = 0 */
    emu_test_init(NULL);
    expect_msg(&batch0, INVALID, "empty");
    expect(&height0, INVALID);
    const char *vars[2] = {"ACLNN_EMU_SPEC", "ACLNN_EMU_EMPTY_TENSOR"};
    const char *vals[2] = {"vendor", "success"};
    for (int v = 0; v < 2; v++) {
        setenv(vars[v], vals[v], 1);
        emu_test_init(NULL);
        uint64_t ws = 99;
        assert_int_equal(ap_call_ws(&batch0, NULL, 0.0, NULL, &ws), ACLNN_SUCCESS);
        assert_int_equal(ws, 0);
        ws = 99;
        assert_int_equal(ap_call_ws(&height0, NULL, 0.0, NULL, &ws), ACLNN_SUCCESS);
        assert_int_equal(ws, 0);
        /* The empty rule comes after the shape rules: a wrong gradOutput is still 161002 under
         * the single switch; the vendor code never derives gradOutput's H, W (ops-nn v9.0.0
         * aclnn_avgpool2d_backward.cpp:459-478), so there it is an empty success (:1159). */
        ap_case bad = batch0;
        bad.dims[AP_GO][2] = 3;
        expect(&bad, v == 0 ? ACLNN_SUCCESS : INVALID);
        unsetenv(vars[v]);
    }
}

/* cubeMathType outside 0..3: 161002 (`doc`, `vendor`), 161001 (`vendor-old`,
 * ACLNN_EMU_CUBE_MATH_CODE=161001). The range check is the last one. */
static void cube_math_range(void **state)
{
    (void)state;
    const int8_t bad[] = {-1, 4, 127, -128};
    const char *specs[3] = {"doc", "vendor", "vendor-old"};
    const aclnnStatus want[3] = {INVALID, INVALID, NULLPTR};
    for (int s = 0; s < 3; s++) {
        setenv("ACLNN_EMU_SPEC", specs[s], 1);
        for (int p = 0; p < N_SUPPORTING; p++) {
            emu_test_init(SUPPORTING[p]);
            ap_case cs = ap_default();
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                cs.cube_math = bad[b];
                expect_msg(&cs, want[s], "cubeMathType");
            }
            /* An earlier failing check decides: negative padding with cubeMathType 4 under
             * `doc`; the vendor code checks the padding's sign after the range (ops-nn v9.0.0
             * aclnn_avgpool2d_backward.cpp:475 before :85), so there the range decides. */
            cs.pad[0] = -1;
            expect(&cs, s == 0 ? INVALID : want[s]);
        }
    }
    unsetenv("ACLNN_EMU_SPEC");
    setenv("ACLNN_EMU_CUBE_MATH_CODE", "161001", 1);
    emu_test_init(NULL);
    ap_case cs = ap_default();
    cs.cube_math = 4;
    expect(&cs, NULLPTR);
    unsetenv("ACLNN_EMU_CUBE_MATH_CODE");
}

/* Per-product cubeMathType rules of the document (contract list). gf = (cubeMathType, dtype)
 * on a non-global case (kernel 2 on 4x4) and on a global one (kernel 4 on 4x4). */
static void cube_math_per_product(void **state)
{
    (void)state;
    const aclDataType dts[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    /* want[product][global][cmt][dtype]: 0 ok, 1 rejected, -1 dtype itself unsupported. */
    static const int want[N_SUPPORTING][2][4][3] = {
        /* ascend910: 0 with FLOAT and 3 with anything rejected; no BF16 */
        {{{1, 0, -1}, {0, 0, -1}, {0, 0, -1}, {1, 1, -1}},
         {{1, 0, -1}, {0, 0, -1}, {0, 0, -1}, {1, 1, -1}}},
        /* ascend910b: 2 with BF16; 3 with non-FLOAT */
        {{{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 1}}, {{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 1}}},
        /* ascend910_93: as 910b */
        {{{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 1}}, {{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 1}}},
        /* ascend310p: as 910 */
        {{{1, 0, -1}, {0, 0, -1}, {0, 0, -1}, {1, 1, -1}},
         {{1, 0, -1}, {0, 0, -1}, {0, 0, -1}, {1, 1, -1}}},
        /* ascend950: the A2 rules in global pooling only */
        {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, {{0, 0, 0}, {0, 0, 0}, {0, 0, 1}, {0, 1, 1}}},
    };
    for (int p = 0; p < N_SUPPORTING; p++) {
        emu_test_init(SUPPORTING[p]);
        for (int g = 0; g < 2; g++) {
            for (int cmt = 0; cmt < 4; cmt++) {
                for (int d = 0; d < 3; d++) {
                    ap_case cs = g ? ap_case4(1, 1, 4, 4, 1, 1, 4, 1, 0) : ap_default();
                    ap_set_dtype(&cs, dts[d]);
                    cs.cube_math = (int8_t)cmt;
                    int w = want[p][g][cmt][d];
                    aclnnStatus st = ap_call(&cs, NULL, NULL);
                    if (st != (w == 0 ? ACLNN_SUCCESS : INVALID)) {
                        fail_msg("%s global=%d cubeMathType=%d dtype=%d: status %d",
                                 SUPPORTING[p], g, cmt, (int)dts[d], st);
                    }
                    if (w == 1) {
                        assert_non_null(strstr(aclGetRecentErrMsg(), "cubeMathType"));
                    }
                }
            }
        }
        /* Global pooling needs padding 0 and no divisor: with divisorOverride the rule of 950
         * does not apply (3 with FLOAT16 accepted), elsewhere nothing changes. */
        ap_case cs = ap_case4(1, 1, 4, 4, 1, 1, 4, 1, 0);
        ap_set_dtype(&cs, ACL_FLOAT16);
        cs.cube_math = 3;
        cs.divisor = 16;
        aclnnStatus st = ap_call(&cs, NULL, NULL);
        assert_int_equal(st, strcmp(SUPPORTING[p], "ascend950") == 0 ? ACLNN_SUCCESS : INVALID);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(null_arguments, teardown),
        cmocka_unit_test_teardown(null_stride_is_kernel, teardown),
        cmocka_unit_test_teardown(unsupported_product, teardown),
        cmocka_unit_test_teardown(dtypes, teardown),
        cmocka_unit_test_teardown(formats, teardown),
        cmocka_unit_test_teardown(ranks, teardown),
        cmocka_unit_test_teardown(parameter_values, teardown),
        cmocka_unit_test_teardown(empty_stride_switch, teardown),
        cmocka_unit_test_teardown(vendor_window_overflow, teardown),
        cmocka_unit_test_teardown(divisor_range, teardown),
        cmocka_unit_test_teardown(shapes, teardown),
        cmocka_unit_test_teardown(empty_tensors, teardown),
        cmocka_unit_test_teardown(cube_math_range, teardown),
        cmocka_unit_test_teardown(cube_math_per_product, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* aclnnGridSampler2DBackward first-phase statuses: every row of the document's error table
 * (spec/003), the contract's choices (docs/contract.md: check order, null outputMask, empty
 * tensors, outputMask length) per product and the vendor switches (the faults: test_faults.c).
 * Expected codes come from those documents, not from the emulator. */
#include "call.h"

static const char *const kSupported[] = {"ascend910", "ascend910b", "ascend910_93", "ascend950"};
static const char *const kFull[] = {"ascend910b", "ascend910_93", "ascend950"}; /* BF16+DOUBLE */

static void init(const char *soc, const char *spec, const char *fault)
{
    unsetenv("ACLNN_EMU_NULL_MASK");
    if (spec)
        setenv("ACLNN_EMU_SPEC", spec, 1);
    else
        unsetenv("ACLNN_EMU_SPEC");
    if (fault)
        setenv("ACLNN_EMU_FAULT", fault, 1);
    else
        unsetenv("ACLNN_EMU_FAULT");
    emu_test_init(soc);
}

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    unsetenv("ACLNN_EMU_SPEC");
    unsetenv("ACLNN_EMU_FAULT");
    unsetenv("ACLNN_EMU_NULL_MASK");
    return 0;
}

/* Asserts the status and that the recent error message contains `word` (argument or rule). */
static void expect(const gs_call *k, aclnnStatus want, const char *word)
{
    aclnnStatus got = gs_first_phase(k);
    if (got != want)
        fail_msg("status %d, expected %d (%s)", got, want, aclGetRecentErrMsg());
    if (word != NULL) {
        const char *msg = aclGetRecentErrMsg();
        if (msg == NULL || strstr(msg, word) == NULL)
            fail_msg("message '%s' does not name '%s'", msg ? msg : "(null)", word);
    }
}

static void test_valid_call_per_product(void **state)
{
    (void)state;
    for (size_t i = 0; i < 4; i++) {
        init(kSupported[i], NULL, NULL);
        gs_call k = gs_valid_call(ACL_FLOAT);
        expect(&k, ACLNN_SUCCESS, NULL);
        k.dt[0] = k.dt[1] = k.dt[2] = k.dt[3] = k.dt[4] = ACL_FLOAT16;
        expect(&k, ACLNN_SUCCESS, NULL);
    }
}

/* Products marked x in the document: 161002 naming the product (contract, facts §2). */
static void test_unsupported_products(void **state)
{
    (void)state;
    const char *const socs[2] = {"ascend310p", "ascend310b"};
    const char *const words[2] = {"Atlas inference products", "Atlas 200I/500 A2"};
    for (int i = 0; i < 2; i++) {
        init(socs[i], NULL, NULL);
        gs_call k = gs_valid_call(ACL_FLOAT);
        expect(&k, ACLNN_ERR_PARAM_INVALID, words[i]);
    }
}

/* Row 1: a null gradOutput, input, grid, inputGrad or gridGrad -> 161001, whatever the mask. */
static void test_null_tensors(void **state)
{
    (void)state;
    const char *const names[GS_NT] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad"};
    for (size_t p = 0; p < 4; p++) {
        init(kSupported[p], NULL, NULL);
        for (int i = 0; i < GS_NT; i++) {
            gs_call k = gs_valid_call(ACL_FLOAT);
            k.null_t[i] = true;
            expect(&k, ACLNN_ERR_PARAM_NULLPTR, names[i]);
            k.mask_len = 0; /* an empty mask does not excuse a null tensor */
            expect(&k, ACLNN_ERR_PARAM_NULLPTR, names[i]);
        }
    }
}

/* Null outputMask: doc 161001 (contract, derived); vendor (facts §3) success before any other
 * check, outputs untouched (also with a null tensor or a bad mode). */
static void test_null_output_mask(void **state)
{
    (void)state;
    init("ascend910b", NULL, NULL);
    gs_call k = gs_valid_call(ACL_FLOAT);
    k.null_mask = true;
    expect(&k, ACLNN_ERR_PARAM_NULLPTR, "outputMask");
    for (int h = 0; h < 2; h++) { /* ACLNN_EMU_SPEC=vendor, then the single switch */
        if (h == 0) {
            init("ascend910", "vendor", NULL);
        } else {
            init("ascend910", NULL, NULL);
            setenv("ACLNN_EMU_NULL_MASK", "success", 1);
            emu_test_init("ascend910");
        }
        expect(&k, ACLNN_SUCCESS, NULL);
        gs_call bad = k;
        bad.null_t[GS_GRID] = true;
        bad.interp = 5;
        expect(&bad, ACLNN_SUCCESS, NULL);
        bad.null_mask = false; /* with a mask the vendor checks everything */
        expect(&bad, ACLNN_ERR_PARAM_NULLPTR, "grid");
    }
}

/* Contract: workspaceSize or executor NULL -> 161001 (derived). */
static void test_null_workspace_size_or_executor(void **state)
{
    (void)state;
    init("ascend910b", NULL, NULL);
    const int64_t go_d[4] = {1, 1, 1, 1}, in_d[4] = {1, 1, 2, 2}, gr_d[4] = {1, 1, 1, 2};
    void *dev[5];
    aclTensor *go = emu_test_tensor(NULL, go_d, 4, ACL_FLOAT, ACL_FORMAT_ND, &dev[0]);
    aclTensor *in = emu_test_tensor(NULL, in_d, 4, ACL_FLOAT, ACL_FORMAT_ND, &dev[1]);
    aclTensor *gr = emu_test_tensor(NULL, gr_d, 4, ACL_FLOAT, ACL_FORMAT_ND, &dev[2]);
    aclTensor *dx = emu_test_tensor(NULL, in_d, 4, ACL_FLOAT, ACL_FORMAT_ND, &dev[3]);
    aclTensor *dg = emu_test_tensor(NULL, gr_d, 4, ACL_FLOAT, ACL_FORMAT_ND, &dev[4]);
    bool m[2] = {true, true};
    aclBoolArray *mask = aclCreateBoolArray(m, 2);
    uint64_t ws;
    aclOpExecutor *ex;
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 0, 0, false, mask,
                                                                dx, dg, NULL, &ex),
                     ACLNN_ERR_PARAM_NULLPTR);
    assert_int_equal(aclnnGridSampler2DBackwardGetWorkspaceSize(go, in, gr, 0, 0, false, mask,
                                                                dx, dg, &ws, NULL),
                     ACLNN_ERR_PARAM_NULLPTR);
    /* second phase: a null executor -> 161001 (contract) */
    assert_int_equal(aclnnGridSampler2DBackward(NULL, 0, NULL, NULL), ACLNN_ERR_PARAM_NULLPTR);
    aclDestroyBoolArray(mask);
    aclTensor *all[5] = {go, in, gr, dx, dg};
    for (int i = 0; i < 5; i++) {
        aclDestroyTensor(all[i]);
        aclrtFree(dev[i]);
    }
}

/* Row 2: dtypes outside the supported range; BF16 and DOUBLE not on ascend910 (document note);
 * all five equal to input's (contract). */
static void test_dtypes(void **state)
{
    (void)state;
    const char *const names[GS_NT] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad"};
    const aclDataType bad[] = {ACL_INT32, ACL_INT8, ACL_BOOL, ACL_INT64, ACL_UINT8};
    for (size_t p = 0; p < 4; p++) {
        init(kSupported[p], NULL, NULL);
        for (int i = 0; i < GS_NT; i++) {
            gs_call k = gs_valid_call(ACL_FLOAT);
            k.dt[i] = bad[i];
            expect(&k, ACLNN_ERR_PARAM_INVALID, names[i]);
            k = gs_valid_call(ACL_FLOAT);
            k.dt[i] = ACL_FLOAT16; /* supported but differs from input's FLOAT */
            expect(&k, ACLNN_ERR_PARAM_INVALID, names[i]);
        }
    }
    for (size_t p = 0; p < 3; p++) {
        init(kFull[p], NULL, NULL);
        gs_call k = gs_valid_call(ACL_BF16);
        expect(&k, ACLNN_SUCCESS, NULL);
        k = gs_valid_call(ACL_DOUBLE);
        expect(&k, ACLNN_SUCCESS, NULL);
    }
    init("ascend910", NULL, NULL);
    gs_call k = gs_valid_call(ACL_BF16);
    expect(&k, ACLNN_ERR_PARAM_INVALID, "BFLOAT16");
    k = gs_valid_call(ACL_DOUBLE);
    expect(&k, ACLNN_ERR_PARAM_INVALID, "DOUBLE");
    k = gs_valid_call(ACL_FLOAT);
    k.dt[GS_DGRID] = ACL_DOUBLE; /* one unsupported output dtype suffices */
    expect(&k, ACLNN_ERR_PARAM_INVALID, "gridGrad");
}

/* Row 3: gradOutput, input and grid (and the outputs, contract) must be 4-D. */
static void test_ranks(void **state)
{
    (void)state;
    const char *const names[GS_NT] = {"gradOutput", "input", "grid", "inputGrad", "gridGrad"};
    init("ascend910b", NULL, NULL);
    for (int i = 0; i < GS_NT; i++) {
        for (int r = 3; r <= 5; r += 2) {
            gs_call k = gs_valid_call(ACL_FLOAT);
            k.ndim[i] = r;
            k.dims[i][4] = 1;
            expect(&k, ACLNN_ERR_PARAM_INVALID, names[i]);
        }
    }
}

/* Row 4: interpolationMode 0..1, paddingMode 0..2 (bicubic 2 is not in the document). */
static void test_modes(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        init(kSupported[p], NULL, NULL);
        gs_call k = gs_valid_call(ACL_FLOAT);
        for (int64_t m = -1; m <= 3; m++) {
            k.interp = m;
            expect(&k, m >= 0 && m <= 1 ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID,
                   m >= 0 && m <= 1 ? NULL : "interpolationMode");
        }
        k.interp = 0;
        for (int64_t m = -1; m <= 3; m++) {
            k.pad = m;
            expect(&k, m >= 0 && m <= 2 ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID,
                   m >= 0 && m <= 2 ? NULL : "paddingMode");
        }
    }
}

/* Rows 5-11: the shape rules, each broken alone on the example shapes
 * (gradOutput [1,1,3,3], input [1,1,5,8], grid [1,3,3,2]). */
static void test_shapes(void **state)
{
    (void)state;
    struct {
        int t, d;
        int64_t v;
        const char *word;
    } rows[] = {
        {GS_IN, 0, 2, "first dimensions"},      {GS_GRID, 0, 2, "first dimensions"},
        {GS_GO, 0, 2, "first dimensions"},      {GS_GO, 1, 2, "second dimension of input"},
        {GS_GRID, 1, 4, "second dimension of grid"}, {GS_GRID, 2, 4, "third dimension of grid"},
        {GS_IN, 2, 0, "last two dimensions"},   {GS_IN, 3, 0, "last two dimensions"},
        {GS_GRID, 3, 3, "last dimension of grid"}, {GS_GRID, 3, 1, "last dimension of grid"},
        {GS_DX, 2, 4, "inputGrad"},             {GS_DX, 1, 2, "inputGrad"},
        {GS_DGRID, 1, 2, "gridGrad"},           {GS_DGRID, 3, 3, "gridGrad"},
        {GS_GO, 3, -3, "negative"},             {GS_DX, 0, -1, "negative"},
    };
    for (size_t p = 0; p < 4; p++) {
        init(kSupported[p], NULL, NULL);
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            gs_call k = gs_valid_call(ACL_FLOAT);
            k.dims[rows[r].t][rows[r].d] = rows[r].v;
            if (rows[r].t == GS_IN && rows[r].d >= 2) /* keep inputGrad equal to input */
                k.dims[GS_DX][rows[r].d] = rows[r].v;
            if (rows[r].t == GS_GRID && rows[r].d == 3)
                k.dims[GS_DGRID][3] = rows[r].v;
            expect(&k, ACLNN_ERR_PARAM_INVALID, rows[r].word);
        }
    }
}

/* Empty tensors (N, C, Hout or Wout zero) succeed with nothing to compute (contract). */
static void test_empty_tensors_succeed(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        init(kSupported[p], NULL, NULL);
        for (int d = 0; d < 4; d++) { /* d indexes gradOutput's N, C, Hout, Wout */
            gs_call k = gs_valid_call(ACL_FLOAT);
            k.dims[GS_GO][d] = 0;
            if (d == 0)
                k.dims[GS_IN][0] = k.dims[GS_GRID][0] = k.dims[GS_DX][0] = k.dims[GS_DGRID][0] = 0;
            if (d == 1)
                k.dims[GS_IN][1] = k.dims[GS_DX][1] = 0;
            if (d >= 2)
                k.dims[GS_GRID][d - 1] = k.dims[GS_DGRID][d - 1] = 0;
            expect(&k, ACLNN_SUCCESS, NULL);
        }
    }
}

/* outputMask of length 0, {false,false}, length 1 or 3: success (contract). */
static void test_output_mask_lengths(void **state)
{
    (void)state;
    init("ascend910b", NULL, NULL);
    gs_call k = gs_valid_call(ACL_FLOAT);
    for (int len = 0; len <= 3; len++) {
        k.mask_len = len;
        k.mask[0] = k.mask[1] = k.mask[2] = false;
        expect(&k, ACLNN_SUCCESS, NULL);
        k.mask[0] = k.mask[1] = k.mask[2] = true;
        expect(&k, ACLNN_SUCCESS, NULL);
    }
    /* an empty mask does not excuse an invalid argument: the checks still run */
    k.mask_len = 0;
    k.pad = 7;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "paddingMode");
}

/* Check order (contract): nulls, product, dtypes (support, then equality), ranks, parameter
 * values, shapes. Each case breaks two rules; the earlier one decides code and message. */
static void test_check_order(void **state)
{
    (void)state;
    init("ascend310p", NULL, NULL);
    gs_call k = gs_valid_call(ACL_FLOAT);
    k.null_t[GS_DGRID] = true; /* null before product */
    expect(&k, ACLNN_ERR_PARAM_NULLPTR, "gridGrad");

    init("ascend910b", NULL, NULL);
    k = gs_valid_call(ACL_FLOAT);
    k.dt[GS_DGRID] = ACL_INT32; /* dtype support before equality */
    k.dt[GS_GO] = ACL_FLOAT16;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "gridGrad dtype INT32");
    k = gs_valid_call(ACL_FLOAT);
    k.dt[GS_GRID] = ACL_FLOAT16; /* dtype before rank */
    k.ndim[GS_GO] = 3;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "grid dtype");
    k = gs_valid_call(ACL_FLOAT);
    k.ndim[GS_GRID] = 3; /* rank before mode */
    k.interp = 9;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "grid must be 4-dimensional");
    k = gs_valid_call(ACL_FLOAT);
    k.pad = 9; /* mode before shape */
    k.dims[GS_GRID][3] = 3;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "paddingMode");
    k = gs_valid_call(ACL_FLOAT);
    k.dims[GS_IN][3] = 0; /* a shape error beats emptiness elsewhere */
    k.dims[GS_DX][3] = 0;
    k.dims[GS_GO][0] = k.dims[GS_IN][0] = k.dims[GS_GRID][0] = 0;
    k.dims[GS_DX][0] = k.dims[GS_DGRID][0] = 0;
    expect(&k, ACLNN_ERR_PARAM_INVALID, "last two dimensions");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_valid_call_per_product, teardown),
        cmocka_unit_test_teardown(test_unsupported_products, teardown),
        cmocka_unit_test_teardown(test_null_tensors, teardown),
        cmocka_unit_test_teardown(test_null_output_mask, teardown),
        cmocka_unit_test_teardown(test_null_workspace_size_or_executor, teardown),
        cmocka_unit_test_teardown(test_dtypes, teardown),
        cmocka_unit_test_teardown(test_ranks, teardown),
        cmocka_unit_test_teardown(test_modes, teardown),
        cmocka_unit_test_teardown(test_shapes, teardown),
        cmocka_unit_test_teardown(test_empty_tensors_succeed, teardown),
        cmocka_unit_test_teardown(test_output_mask_lengths, teardown),
        cmocka_unit_test_teardown(test_check_order, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

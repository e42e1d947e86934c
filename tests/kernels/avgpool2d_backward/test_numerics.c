/* aclnnAvgPool2dBackward values, hand-derived from facts §4 (PyTorch's windows and divisors)
 * and docs/contract.md "Path" (vector: g/div in FP32; cube: operands rounded, FP32 products and
 * sums). Inputs are chosen so that every term and sum is exact unless the test is about a
 * rounding, whose result is derived bit by bit in the comment. Each case runs with determinism
 * on (gather kernel) and off (scatter kernel). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "call.h"

static int teardown(void **state)
{
    (void)state;
    emu_test_fini();
    return 0;
}

/* Runs the case with determinism on and off; both must succeed and give `want`. */
static void check(const ap_case *cs, const double *go, const double *want)
{
    int64_t n = emu_test_numel(cs->dims[AP_GI], cs->ndim[AP_GI]);
    double *gi = malloc(sizeof(double) * (size_t)n);
    for (int det = 1; det >= 0; det--) {
        assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
        assert_int_equal(ap_call(cs, go, gi), ACLNN_SUCCESS);
        ap_assert_values(gi, want, n);
    }
    free(gi);
}

/* The document's example: gradOutput [1,16,1,1] of ones, self [1,16,4,4], kernel 4, stride 1,
 * cubeMathType 1: global pooling, 1/16 = 0.0625 everywhere (facts §4 worked result) on every
 * supporting product (vector divide; cube with HF32 on ascend950, 1/16 exact in 11 bits). */
static void seed_example(void **state)
{
    (void)state;
    const char *socs[] = {"ascend910", "ascend910b", "ascend910_93", "ascend310p", "ascend950"};
    double go[16], want[256];
    for (int i = 0; i < 16; i++) {
        go[i] = 1.0;
    }
    for (int i = 0; i < 256; i++) {
        want[i] = 0.0625;
    }
    for (size_t s = 0; s < sizeof socs / sizeof socs[0]; s++) {
        emu_test_init(socs[s]);
        ap_case cs = ap_case4(1, 16, 4, 4, 1, 1, 4, 1, 0);
        check(&cs, go, want);
    }
}

/* Overlapping windows without padding: kernel 2, stride 1 on 3x3, g = [[1,2],[3,4]], div 4.
 * gradInput = 1/4 * [[1, 1+2, 2], [1+3, 1+2+3+4, 2+4], [3, 3+4, 4]]; all exact. Vector
 * (countIncludePad false on 910b) and cube (true) with operands FP32 (0), HF32 (1, 3) and FP16
 * (2): 1/4 and small integers are exact in each. */
static void overlap_each_path(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    const double go[4] = {1, 2, 3, 4};
    const double want[9] = {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1};
    ap_case cs = ap_case4(1, 1, 3, 3, 2, 2, 2, 1, 0);
    cs.count_include_pad = false;
    check(&cs, go, want);
    cs.count_include_pad = true;
    for (int8_t cmt = 0; cmt < 4; cmt++) {
        cs.cube_math = cmt;
        check(&cs, go, want);
    }
}

/* Padding with countIncludePad and ceil mode: self 4x4, kernel 3, stride 2, padding 1, ceil:
 * out = floor((4+2-3+1)/2)+1 = 3 ((3-1)*2 = 4 < 5 keeps it). Windows per axis (h0, h1 =
 * min(h0+3, in+p = 5)): oh0 [-1,2) pool 3 -> clipped [0,2) count 2; oh1 [1,4) pool 3, count 3;
 * oh2 [3,5) pool 2 (capped at in+p) -> [3,4) count 1. g = 36 everywhere so that every term is
 * an integer. gradInput[h][w] = 36 * a(h) * a(w) with a(h) = sum of 1/div-factor over the
 * windows covering h. On 910b ceil mode takes the vector path. */
static void padding_ceil_count_include_pad(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    double go[9];
    for (int i = 0; i < 9; i++) {
        go[i] = 36;
    }
    ap_case cs = ap_case4(1, 1, 4, 4, 3, 3, 3, 2, 1);
    cs.ceil_mode = true;
    /* countIncludePad: a = [1/3, 1/3+1/3, 1/3, 1/3+1/2] = [1/3, 2/3, 1/3, 5/6]. */
    const double with_pad[16] = {4, 8, 4, 10, 8, 16, 8, 20, 4, 8, 4, 10, 10, 20, 10, 25};
    check(&cs, go, with_pad);
    /* Without: counts 2, 3, 1 -> a = [1/2, 1/2+1/3, 1/3, 1/3+1] = [1/2, 5/6, 1/3, 4/3]. */
    cs.count_include_pad = false;
    const double without[16] = {9, 15, 6, 24, 15, 25, 10, 40, 6, 10, 4, 16, 24, 40, 16, 64};
    check(&cs, go, without);
}

/* Ceil mode with a window that only ceil creates: in 4, kernel 2, stride 3 -> out 2, windows
 * [0,2) and [3,4) (pool 1: h1 = min(5, 4)); row/col 2 is in no window and gets 0.
 * g = [[1,2],[3,4]]: divisors 4, 2, 2, 1 -> terms 0.25, 1, 1.5, 4. */
static void ceil_mode_edge(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    const double go[4] = {1, 2, 3, 4};
    const double want[16] = {0.25, 0.25, 0, 1, 0.25, 0.25, 0, 1, 0, 0, 0, 0, 1.5, 1.5, 0, 4};
    ap_case cs = ap_case4(1, 1, 4, 4, 2, 2, 2, 3, 0);
    cs.ceil_mode = true;
    check(&cs, go, want);
}

/* divisorOverride replaces the divisor, negative values included: the same ceil geometry as
 * above with g = 36 and divisor 4 -> term 9 per window; windows covering each row/col:
 * [1, 2, 1, 2], so gradInput = 9 * n(h) * n(w); divisor -4 negates it. */
static void divisor_override(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    double go[9];
    for (int i = 0; i < 9; i++) {
        go[i] = 36;
    }
    ap_case cs = ap_case4(1, 1, 4, 4, 3, 3, 3, 2, 1);
    cs.ceil_mode = true;
    cs.divisor = 4;
    double want[16], neg[16];
    const int n[4] = {1, 2, 1, 2};
    for (int h = 0; h < 4; h++) {
        for (int w = 0; w < 4; w++) {
            want[h * 4 + w] = 9.0 * n[h] * n[w];
            neg[h * 4 + w] = -want[h * 4 + w];
        }
    }
    check(&cs, go, want);
    cs.divisor = -4;
    check(&cs, go, neg);
    /* Cube path (910b, countIncludePad, no ceil): 3x3, kernel 3, stride 2, padding 1 -> out 2,
     * windows [0,2) and [1,3): n = [1, 2, 1]; w = 1/-4 = -0.25 exact in HF32. */
    cs = ap_case4(1, 1, 3, 3, 2, 2, 3, 2, 1);
    cs.divisor = -4;
    const double cube[9] = {-9, -18, -9, -18, -36, -18, -9, -18, -9};
    check(&cs, go, cube);
}

/* Cube operand rounding, 1/9 in 11 significant bits (HF32 with the default width, and FP16):
 * 1/9 = 1.777...*2^-4, 1.777...*1024 = 1820.44 -> 1820, w = 1820/16384 = 0.111083984375.
 * Same geometry as the padding case without ceil (3x3, kernel 3, stride 2, padding 1, pool 3x3,
 * divisor 9), g = 9*[[1,2],[3,4]]: term = 9k*1820/16384 = k*0.999755859375 exactly, and
 * gradInput = 0.999755859375 * [[1,3,2],[4,10,6],[3,7,4]] (all exact in FP32).
 * 910b: cubeMathType 1 and 3 -> HF32, 2 -> FP16; 910: 1 -> FP16. cubeMathType 0 on 910b keeps
 * FP32: 9*fl32(1/9) = 1 + 2^-27 (approximately) rounds to 1, so the exact integers. */
static void cube_operand_rounding(void **state)
{
    (void)state;
    const double go[4] = {9, 18, 27, 36};
    const double m[9] = {1, 3, 2, 4, 10, 6, 3, 7, 4};
    double hf[9];
    for (int i = 0; i < 9; i++) {
        hf[i] = m[i] * 0.999755859375;
    }
    ap_case cs = ap_case4(1, 1, 3, 3, 2, 2, 3, 2, 1);
    emu_test_init("ascend910b");
    for (int8_t cmt = 1; cmt < 4; cmt++) {
        cs.cube_math = cmt;
        check(&cs, go, hf);
    }
    cs.cube_math = 0;
    check(&cs, go, m);
    /* The vector path (countIncludePad false: divisor = count 4 on corners...) is not this
     * case; ceil mode makes 910b use the vector path with the same windows here
     * (floor((3+2-3+1)/2)+1 = 2, kept): 9k/9 = k exactly. */
    cs.ceil_mode = true;
    cs.cube_math = 1;
    check(&cs, go, m);
    emu_test_init("ascend910");
    cs.ceil_mode = false;
    cs.cube_math = 1;
    check(&cs, go, hf);
    /* BF16 operands (8 bits): 1.777...*128 = 227.56 -> 228, w = 228/2048 = 0.111328125,
     * term = 9k*228/2048 = k*1.001953125; gradInput = m*1.001953125, then rounded to BF16:
     * e.g. 10.01953125 = 1.2524*2^3, *128 = 160.31 -> 160 -> 10; every m rounds back to m. */
    emu_test_init("ascend910b");
    ap_set_dtype(&cs, ACL_BF16);
    cs.cube_math = 1;
    check(&cs, go, m);
}

/* Final rounding to FP16/BF16 on the vector path (910b, countIncludePad false): 3x3 input,
 * kernel 3 -> one window, divisor 9, every gradInput element = fl32(g/9).
 * FP16, g = 5: 5/9 = 1.111...*2^-1, 1.111...*1024 = 1137.78 -> 1138 -> 1138/2048 = 0.5556640625.
 * BF16, g = 1: 1/9 = 1.777...*2^-4, *128 = 227.56 -> 228 -> 228/2048 = 0.111328125. */
static void output_rounding(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    ap_case cs = ap_case4(1, 1, 3, 3, 1, 1, 3, 1, 0);
    cs.count_include_pad = false;
    double want[9];
    ap_set_dtype(&cs, ACL_FLOAT16);
    const double five = 5;
    for (int i = 0; i < 9; i++) {
        want[i] = 0.5556640625;
    }
    check(&cs, &five, want);
    ap_set_dtype(&cs, ACL_BF16);
    const double one = 1;
    for (int i = 0; i < 9; i++) {
        want[i] = 0.111328125;
    }
    check(&cs, &one, want);
    /* FLOAT: fl32(1/9) = 0x3de38e39 = 0.111111111938953399658203125 (1/9 in 24 bits:
     * 1.777...*2^23 = 14913080.89 -> 14913081). */
    ap_set_dtype(&cs, ACL_FLOAT);
    for (int i = 0; i < 9; i++) {
        want[i] = 14913081.0 / 134217728.0;
    }
    check(&cs, &one, want);
}

/* NCL 3-D (C, H, W) = (2, 3, 4), kernel (1, 2), stride (1, 2), padding (0, 0): out (3, 2);
 * every window is one row by two columns, divisor 2: gradInput[c][h][w] = g[c][h][w/2]/2. */
static void ncl_3d(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    ap_case cs = ap_case4(1, 1, 1, 1, 1, 1, 1, 1, 0);
    const int64_t self_dims[3] = {2, 3, 4}, go_dims[3] = {2, 3, 2};
    for (int i = 0; i < 3; i++) {
        cs.ndim[i] = 3;
        cs.fmt[i] = ACL_FORMAT_NCL;
        memcpy(cs.dims[i], i == AP_GO ? go_dims : self_dims, sizeof self_dims);
    }
    cs.nkernel = cs.nstride = cs.npad = 2;
    cs.kernel[0] = 1;
    cs.kernel[1] = 2;
    cs.stride[0] = 1;
    cs.stride[1] = 2;
    cs.pad[1] = 0;
    double go[12], want[24];
    for (int i = 0; i < 12; i++) {
        go[i] = i + 1;
    }
    for (int c = 0; c < 2; c++) {
        for (int h = 0; h < 3; h++) {
            for (int w = 0; w < 4; w++) {
                want[(c * 3 + h) * 4 + w] = go[(c * 3 + h) * 2 + w / 2] / 2;
            }
        }
    }
    check(&cs, go, want);
}

/* Non-contiguous views with storage offsets: gradOutput [1,1,2,2] read through strides
 * (1,1,5,2) at offset 3 of a 16-element buffer; gradInput [1,1,3,3] written column-major
 * (strides (20,20,1,3)) at offset 5 of a 16-element buffer prefilled with 99. The overlap case
 * values (0.25 ...) must land at offset 5 + h + 3w and every other element must stay 99. */
static void strided_views(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    const aclDataType dts[2] = {ACL_FLOAT, ACL_FLOAT16};
    for (int d = 0; d < 2; d++) {
        for (int det = 1; det >= 0; det--) {
            assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, det), ACL_SUCCESS);
            const int64_t go_dims[4] = {1, 1, 2, 2}, gi_dims[4] = {1, 1, 3, 3};
            const int64_t go_strides[4] = {16, 16, 5, 2}, gi_strides[4] = {20, 20, 1, 3};
            const double go[4] = {1, 2, 3, 4};
            void *dgo, *dself, *dgi;
            aclTensor *tgo = emu_test_tensor_view(go, go_dims, 4, go_strides, 3, 16, -1.0, dts[d],
                                                  ACL_FORMAT_NCHW, &dgo);
            aclTensor *tself = emu_test_tensor(NULL, gi_dims, 4, dts[d], ACL_FORMAT_NCHW, &dself);
            aclTensor *tgi = emu_test_tensor_view(NULL, gi_dims, 4, gi_strides, 5, 16, 99.0,
                                                  dts[d], ACL_FORMAT_NCHW, &dgi);
            const int64_t two = 2, one = 1, zero = 0;
            aclIntArray *k = aclCreateIntArray(&two, 1), *s = aclCreateIntArray(&one, 1),
                        *p = aclCreateIntArray(&zero, 1);
            uint64_t ws = 0;
            aclOpExecutor *ex = NULL;
            assert_int_equal(aclnnAvgPool2dBackwardGetWorkspaceSize(tgo, tself, k, s, p, false,
                                                                    false, 0, 1, tgi, &ws, &ex),
                             ACLNN_SUCCESS);
            void *wsp = NULL;
            if (ws > 0) {
                assert_int_equal(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
            }
            assert_int_equal(aclnnAvgPool2dBackward(wsp, ws, ex, NULL), ACLNN_SUCCESS);
            aclrtFree(wsp);
            /* Read the whole buffer as a flat tensor. */
            const int64_t flat_dims[1] = {16};
            aclTensor *flat = aclCreateTensor(flat_dims, 1, dts[d], NULL, 0, ACL_FORMAT_ND,
                                              flat_dims, 1, dgi);
            double got[16], want[16];
            emu_test_read(flat, got);
            const double vals[9] = {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1};
            for (int i = 0; i < 16; i++) {
                want[i] = 99;
            }
            for (int h = 0; h < 3; h++) {
                for (int w = 0; w < 3; w++) {
                    want[5 + h + 3 * w] = vals[h * 3 + w];
                }
            }
            ap_assert_values(got, want, 16);
            aclDestroyTensor(flat);
            aclDestroyTensor(tgo);
            aclDestroyTensor(tself);
            aclDestroyTensor(tgi);
            aclDestroyIntArray(k);
            aclDestroyIntArray(s);
            aclDestroyIntArray(p);
            aclrtFree(dgo);
            aclrtFree(dself);
            aclrtFree(dgi);
        }
    }
}

/* Several planes: N=2, C=3, each plane (n, c) holds g = 4*(plane+1) in its single window of a
 * 2x2 input (kernel 2): gradInput of that plane = plane+1 everywhere. Checks plane indexing. */
static void planes(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    ap_case cs = ap_case4(2, 3, 2, 2, 1, 1, 2, 2, 0);
    double go[6], want[24];
    for (int i = 0; i < 6; i++) {
        go[i] = 4.0 * (i + 1);
        for (int j = 0; j < 4; j++) {
            want[i * 4 + j] = i + 1;
        }
    }
    check(&cs, go, want);
}

/* NaN and infinities propagate (IEEE): overlap case (kernel 2, stride 1, 3x3).
 * g = [[NaN, 1], [1, 1]]: the four elements in window (0,0) are NaN, the others are sums of
 * 1/4: (0,2) 0.25, (1,2) 0.5, (2,0) 0.25, (2,1) 0.5, (2,2) 0.25.
 * g = [[inf, -inf], [1, 1]]: (0,0) inf, (0,2) -inf, (0,1) inf + -inf = NaN, (1,1) NaN,
 * (1,0) inf/4 + 1/4 = inf, (1,2) -inf, row 2 finite: 0.25, 0.5, 0.25. */
static void non_finite(void **state)
{
    (void)state;
    emu_test_init("ascend910b");
    ap_case cs = ap_case4(1, 1, 3, 3, 2, 2, 2, 1, 0);
    cs.count_include_pad = false;
    const double nan_go[4] = {NAN, 1, 1, 1};
    const double nan_want[9] = {NAN, NAN, 0.25, NAN, NAN, 0.5, 0.25, 0.5, 0.25};
    check(&cs, nan_go, nan_want);
    const double inf_go[4] = {INFINITY, -INFINITY, 1, 1};
    const double inf_want[9] = {INFINITY, NAN, -INFINITY, INFINITY, NAN, -INFINITY,
                                0.25,     0.5, 0.25};
    check(&cs, inf_go, inf_want);
}

/* The pool size past int64: kernel 2^32 × 2^32, stride 2^32, padding 2^31, countIncludePad, on a
 * 1×1 input: one window [−2^31, 2^31) per axis, pool size 2^32·2^32 = 2^64 (wrapped to 0 in
 * int64 arithmetic, which divided by zero). Exact: 2^-64 (a power of two: exact in FP32, also
 * as the cube's FP32 operand 1/d). */
static void pool_size_past_int64(void **state)
{
    (void)state;
    const char *socs[] = {"ascend910b", "ascend950"};
    const int64_t k = INT64_C(1) << 32;
    const double go[1] = {1}, want[1] = {0x1p-64};
    for (size_t s = 0; s < sizeof socs / sizeof socs[0]; s++) {
        emu_test_init(socs[s]);
        ap_case cs = ap_case4(1, 1, 1, 1, 1, 1, k, k, k / 2);
        check(&cs, go, want);
    }
}

/* Runs cs on soc with the emulation following contract spec (ACLNN_EMU_SPEC), expecting want. */
static void check_under(const char *spec, const char *soc, const ap_case *cs, const double *go,
                        const double *want)
{
    setenv("ACLNN_EMU_SPEC", spec, 1);
    emu_test_init(soc);
    check(cs, go, want);
    unsetenv("ACLNN_EMU_SPEC");
}

/* The vendor's lowering (docs/contract.md "Numerics", L1-L5) against the documents' path, values
 * by hand (FP16: 11 significant bits, 65504 its largest value, 65520 and up round to inf).
 * - L5, FP16 result: 910b FLOAT, cubeMathType 2, kernel 2 stride 1 on 3x3, divisor 1, g = 40000
 *   (an FP16 value): sums of 2 or 4 windows (80000, 160000) are infinite in FP16; the documents
 *   round once to FLOAT.
 * - L1, FP16 division: 10x10 global pooling, cubeMathType 1, g = 1: fp16(1/100): 0.01 =
 *   1.28*2^-7, 1.28*1024 = 1310.72 -> 1311, 1311*2^-17 = 0.01000213623046875; the documents
 *   divide in FP32 (float 0.01).
 * - L3, long strip (4x8, W/H = 2): 910b's vector kernel, 70000/4 = 17500; the documents' FP16
 *   cube overflows.
 * - L4, 950 in 8.5: the FP16 cube (inf for g = 70000); 9.0's regbase vector kernel: 17500.
 * - L5, BF16 with cubeMathType 0: FLOAT operands. g = 1.515625 (BF16), kernel 1x3:
 *   1.515625/3 = 0.50520833 lies below BF16's midpoint 0.505859375 of 0.50390625 and
 *   0.5078125: 0.50390625; the documents' BF16 weight 0.333984375 gives 0.50619507: 0.5078125.
 * - L5, premultiplied FP16 (910, countIncludePad false, kernel 1x3, stride 1, padding (0, 1),
 *   counts 2, 3, 2): g = (3*2^-14, 1.25, 0); fp16(1/3) = 1365/4096, 1.25*1365/4096 =
 *   1706.25/4096 rounds to 1706/4096 before the cube; g0/2 = 0.375/4096. Sums in units of
 *   2^-12 (FP16's ULP on [0.25, 0.5)): vendor 1706.375, 1706.375, 1706 -> 1706 each; the
 *   documents (product kept in FP32) 1706.625, 1706.625, 1706.25 -> 1707, 1707, 1706. */
static void vendor_lowering(void **state)
{
    (void)state;
    ap_case cs = ap_case4(1, 1, 3, 3, 2, 2, 2, 1, 0);
    cs.cube_math = 2;
    cs.divisor = 1;
    const double g40k[4] = {40000, 40000, 40000, 40000};
    const double fp16_sum[9] = {40000, INFINITY, 40000, INFINITY, INFINITY,
                                INFINITY, 40000, INFINITY, 40000};
    const double fp32_sum[9] = {40000, 80000, 40000, 80000, 160000, 80000, 40000, 80000, 40000};
    check_under("vendor", "ascend910b", &cs, g40k, fp16_sum);
    check_under("vendor-old", "ascend910b", &cs, g40k, fp16_sum);
    check_under("doc", "ascend910b", &cs, g40k, fp32_sum);

    ap_case global = ap_case4(1, 1, 10, 10, 1, 1, 10, 10, 0);
    const double one[1] = {1};
    double q16[100], q32[100];
    for (int i = 0; i < 100; i++) {
        q16[i] = 0.01000213623046875;
        q32[i] = (double)0.01f;
    }
    check_under("vendor", "ascend910b", &global, one, q16);
    check_under("doc", "ascend910b", &global, one, q32);

    ap_case strip = ap_case4(1, 1, 4, 8, 2, 4, 2, 2, 0);
    strip.cube_math = 2;
    const double g70k[8] = {70000, 70000, 70000, 70000, 70000, 70000, 70000, 70000};
    double quarter[32], inf[32];
    for (int i = 0; i < 32; i++) {
        quarter[i] = 17500;
        inf[i] = INFINITY;
    }
    check_under("vendor", "ascend910b", &strip, g70k, quarter);
    check_under("doc", "ascend910b", &strip, g70k, inf);

    ap_case square = ap_default();
    square.cube_math = 2;
    check_under("vendor-old", "ascend950", &square, g70k, inf);
    check_under("vendor", "ascend950", &square, g70k, quarter);

    ap_case bf = ap_case4(1, 1, 2, 3, 2, 1, 1, 1, 0);
    ap_set_dtype(&bf, ACL_BF16);
    bf.cube_math = 0;
    bf.kernel[1] = bf.stride[1] = 3;
    bf.nkernel = bf.nstride = 2;
    const double g_bf[2] = {1.515625, 1.515625};
    const double low[6] = {0.50390625, 0.50390625, 0.50390625, 0.50390625, 0.50390625, 0.50390625};
    const double high[6] = {0.5078125, 0.5078125, 0.5078125, 0.5078125, 0.5078125, 0.5078125};
    check_under("vendor", "ascend910b", &bf, g_bf, low);
    check_under("doc", "ascend910b", &bf, g_bf, high);

    ap_case pm = ap_case4(1, 1, 1, 3, 1, 3, 1, 1, 0);
    ap_set_dtype(&pm, ACL_FLOAT16);
    pm.cube_math = 0;
    pm.count_include_pad = false;
    pm.kernel[1] = 3;
    pm.pad[1] = 1;
    pm.nkernel = pm.npad = 2;
    const double g_pm[3] = {3 * 0x1p-14, 1.25, 0};
    const double vendor_pm[3] = {1706 * 0x1p-12, 1706 * 0x1p-12, 1706 * 0x1p-12};
    const double doc_pm[3] = {1707 * 0x1p-12, 1707 * 0x1p-12, 1706 * 0x1p-12};
    check_under("vendor", "ascend910", &pm, g_pm, vendor_pm);
    pm.cube_math = 2; /* the documents refuse FLOAT16 with 0 on 910 */
    check_under("doc", "ascend910", &pm, g_pm, doc_pm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(seed_example, teardown),
        cmocka_unit_test_teardown(overlap_each_path, teardown),
        cmocka_unit_test_teardown(padding_ceil_count_include_pad, teardown),
        cmocka_unit_test_teardown(ceil_mode_edge, teardown),
        cmocka_unit_test_teardown(divisor_override, teardown),
        cmocka_unit_test_teardown(cube_operand_rounding, teardown),
        cmocka_unit_test_teardown(output_rounding, teardown),
        cmocka_unit_test_teardown(ncl_3d, teardown),
        cmocka_unit_test_teardown(strided_views, teardown),
        cmocka_unit_test_teardown(planes, teardown),
        cmocka_unit_test_teardown(non_finite, teardown),
        cmocka_unit_test_teardown(pool_size_past_int64, teardown),
        cmocka_unit_test_teardown(vendor_lowering, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

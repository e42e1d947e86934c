/* The "documented-path" judgement (honoured cubeMathType): the reference's exact value of the
 * documented cube computation, and the verdict on a device that follows it, skips it or uses
 * another operand format. Expected numbers are derived by hand:
 * - FP16 keeps 11 significant bits (facts §5). g0 = 1 + 2^-11 + 2^-13 lies 0.75 of the way from
 *   1 to 1 + 2^-10, so it rounds to 1 + 2^-10; 3 is exact.
 * - 1/3 = 0.010101...b: FP16 keeps 1.0101010101b·2^-2 (the next bits 0101... round down)
 *   = 1365/4096; BF16 (8 bits) 1.0101011b·2^-2 = 171/512 (the next bits 10101... round up);
 *   FP32 keeps 0x3eaaaaab = 11184811·2^-25; HF32 of 11 bits equals FP16 at this magnitude. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "check/check.h"
#include "reference.h"
#include "reference_avgpool2d_backward.h"

#define G0 (1.0 + 0x1p-11 + 0x1p-13)

/* One plane 1x3, kernel (1, 2), stride 1, no padding: windows [0,2) and [1,3) with divisor 2
 * (or the override); gradOutput 1x2. */
static ref_avgpool_params params(int64_t divisor_override)
{
    ref_avgpool_params p = {.n = 1, .c = 1, .h = 1, .w = 3, .oh = 1, .ow = 2, .kh = 1, .kw = 2,
                            .sh = 1, .sw = 1, .count_include_pad = true,
                            .divisor_override = divisor_override};
    return p;
}

static ref_path cube(ref_dtype operand, bool hf32)
{
    ref_path p = {.kind = REF_PATH_CUBE, .operand = operand, .hf32 = hf32, .hf32_bits = 11,
                  .name = hf32 ? "cube-hf32" : "cube"};
    return p;
}

static void documented(const ref_path *path, int64_t divisor, const double go[2], double want[3])
{
    ref_avgpool_params p = params(divisor);
    ref_output out;
    assert_int_equal(ref_avgpool2d_backward_documented(&p, go, path, &out), 0);
    for (int k = 0; k < 3; k++) {
        want[k] = out.v[k].hi;
        assert_true(out.v[k].lo == 0);
    }
    ref_output_free(&out);
}

static void test_fp16_operands_rounded(void **state)
{
    (void)state;
    const double go[2] = {G0, 3};
    double v[3];
    ref_path fp16 = cube(REF_DT_FLOAT16, false);
    documented(&fp16, 0, go, v); /* weight 1/2 exact: (1 + 2^-10)/2, (4 + 2^-10)/2, 3/2 */
    assert_true(v[0] == 0.5 + 0x1p-11);
    assert_true(v[1] == 2 + 0x1p-11);
    assert_true(v[2] == 1.5);
}

static void test_weight_rounded_per_format(void **state)
{
    (void)state;
    const double go[2] = {3, 3};
    double v[3];
    ref_path fp16 = cube(REF_DT_FLOAT16, false), bf16 = cube(REF_DT_BF16, false);
    ref_path fp32 = cube(REF_DT_FLOAT, false), hf32 = cube(REF_DT_UNDEFINED, true);
    documented(&fp16, 3, go, v);
    assert_true(v[0] == 3 * 1365.0 / 4096 && v[1] == 6 * 1365.0 / 4096);
    documented(&hf32, 3, go, v);
    assert_true(v[0] == 3 * 1365.0 / 4096);
    documented(&bf16, 3, go, v);
    assert_true(v[0] == 3 * 171.0 / 512);
    documented(&fp32, 3, go, v);
    assert_true(v[0] == 3 * 11184811 * 0x1p-25);
}

/* The vector path has no operand rounding: the plain reference's exact value. */
static void test_vector_is_plain(void **state)
{
    (void)state;
    const double go[2] = {3, 3};
    double v[3];
    ref_path vec = {.kind = REF_PATH_VECTOR, .operand = REF_DT_UNDEFINED, .name = "vector-fp32"};
    documented(&vec, 3, go, v);
    assert_true(v[0] == 1 && v[1] == 2 && v[2] == 1);
}

/* Judged as the harness does under documented-path: got FP32 values for the three elements. */
static bool judge(const double got[3], cts_verdict *v)
{
    const double go[2] = {G0, 3};
    ref_avgpool_params p = params(0);
    ref_path fp16 = cube(REF_DT_FLOAT16, false), judge_path = ref_documented_judge_path(&fp16);
    ref_output out;
    assert_int_equal(ref_avgpool2d_backward_documented(&p, go, &fp16, &out), 0);
    cts_tolerance tol = {.kind = CTS_TOL_DOCUMENTED, .name = "documented-path"};
    int64_t dims[4] = {1, 1, 1, 3};
    double buf[3] = {got[0], got[1], got[2]};
    cts_judged_output o = {"grad_input", REF_DT_FLOAT, 4, dims, 3, buf, &out, false};
    memset(v, 0, sizeof *v);
    v->status = CTS_PASS;
    v->worst_index = -1;
    bool ok = cts_check_tolerance(&tol, &judge_path, &o, v);
    ref_output_free(&out);
    return ok;
}

static void test_device_following_the_path_passes(void **state)
{
    (void)state;
    cts_verdict v;
    const double got[3] = {0.5 + 0x1p-11, 2 + 0x1p-11, 1.5};
    assert_true(judge(got, &v));
}

/* Skipping the FP16 down-conversion: G0/2 = 0.5 + 2^-12 + 2^-14 (exact in FP32) is 3·2^-14
 * from the documented 0.5 + 2^-11, far beyond FP32 accumulation's error (about 2^-24 relative)
 * though well inside the `bound` policy's window for FP16 operands (2^-11 relative). */
static void test_device_skipping_the_rounding_fails_and_says_so(void **state)
{
    (void)state;
    cts_verdict v;
    const double got[3] = {(double)(float)(G0 / 2), (double)(float)((G0 + 3) / 2), 1.5};
    assert_false(judge(got, &v));
    assert_int_equal(v.status, CTS_FAIL);
    assert_non_null(strstr(v.message, "policy documented-path"));
    assert_non_null(strstr(v.message, "skipped or changed that rounding"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp16_operands_rounded),
        cmocka_unit_test(test_weight_rounded_per_format),
        cmocka_unit_test(test_vector_is_plain),
        cmocka_unit_test(test_device_following_the_path_passes),
        cmocka_unit_test(test_device_skipping_the_rounding_fails_and_says_so),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

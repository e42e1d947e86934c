/* ref_avgpool_vendor_path: the vendor's lowering per product and parameter set, as
 * docs/contract.md "Numerics" reads ops-nn v9.0.0 / v8.5.0 (L1-L5), and the bound terms of its
 * conversions. Expected paths from that table; expected bounds by hand from the roundings the
 * vendor's graph applies (FP16 unit roundoff 2^-11). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "reference.h"
#include "reference_avgpool2d_backward.h"

/* A 4 x 4 plane (C channels), kernel 2 x 2, stride 2, countIncludePad, no ceilMode. */
static ref_avgpool_params plain(void)
{
    ref_avgpool_params p = {.n = 1, .c = 3, .h = 4, .w = 4, .oh = 2, .ow = 2, .kh = 2, .kw = 2,
                            .sh = 2, .sw = 2, .count_include_pad = true};
    return p;
}

static ref_avgpool_params global(int64_t side)
{
    ref_avgpool_params p = {.n = 1, .c = 3, .h = side, .w = side, .oh = 1, .ow = 1, .kh = side,
                            .kw = side, .sh = side, .sw = side, .count_include_pad = true};
    return p;
}

#define V REF_SPEC_VENDOR
#define B REF_PRODUCT_ASCEND910B

static const char *name(ref_spec s, ref_product pr, ref_avgpool_params p, ref_dtype dt, int cmt)
{
    return ref_avgpool_vendor_path(s, pr, &p, dt, cmt).name;
}

/* L1: global pooling with both sides >= 10 divides, in FP16 for cubeMathType 1/2 or FP16 data;
 * below 10 it is no global pooling. */
static void global_pooling(void **state)
{
    (void)state;
    const ref_product all[] = {REF_PRODUCT_ASCEND910, REF_PRODUCT_ASCEND310P,
                               REF_PRODUCT_ASCEND910B, REF_PRODUCT_ASCEND950};
    for (size_t i = 0; i < 4; i++) {
        for (ref_spec s = REF_SPEC_VENDOR; s <= REF_SPEC_VENDOR_OLD; s++) {
            assert_string_equal(name(s, all[i], global(10), REF_DT_FLOAT, 2), "divide-fp16");
            assert_string_equal(name(s, all[i], global(10), REF_DT_BF16, 1), "divide-fp16");
            assert_string_equal(name(s, all[i], global(12), REF_DT_FLOAT16, 0), "divide-fp16");
            assert_string_equal(name(s, all[i], global(10), REF_DT_FLOAT, 3), "vector-fp32");
            assert_string_equal(name(s, all[i], global(10), REF_DT_BF16, 0), "vector-fp32");
        }
    }
    ref_avgpool_params empty = {0};
    ref_path d = ref_avgpool_vendor_path(V, B, &empty, REF_DT_FLOAT, 0);
    assert_int_equal(d.kind, REF_PATH_VECTOR); /* empty: nothing computed */
    ref_avgpool_params g10 = global(10);
    d = ref_avgpool_vendor_path(V, B, &g10, REF_DT_FLOAT, 1);
    assert_true(d.result_fp16 && d.operand == REF_DT_FLOAT16);
    ref_avgpool_params with_divisor = global(10);
    with_divisor.divisor_override = 100;
    assert_string_equal(name(V, B, with_divisor, REF_DT_FLOAT, 2), "cube-fp16");
    /* 9 x 9: the cube on 910/310p/910b, 950 in 8.5; 9.0's 950 regbase kernel is vector */
    assert_string_equal(name(V, REF_PRODUCT_ASCEND910, global(9), REF_DT_FLOAT, 2), "cube-fp16");
    assert_string_equal(name(V, B, global(9), REF_DT_FLOAT, 2), "cube-fp16");
    assert_string_equal(name(V, REF_PRODUCT_ASCEND950, global(9), REF_DT_FLOAT, 2), "vector-fp32");
    assert_string_equal(name(REF_SPEC_VENDOR_OLD, REF_PRODUCT_ASCEND950, global(9), REF_DT_FLOAT,
                             2), "cube-fp16");
}

/* L3: 910b/910_93 take the cube only inside its limits. */
static void a2a3_limits(void **state)
{
    (void)state;
    ref_avgpool_params p = plain();
    for (ref_spec s = REF_SPEC_VENDOR; s <= REF_SPEC_VENDOR_OLD; s++) {
        ref_product pr = s == REF_SPEC_VENDOR ? REF_PRODUCT_ASCEND910B : REF_PRODUCT_ASCEND910_93;
        assert_string_equal(name(s, pr, p, REF_DT_FLOAT, 0), "cube-fp32");
        ref_avgpool_params q = p;
        q.w = 8; /* W/H = 2: a long strip */
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
        q = p;
        q.h = 7; /* 7/4 = 1: still the cube */
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "cube-fp32");
        q = p;
        q.kh = 21;
        q.kw = 13; /* 273 > 255 and a side > 20 */
        q.h = q.w = 26;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
        q.kh = q.kw = 20; /* 400 > 255 but both sides <= 20 */
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "cube-fp32");
        q = p;
        q.divisor_override = 256;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
        q.divisor_override = -255;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "cube-fp32");
        q = p;
        q.c = 65536;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
        q.c = 65535;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "cube-fp32");
        q = p;
        q.count_include_pad = false;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
        q = p;
        q.ceil_mode = true;
        assert_string_equal(name(s, pr, q, REF_DT_FLOAT, 0), "vector-fp32");
    }
}

/* L4/L5: the cube everywhere else and its operands. */
static void cube_operands(void **state)
{
    (void)state;
    ref_avgpool_params p = plain();
    ref_spec v = REF_SPEC_VENDOR;
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_FLOAT, 1), "cube-fp16");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_FLOAT, 3), "cube-hf32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_BF16, 0), "cube-fp32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_BF16, 3), "cube-hf32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_BF16, 2), "cube-fp16");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910B, p, REF_DT_FLOAT16, 3), "cube-fp16");
    /* no HF32 on 910 */
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910, p, REF_DT_FLOAT, 3), "cube-fp32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND310P, p, REF_DT_FLOAT, 0), "cube-fp32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND950, p, REF_DT_FLOAT, 2), "vector-fp32");
    assert_string_equal(name(REF_SPEC_VENDOR_OLD, REF_PRODUCT_ASCEND950, p, REF_DT_FLOAT, 3),
                        "cube-hf32");
    assert_string_equal(name(v, REF_PRODUCT_ASCEND310B, p, REF_DT_FLOAT, 0), "vector-fp32");
    /* countIncludePad false (or divisor ±255): gradOutput is premultiplied by the mean */
    ref_avgpool_params q = p;
    q.count_include_pad = false;
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910, q, REF_DT_FLOAT16, 0), "cube-fp16-premul");
    q.divisor_override = 254;
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910, q, REF_DT_FLOAT16, 0), "cube-fp16");
    q.divisor_override = 255;
    assert_string_equal(name(v, REF_PRODUCT_ASCEND910, q, REF_DT_FLOAT, 1), "cube-fp16-premul");
    ref_path fp16 = ref_avgpool_vendor_path(v, REF_PRODUCT_ASCEND910, &q, REF_DT_FLOAT16, 0);
    assert_true(fp16.premul && fp16.premul_fp16 && !fp16.result_fp16);
    ref_path f = ref_avgpool_vendor_path(v, REF_PRODUCT_ASCEND910, &q, REF_DT_FLOAT, 2);
    assert_true(f.premul && !f.premul_fp16 && f.result_fp16);
}

/* The bound's vendor terms: an FP16 result adds 2^-11·(|x| + E) + 2^-25 over the same path
 * without it; an FP16 operand of BF16 data counts as a rounding of the gradient. */
static void bound_terms(void **state)
{
    (void)state;
    ref_value v = {.hi = 3.0, .nterms = 1, .nops = 2, .sum_abs = 3.0, .min_weight = 0.25};
    ref_path c = ref_avgpool_vendor_path(REF_SPEC_VENDOR, REF_PRODUCT_ASCEND910B,
                                         &(ref_avgpool_params){.n = 1, .c = 1, .h = 4, .w = 4,
                                         .oh = 2, .ow = 2, .kh = 2, .kw = 2, .sh = 2, .sw = 2,
                                         .count_include_pad = true}, REF_DT_FLOAT, 2);
    ref_path no_result = c;
    no_result.result_fp16 = false;
    double with = ref_bound(REF_DT_FLOAT, &c, &v);
    double without = ref_bound(REF_DT_FLOAT, &no_result, &v);
    assert_true(with - without >= 0x1p-11 * 3.0);
    assert_true(with - without < 0x1p-11 * 3.0 * 1.01 + 0x1p-24);
    /* 65504 stays finite in FP16, 65520 does not */
    assert_false(ref_operand_overflows(&c, 65504.0));
    assert_true(ref_operand_overflows(&c, 65520.0));
    ref_path bf = c;
    bf.result_fp16 = false;
    /* BF16 data on FP16 operands: the weight's 2^-11 + η_16/w and the gradient's 2^-11 on Σ|t|
     * = 3, on top of BF16's output rounding 2^-8·3 */
    double bf16_bound = ref_bound(REF_DT_BF16, &bf, &v);
    double weight_only = 3 * 0x1p-8 + 3 * (0x1p-11 + 0x1p-25 / 0.25);
    assert_true(bf16_bound > weight_only + 3 * 0x1p-11 * 0.99);
    assert_true(bf16_bound < weight_only + 3 * 0x1p-11 * 1.2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(global_pooling),
        cmocka_unit_test(a2a3_limits),
        cmocka_unit_test(cube_operands),
        cmocka_unit_test(bound_terms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The vocabulary the status model reports with: product ids (facts §2 "profile id" column),
 * spec names (docs/contract.md "Spec versions"), dtype and format names (facts §1 names without
 * the ACL_ / ACL_FORMAT_ prefix). Expected strings are copied from those tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "reference.h"

static void product_ids(void **state)
{
    (void)state;
    static const struct { ref_product p; const char *id; } t[] = {
        {REF_PRODUCT_ASCEND910, "ascend910"},     {REF_PRODUCT_ASCEND910B, "ascend910b"},
        {REF_PRODUCT_ASCEND910_93, "ascend910_93"}, {REF_PRODUCT_ASCEND310P, "ascend310p"},
        {REF_PRODUCT_ASCEND310B, "ascend310b"},   {REF_PRODUCT_ASCEND950, "ascend950"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ref_product back = REF_PRODUCT_COUNT;
        assert_string_equal(ref_product_id(t[i].p), t[i].id);
        assert_int_equal(ref_product_from_id(t[i].id, &back), 0);
        assert_int_equal(back, t[i].p);
    }
    ref_product out = REF_PRODUCT_ASCEND950;
    assert_int_equal(ref_product_from_id("ascend910c", &out), -1);
    assert_int_equal(ref_product_from_id("Ascend910B", &out), -1);
    assert_int_equal(ref_product_from_id(NULL, &out), -1);
    assert_int_equal(out, REF_PRODUCT_ASCEND950); /* untouched on failure */
    assert_string_equal(ref_product_id(REF_PRODUCT_COUNT), "unknown-product");
}

static void spec_names(void **state)
{
    (void)state;
    static const struct { ref_spec s; const char *name; } t[] = {
        {REF_SPEC_DOC, "doc"},           {REF_SPEC_VENDOR, "vendor@9.0"},
        {REF_SPEC_VENDOR_OLD, "vendor@8.5"}, {REF_SPEC_VENDOR_91, "vendor@9.1"},
        {REF_SPEC_VENDOR_92, "vendor@9.2"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ref_spec back = (ref_spec)-1;
        assert_string_equal(ref_spec_name(t[i].s), t[i].name);
        assert_string_equal(ref_spec_contract(t[i].s), t[i].name);
        assert_int_equal(ref_spec_from_name(t[i].name, &back), 0);
        assert_int_equal(back, t[i].s);
    }
    /* the aliases: `vendor` is the newest release, `vendor-old` 8.5 */
    ref_spec back = (ref_spec)-1;
    assert_int_equal(ref_spec_from_name("vendor", &back), 0);
    assert_int_equal(back, REF_SPEC_VENDOR_92);
    assert_int_equal(ref_spec_from_name("vendor-old", &back), 0);
    assert_int_equal(back, REF_SPEC_VENDOR_OLD);
    assert_int_equal(ref_spec_from_name("vendor_old", NULL), -1);
    assert_int_equal(ref_spec_from_name("vendor@9.3", NULL), -1);
    assert_string_equal(ref_spec_name((ref_spec)7), "unknown-contract");
}

static void dtype_and_format_names(void **state)
{
    (void)state;
    assert_string_equal(ref_dtype_name(REF_DT_FLOAT), "FLOAT");
    assert_string_equal(ref_dtype_name(REF_DT_FLOAT16), "FLOAT16");
    assert_string_equal(ref_dtype_name(REF_DT_BF16), "BF16");
    assert_string_equal(ref_dtype_name(REF_DT_DOUBLE), "DOUBLE");
    assert_string_equal(ref_dtype_name(REF_DT_INT32), "INT32");
    assert_string_equal(ref_dtype_name(REF_DT_UNDEFINED), "UNDEFINED");
    assert_string_equal(ref_dtype_name((ref_dtype)5), "UNKNOWN_DTYPE"); /* 5 is unassigned */
    assert_string_equal(ref_format_name(REF_FMT_NCHW), "NCHW");
    assert_string_equal(ref_format_name(REF_FMT_NCL), "NCL");
    assert_string_equal(ref_format_name(REF_FMT_ND), "ND");
    assert_string_equal(ref_format_name(REF_FMT_NC1HWC0), "NC1HWC0");
    assert_string_equal(ref_format_name((ref_format)5), "UNKNOWN_FORMAT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(product_ids),
        cmocka_unit_test(spec_names),
        cmocka_unit_test(dtype_and_format_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

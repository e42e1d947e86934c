/* Vocabulary of the reference: the names of products (facts §2), dtypes and formats (facts §1)
 * and spec versions (docs/contract.md), as reports and suites spell them. */
#include <string.h>

#include "reference.h"

static const char *const product_ids[REF_PRODUCT_COUNT] = {
    [REF_PRODUCT_ASCEND910] = "ascend910",     [REF_PRODUCT_ASCEND910B] = "ascend910b",
    [REF_PRODUCT_ASCEND910_93] = "ascend910_93", [REF_PRODUCT_ASCEND310P] = "ascend310p",
    [REF_PRODUCT_ASCEND310B] = "ascend310b",   [REF_PRODUCT_ASCEND950] = "ascend950",
};

const char *ref_product_id(ref_product p)
{
    if ((int)p < 0 || p >= REF_PRODUCT_COUNT)
        return "unknown-product";
    return product_ids[p];
}

int ref_product_from_id(const char *id, ref_product *out)
{
    if (id == NULL)
        return -1;
    for (int p = 0; p < REF_PRODUCT_COUNT; p++) {
        if (strcmp(id, product_ids[p]) == 0) {
            if (out != NULL)
                *out = (ref_product)p;
            return 0;
        }
    }
    return -1;
}

/* The aclDataType names without the ACL_ prefix. */
const char *ref_dtype_name(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT: return "FLOAT";
    case REF_DT_FLOAT16: return "FLOAT16";
    case REF_DT_INT8: return "INT8";
    case REF_DT_INT32: return "INT32";
    case REF_DT_UINT8: return "UINT8";
    case REF_DT_INT16: return "INT16";
    case REF_DT_UINT16: return "UINT16";
    case REF_DT_UINT32: return "UINT32";
    case REF_DT_INT64: return "INT64";
    case REF_DT_UINT64: return "UINT64";
    case REF_DT_DOUBLE: return "DOUBLE";
    case REF_DT_BOOL: return "BOOL";
    case REF_DT_STRING: return "STRING";
    case REF_DT_COMPLEX64: return "COMPLEX64";
    case REF_DT_COMPLEX128: return "COMPLEX128";
    case REF_DT_BF16: return "BF16";
    case REF_DT_UNDEFINED: return "UNDEFINED";
    }
    return "UNKNOWN_DTYPE";
}

/* The aclFormat names without the ACL_FORMAT_ prefix. */
const char *ref_format_name(ref_format f)
{
    switch (f) {
    case REF_FMT_UNDEFINED: return "UNDEFINED";
    case REF_FMT_NCHW: return "NCHW";
    case REF_FMT_NHWC: return "NHWC";
    case REF_FMT_ND: return "ND";
    case REF_FMT_NC1HWC0: return "NC1HWC0";
    case REF_FMT_FRACTAL_Z: return "FRACTAL_Z";
    case REF_FMT_NCL: return "NCL";
    }
    return "UNKNOWN_FORMAT";
}

/* Each contract by its release; `vendor` names the newest release, `vendor-old` 8.5. */
static const char *const contract_names[] = {
    [REF_SPEC_DOC] = "doc", [REF_SPEC_VENDOR] = "vendor@9.0", [REF_SPEC_VENDOR_OLD] = "vendor@8.5",
    [REF_SPEC_VENDOR_91] = "vendor@9.1", [REF_SPEC_VENDOR_92] = "vendor@9.2",
};
enum { SPEC_COUNT = sizeof contract_names / sizeof contract_names[0] };

const char *ref_spec_name(ref_spec s) { return ref_spec_contract(s); }

const char *ref_spec_contract(ref_spec s)
{
    if ((int)s < 0 || (int)s >= SPEC_COUNT)
        return "unknown-contract";
    return contract_names[s];
}

int ref_spec_from_name(const char *name, ref_spec *out)
{
    static const struct { const char *alias; ref_spec spec; } aliases[] = {
        {"vendor", REF_SPEC_VENDOR_92}, {"vendor-old", REF_SPEC_VENDOR_OLD},
    };
    if (name == NULL)
        return -1;
    for (int s = 0; s < SPEC_COUNT; s++)
        if (strcmp(name, contract_names[s]) == 0) {
            if (out != NULL)
                *out = (ref_spec)s;
            return 0;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) {
            if (out != NULL)
                *out = aliases[i].spec;
            return 0;
        }
    return -1;
}

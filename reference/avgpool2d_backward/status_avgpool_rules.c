/* The avg-pool status rules the doc and vendor readings word the same way. */
#include "avgpool_internal.h"
#include "status_internal.h"

const char *const ref_avgpool_tensor_names[3] = {"gradOutput", "self", "gradInput"};

bool ref_status_avgpool_pointers_ok(const ref_status_query *q, ref_status *fail)
{
    const ref_tensor_desc *t = q->t;
    /* In parameter order; stride may be NULL (stride = kernel). */
    const bool present[5] = {t[0].present, t[1].present, q->p[REF_AVGPOOL_KERNEL_SIZE].present,
                             q->p[REF_AVGPOOL_PADDING].present, t[2].present};
    static const char *const names[5] = {"gradOutput", "self", "kernelSize", "padding",
                                         "gradInput"};
    for (int i = 0; i < 5; i++)
        if (!present[i]) {
            *fail = ref_status_make(REF_STATUS_NULLPTR, false, "%s is a null pointer", names[i]);
            return false;
        }
    return true;
}

bool ref_status_avgpool_product_ok(const ref_status_query *q, ref_status *fail)
{
    /* "Atlas 200I/500 A2 inference products ×" (facts §2: 161002) */
    bool shipped = ref_product_family(q->product) != REF_FAMILY_200I_500A2;
    return ref_status_product_ok(q, "aclnnAvgPool2dBackward", shipped, fail);
}

int64_t ref_status_avgpool_cube_math_type(const ref_status_query *q)
{
    int64_t low = (int64_t)((uint64_t)ref_param_int(q, REF_AVGPOOL_CUBE_MATH_TYPE) & 0xffu);
    return low >= 128 ? low - 256 : low;
}

bool ref_status_avgpool_cube_range_ok(const ref_status_query *q, ref_status *fail)
{
    const int64_t cube = ref_status_avgpool_cube_math_type(q);
    if (cube >= 0 && cube <= 3)
        return true;
    /* 161001 under vendor-old (release 8.5), 161002 elsewhere */
    *fail = ref_status_make(ref_status_spec(q) == REF_SPEC_VENDOR_OLD ? REF_STATUS_NULLPTR
                                                                       : REF_STATUS_INVALID,
                            false, "cubeMathType %lld is outside 0..3", (long long)cube);
    return false;
}

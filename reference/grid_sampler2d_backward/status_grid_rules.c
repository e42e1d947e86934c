/* The grid-sampler status rules the doc and vendor readings word the same way. */
#include "grid_internal.h"
#include "status_internal.h"

const char *const ref_grid_tensor_names[5] = {"gradOutput", "input", "grid", "inputGrad",
                                              "gridGrad"};

bool ref_status_grid_product_ok(const ref_status_query *q, ref_status *fail)
{
    /* "Atlas 200I/500 A2 inference products ×", "Atlas inference products ×": no kernel */
    bool shipped = q->product != REF_PRODUCT_ASCEND310B && q->product != REF_PRODUCT_ASCEND310P;
    return ref_status_product_ok(q, "aclnnGridSampler2DBackward", shipped, fail);
}

bool ref_status_grid_modes_ok(const ref_status_query *q, ref_status *fail)
{
    const int64_t interpolation = ref_param_int(q, REF_GRID_INTERPOLATION_MODE);
    const int64_t padding = ref_param_int(q, REF_GRID_PADDING_MODE);
    if (interpolation < 0 || interpolation > 1)
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "interpolationMode %lld is not 0 (bilinear) or 1 (nearest)",
                                (long long)interpolation);
    else if (padding < 0 || padding > 2)
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "paddingMode %lld is not 0 (zeros), 1 (border) or 2 (reflection)",
                                (long long)padding);
    else
        return true;
    return false;
}

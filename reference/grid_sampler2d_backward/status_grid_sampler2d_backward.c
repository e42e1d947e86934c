/* Expected status of aclnnGridSampler2DBackwardGetWorkspaceSize: the error table of spec/003_*,
 * its product and dtype rules, facts §3, in the check order of docs/contract.md. Tensors: t[0]
 * gradOutput, t[1] input, t[2] grid, t[3] inputGrad, t[4] gridGrad. */
#include <stdio.h>

#include "status_internal.h"

static const char *const tensor_names[5] = {"gradOutput", "input", "grid", "inputGrad",
                                            "gridGrad"};

static bool product_supported(ref_product p)
{
    /* "Atlas 200I/500 A2 inference products ×", "Atlas inference products ×" */
    return p != REF_PRODUCT_ASCEND310B && p != REF_PRODUCT_ASCEND310P;
}

static bool dtype_supported(ref_product p, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16)
        return true;
    /* "Atlas training products: ... does not support BFLOAT16 or DOUBLE" (contract keeps this
     * for the vendor specs too). */
    return (dt == REF_DT_BF16 || dt == REF_DT_DOUBLE) && p != REF_PRODUCT_ASCEND910;
}

ref_status ref_status_grid_sampler2d_backward(const ref_status_query *q)
{
    const ref_spec spec = ref_status_spec(q);
    const ref_tensor_desc *t = q->t;
    const ref_tensor_desc *go = &t[0], *in = &t[1], *grid = &t[2];
    char b1[200], b2[200];

    /* 0. facts §3: outputMask NULL → success with workspace 0, before the null checks. */
    if (!q->output_mask_present && spec != REF_SPEC_DOC)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask is a null pointer: success with nothing to compute");

    /* 1. Null pointers (doc table row 161001), in parameter order; doc: a NULL outputMask is a
     * missing required input too (contract, derived). */
    for (int i = 0; i < 3; i++)
        if (!t[i].present)
            return ref_status_make(REF_STATUS_NULLPTR, false, "%s is a null pointer",
                                   tensor_names[i]);
    if (!q->output_mask_present)
        return ref_status_make(REF_STATUS_NULLPTR, false, "outputMask is a null pointer");
    for (int i = 3; i < 5; i++)
        if (!t[i].present)
            return ref_status_make(REF_STATUS_NULLPTR, false, "%s is a null pointer",
                                   tensor_names[i]);

    /* 2. Product. */
    if ((int)q->product < 0 || q->product >= REF_PRODUCT_COUNT)
        return ref_status_make(REF_STATUS_INVALID, false, "product %d is unknown",
                               (int)q->product);
    if (!product_supported(q->product))
        return ref_status_make(REF_STATUS_INVALID, false,
                               "aclnnGridSampler2DBackward is not supported on %s",
                               ref_product_id(q->product));

    /* 3. dtypes: all five supported on the product, then equal to input's. */
    for (int i = 0; i < 5; i++)
        if (!dtype_supported(q->product, t[i].dtype))
            return ref_status_make(REF_STATUS_INVALID, false,
                                   "%s dtype %s is not supported on %s", tensor_names[i],
                                   ref_dtype_name(t[i].dtype), ref_product_id(q->product));
    for (int i = 0; i < 5; i++)
        if (i != 1 && t[i].dtype != in->dtype)
            return ref_status_make(REF_STATUS_INVALID, false,
                                   "%s dtype %s differs from input dtype %s", tensor_names[i],
                                   ref_dtype_name(t[i].dtype), ref_dtype_name(in->dtype));

    /* 4. Formats: not checked (the document's table has no format row). 5. Ranks: 4. */
    for (int i = 0; i < 5; i++)
        if (t[i].rank != 4)
            return ref_status_make(REF_STATUS_INVALID, false, "%s has rank %d but must be 4",
                                   tensor_names[i], t[i].rank);

    /* 6. Parameter values. */
    ref_status fail;
    if (!ref_status_grid_modes_ok(q, &fail))
        return fail;

    /* 7. Shapes, in the order of the document's table. */
    for (int i = 0; i < 5; i++) {
        int ax = ref_status_negative_axis(&t[i]);
        if (ax >= 0)
            return ref_status_make(REF_STATUS_INVALID, false, "%s dim %d is negative (%lld)",
                                   tensor_names[i], ax, (long long)t[i].dims[ax]);
    }
    if (in->dims[0] != go->dims[0] || grid->dims[0] != go->dims[0])
        return ref_status_make(REF_STATUS_INVALID, false,
                               "the first dims of input (%lld), grid (%lld) and gradOutput (%lld) "
                               "are not the same",
                               (long long)in->dims[0], (long long)grid->dims[0],
                               (long long)go->dims[0]);
    if (in->dims[1] != go->dims[1])
        return ref_status_make(REF_STATUS_INVALID, false,
                               "input dim 1 (%lld) differs from gradOutput dim 1 (%lld)",
                               (long long)in->dims[1], (long long)go->dims[1]);
    if (grid->dims[1] != go->dims[2])
        return ref_status_make(REF_STATUS_INVALID, false,
                               "grid dim 1 (%lld) differs from gradOutput dim 2 (%lld)",
                               (long long)grid->dims[1], (long long)go->dims[2]);
    if (grid->dims[2] != go->dims[3])
        return ref_status_make(REF_STATUS_INVALID, false,
                               "grid dim 2 (%lld) differs from gradOutput dim 3 (%lld)",
                               (long long)grid->dims[2], (long long)go->dims[3]);
    if (in->dims[2] == 0 || in->dims[3] == 0)
        return ref_status_make(REF_STATUS_INVALID, false,
                               "input spatial dims (%lld, %lld) must not be 0",
                               (long long)in->dims[2], (long long)in->dims[3]);
    if (grid->dims[3] != 2)
        return ref_status_make(REF_STATUS_INVALID, false, "grid last dim is %lld, not 2",
                               (long long)grid->dims[3]);
    if (!ref_status_same_shape(in, &t[3]))
        return ref_status_make(REF_STATUS_INVALID, false,
                               "inputGrad shape %s differs from input shape %s",
                               ref_status_shape_str(&t[3], b1, sizeof b1),
                               ref_status_shape_str(in, b2, sizeof b2));
    if (!ref_status_same_shape(grid, &t[4]))
        return ref_status_make(REF_STATUS_INVALID, false,
                               "gridGrad shape %s differs from grid shape %s",
                               ref_status_shape_str(&t[4], b1, sizeof b1),
                               ref_status_shape_str(grid, b2, sizeof b2));

    /* 8./9. Empty tensors ("Supports empty Tensor") succeed; outputMask: [0] → inputGrad,
     * [1] → gridGrad, missing entries false, the rest ignored. A selected output that is not
     * itself empty is still written (zeros where nothing contributes: C = 0 leaves a gridGrad,
     * Hout = 0 an inputGrad), as PyTorch does (contract). */
    const bool want_dx = q->output_mask_len > 0 && q->output_mask[0];
    const bool want_dgrid = q->output_mask_len > 1 && q->output_mask[1];
    const bool dx_live = want_dx && ref_status_zero_axis(&t[3]) < 0;
    const bool dgrid_live = want_dgrid && ref_status_zero_axis(&t[4]) < 0;
    if (!want_dx && !want_dgrid)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask (length %lld) asks for no output: success with "
                               "nothing to compute",
                               (long long)q->output_mask_len);
    if (!dx_live && !dgrid_live) {
        for (int i = 0; i < 3; i++) {
            int ax = ref_status_zero_axis(&t[i]);
            if (ax >= 0)
                return ref_status_make(REF_STATUS_SUCCESS, false,
                                       "%s is empty (dim %d is 0): success with nothing to "
                                       "compute", tensor_names[i], ax);
        }
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "the selected outputs are empty: success with nothing to compute");
    }
    return ref_status_make(REF_STATUS_SUCCESS, true, "valid parameters on %s",
                           ref_product_id(q->product));
}

/* Expected status of aclnnGridSampler2DBackwardGetWorkspaceSize: the error table of spec/003_*,
 * its product and dtype rules, facts §3, in the check order of docs/contract.md. Tensors: t[0]
 * gradOutput, t[1] input, t[2] grid, t[3] inputGrad, t[4] gridGrad. */
#include <stdio.h>

#include "grid_internal.h"
#include "status_internal.h"

#define tensor_names ref_grid_tensor_names

static bool dtype_supported(ref_product p, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16)
        return true;
    /* "Atlas training products: ... does not support BFLOAT16 or DOUBLE" (contract keeps this
     * for the vendor specs too). */
    return (dt == REF_DT_BF16 || dt == REF_DT_DOUBLE) && p != REF_PRODUCT_ASCEND910;
}

/* 1. Null pointers (doc table row 161001), in parameter order; doc: a NULL outputMask is a
 * missing required input too (contract, derived). */
static bool pointers_ok(const ref_status_query *q, ref_status *fail)
{
    if (ref_status_first_null(q->t, tensor_names, 3, fail))
        return false;
    if (!q->p[REF_GRID_OUTPUT_MASK].present) {
        *fail = ref_status_make(REF_STATUS_NULLPTR, false, "outputMask is a null pointer");
        return false;
    }
    return !ref_status_first_null(q->t + 3, tensor_names + 3, 2, fail);
}

/* 3. dtypes: all five supported on the product, then equal to input's. */
static bool dtypes_ok(const ref_status_query *q, ref_status *fail)
{
    const ref_tensor_desc *t = q->t;
    for (int i = 0; i < 5; i++)
        if (!dtype_supported(q->product, t[i].dtype)) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s dtype %s is not supported on %s", tensor_names[i],
                                    ref_dtype_name(t[i].dtype), ref_product_id(q->product));
            return false;
        }
    for (int i = 0; i < 5; i++)
        if (i != 1 && t[i].dtype != t[1].dtype) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s dtype %s differs from input dtype %s", tensor_names[i],
                                    ref_dtype_name(t[i].dtype), ref_dtype_name(t[1].dtype));
            return false;
        }
    return true;
}

/* 4. Formats: not checked (the document's table has no format row). 5. Ranks: 4. */
static bool ranks_ok(const ref_tensor_desc *t, ref_status *fail)
{
    for (int i = 0; i < 5; i++)
        if (t[i].rank != 4) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s has rank %d but must be 4",
                                    tensor_names[i], t[i].rank);
            return false;
        }
    return true;
}

/* 7. Shapes, in the order of the document's table (negative dims first). */
static bool shapes_ok(const ref_tensor_desc *t, ref_status *fail)
{
    const ref_tensor_desc *go = &t[0], *in = &t[1], *grid = &t[2];
    char b1[200], b2[200];
    if (ref_status_first_negative(t, tensor_names, 5, fail))
        return false;
    if (in->dims[0] != go->dims[0] || grid->dims[0] != go->dims[0])
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "the first dims of input (%lld), grid (%lld) and gradOutput "
                                "(%lld) are not the same",
                                (long long)in->dims[0], (long long)grid->dims[0],
                                (long long)go->dims[0]);
    else if (in->dims[1] != go->dims[1])
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "input dim 1 (%lld) differs from gradOutput dim 1 (%lld)",
                                (long long)in->dims[1], (long long)go->dims[1]);
    else if (grid->dims[1] != go->dims[2])
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "grid dim 1 (%lld) differs from gradOutput dim 2 (%lld)",
                                (long long)grid->dims[1], (long long)go->dims[2]);
    else if (grid->dims[2] != go->dims[3])
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "grid dim 2 (%lld) differs from gradOutput dim 3 (%lld)",
                                (long long)grid->dims[2], (long long)go->dims[3]);
    else if (in->dims[2] == 0 || in->dims[3] == 0)
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "input spatial dims (%lld, %lld) must not be 0",
                                (long long)in->dims[2], (long long)in->dims[3]);
    else if (grid->dims[3] != 2)
        *fail = ref_status_make(REF_STATUS_INVALID, false, "grid last dim is %lld, not 2",
                                (long long)grid->dims[3]);
    else if (!ref_status_same_shape(in, &t[3]))
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "inputGrad shape %s differs from input shape %s",
                                ref_status_shape_str(&t[3], b1, sizeof b1),
                                ref_status_shape_str(in, b2, sizeof b2));
    else if (!ref_status_same_shape(grid, &t[4]))
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "gridGrad shape %s differs from grid shape %s",
                                ref_status_shape_str(&t[4], b1, sizeof b1),
                                ref_status_shape_str(grid, b2, sizeof b2));
    else
        return true;
    return false;
}

/* 8./9. Empty tensors ("Supports empty Tensor") succeed; outputMask: [0] → inputGrad, [1] →
 * gridGrad, missing entries false, the rest ignored. A selected output that is not itself empty
 * is still written (zeros where nothing contributes: C = 0 leaves a gridGrad, Hout = 0 an
 * inputGrad), as PyTorch does (contract). */
static ref_status outputs(const ref_status_query *q)
{
    const ref_tensor_desc *t = q->t;
    const ref_param *mask = &q->p[REF_GRID_OUTPUT_MASK];
    const bool want_dx = mask->len > 0 && mask->values[0];
    const bool want_dgrid = mask->len > 1 && mask->values[1];
    const bool dx_live = want_dx && ref_status_zero_axis(&t[3]) < 0;
    const bool dgrid_live = want_dgrid && ref_status_zero_axis(&t[4]) < 0;
    ref_status done;
    if (!want_dx && !want_dgrid)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask (length %lld) asks for no output: success with "
                               "nothing to compute",
                               (long long)q->p[REF_GRID_OUTPUT_MASK].len);
    if (dx_live || dgrid_live)
        return ref_status_make(REF_STATUS_SUCCESS, true, "valid parameters on %s",
                               ref_product_id(q->product));
    if (ref_status_first_empty(t, tensor_names, 3, &done))
        return done;
    return ref_status_make(REF_STATUS_SUCCESS, false,
                           "the selected outputs are empty: success with nothing to compute");
}

/* The checks in docs/contract.md's order (0. a NULL outputMask under the vendor readings,
 * facts §3: success with workspace 0, before the null checks; 2. product; 6. the modes); the
 * first failing one decides. */
ref_status ref_status_grid_sampler2d_backward(const ref_status_query *q)
{
    ref_status fail;
    if (!q->p[REF_GRID_OUTPUT_MASK].present && ref_status_spec(q) != REF_SPEC_DOC)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask is a null pointer: success with nothing to compute");
    if (!pointers_ok(q, &fail) || !ref_status_grid_product_ok(q, &fail) || !dtypes_ok(q, &fail) ||
        !ranks_ok(q->t, &fail) || !ref_status_grid_modes_ok(q, &fail) || !shapes_ok(q->t, &fail))
        return fail;
    return outputs(q);
}

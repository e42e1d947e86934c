/* Expected status of aclnnGridSampler2DBackwardGetWorkspaceSize under the vendor contracts, read
 * from the vendor's operator code (docs/contract.md "Vendor releases", rules G1..G8 with their
 * source lines): `vendor` is release 9.0 (hicann/ops-cv v9.0.0), `vendor-old` release 8.5
 * (v8.5.0), both checking the same things; `vendor@9.1` (v9.1.0) and `vendor@9.2`
 * (v9.2.0-beta.1), the same as each other: G2', G5', G8. Written from that reading alone,
 * never from kernels/. Tensors: t[0] gradOutput, t[1] input, t[2] grid, t[3] inputGrad,
 * t[4] gridGrad. */
#include <stdio.h>

#include "grid_internal.h"
#include "status_internal.h"

#define tensor_names ref_grid_tensor_names

/* G4: FLOAT, FLOAT16 and DOUBLE on every SoC; BF16 on 910B/910_93 and 950. */
static bool dtype_listed(ref_product p, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16 || dt == REF_DT_DOUBLE)
        return true;
    const ref_family f = ref_product_family(p);
    return dt == REF_DT_BF16 && (f == REF_FAMILY_A2A3 || f == REF_FAMILY_950);
}

/* G6: the shape rules, in the code's order. */
static bool shapes_ok(const ref_tensor_desc *t, ref_status *fail)
{
    const ref_tensor_desc *go = &t[0], *in = &t[1], *grid = &t[2];
    char b1[200], b2[200];
    const int ranked[3] = {1, 2, 0};
    for (int j = 0; j < 3; j++)
        if (t[ranked[j]].rank != 4) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s has rank %d but must be 4",
                                    tensor_names[ranked[j]], t[ranked[j]].rank);
            return false;
        }
    /* (derived) the code compares negative dims like any other; aclcts refuses them first. */
    if (ref_status_first_negative(t, tensor_names, 5, fail))
        return false;
    const char *why = NULL;
    if (in->dims[0] != grid->dims[0] || in->dims[0] != go->dims[0])
        why = "input, grid and gradOutput do not have the same batch size";
    else if (in->dims[1] != go->dims[1])
        why = "input and gradOutput do not have the same channel count";
    else if (in->dims[2] == 0 || in->dims[3] == 0)
        why = "input has an empty spatial dim";
    else if (grid->dims[1] != go->dims[2] || grid->dims[2] != go->dims[3])
        why = "grid's H and W differ from gradOutput's";
    else if (grid->dims[3] != 2)
        why = "grid's last dim is not 2";
    if (why) {
        *fail = ref_status_make(REF_STATUS_INVALID, false, "%s", why);
        return false;
    }
    if (!ref_status_same_shape(&t[3], in) || !ref_status_same_shape(&t[4], grid)) {
        int o = ref_status_same_shape(&t[3], in) ? 4 : 3;
        *fail = ref_status_make(REF_STATUS_INVALID, false, "%s shape %s differs from %s shape %s",
                                tensor_names[o], ref_status_shape_str(&t[o], b1, sizeof b1),
                                tensor_names[o - 2],
                                ref_status_shape_str(&t[o - 2], b2, sizeof b2));
        return false;
    }
    return true;
}

/* Releases 9.1 and 9.2 (ops-cv v9.1.0, v9.2.0-beta.1). */
static bool since_9_1(ref_spec s) { return s == REF_SPEC_VENDOR_91 || s == REF_SPEC_VENDOR_92; }

/* G5 and, from 9.1, G5': interpolationMode 0..1 (0..2 from 9.1: bicubic), paddingMode 0..2. */
static bool modes_ok(const ref_status_query *q, ref_status *fail)
{
    const int64_t padding = ref_param_int(q, REF_GRID_PADDING_MODE);
    if (!since_9_1(q->spec) || ref_param_int(q, REF_GRID_INTERPOLATION_MODE) != 2)
        return ref_status_grid_modes_ok(q, fail);
    if (padding >= 0 && padding <= 2)
        return true;
    *fail = ref_status_make(REF_STATUS_INVALID, false,
                            "paddingMode %lld is not 0 (zeros), 1 (border) or 2 (reflection)",
                            (long long)padding);
    return false;
}

ref_status ref_status_vendor_grid_sampler2d_backward(const ref_status_query *q)
{
    const ref_tensor_desc *t = q->t;
    ref_status fail;
    const bool v91 = since_9_1(q->spec);
    /* G1/G2: a NULL mask, or (before 9.1) one whose first two entries are false (a missing
     * entry reads as false), succeeds before any other check. */
    const ref_param *mask = &q->p[REF_GRID_OUTPUT_MASK];
    const bool dx = mask->len > 0 && mask->values[0];
    const bool dgrid = mask->len > 1 && mask->values[1];
    if (!mask->present)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask is a null pointer: success with nothing to compute");
    if (!dx && !dgrid && !v91)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask (length %lld) asks for no output: success with "
                               "nothing to compute", (long long)mask->len);
    /* G3: null pointers. (package, derived) the documents' product table: no kernel on
     * ascend310p/ascend310b. */
    if (ref_status_first_null(t, tensor_names, 5, &fail) ||
        !ref_status_grid_product_ok(q, &fail))
        return fail;
    /* G4: the four other dtypes equal input's, then input's dtype listed for the SoC. */
    for (int i = 0; i < 5; i++)
        if (i != 1 && t[i].dtype != t[1].dtype)
            return ref_status_make(REF_STATUS_INVALID, false,
                                   "%s dtype %s differs from input dtype %s", tensor_names[i],
                                   ref_dtype_name(t[i].dtype), ref_dtype_name(t[1].dtype));
    if (!dtype_listed(q->product, t[1].dtype))
        return ref_status_make(REF_STATUS_INVALID, false, "input dtype %s is not supported on %s",
                               ref_dtype_name(t[1].dtype), ref_product_id(q->product));
    if (!modes_ok(q, &fail) || !shapes_ok(t, &fail))
        return fail;
    /* G8 (9.1): an outputMask of length other than 2, the last of the shape checks. */
    if (v91 && mask->len != 2)
        return ref_status_make(REF_STATUS_INVALID, false,
                               "outputMask has length %lld, not 2", (long long)mask->len);
    /* G7: an empty gradOutput, input or grid succeeds with nothing to compute; G2' (9.1): so
     * does, here, a mask asking for no output. */
    if (ref_status_first_empty(t, tensor_names, 3, &fail))
        return fail;
    if (!dx && !dgrid)
        return ref_status_make(REF_STATUS_SUCCESS, false,
                               "outputMask asks for no output: success with nothing to compute "
                               "(checked after the parameters from 9.1)");
    return ref_status_make(REF_STATUS_SUCCESS, true, "valid parameters on %s (%s)",
                           ref_product_id(q->product), ref_spec_name(q->spec));
}

/* Expected status of aclnnAvgPool2dBackwardGetWorkspaceSize under the vendor contracts, read
 * from the vendor's operator code (docs/contract.md "Vendor releases", rules A1..A14 with their
 * source lines): `vendor` is release 9.0 (hicann/ops-nn v9.0.0), `vendor-old` release 8.5
 * (v8.5.0); 9.1 and 9.2 check what 9.0 checks. Written from that reading alone, never from kernels/. Tensors: t[0] gradOutput,
 * t[1] self, t[2] gradInput. */
#include <stdint.h>
#include <stdio.h>

#include "avgpool_internal.h"
#include "status_internal.h"

#define tensor_names ref_avgpool_tensor_names

/* A3: FLOAT and FLOAT16 everywhere; BF16 on 910B/910_93, and on the regbase SoC (950) from 9.0
 * (9.1 and 9.2 check what 9.0 checks). */
static bool dtype_listed(ref_spec rel, ref_product p, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16)
        return true;
    if (dt != REF_DT_BF16)
        return false;
    const ref_family f = ref_product_family(p);
    return f == REF_FAMILY_A2A3 || (f == REF_FAMILY_950 && rel != REF_SPEC_VENDOR_OLD);
}

static bool has_negative(const ref_tensor_desc *t) { return ref_status_negative_axis(t) >= 0; }

static int64_t value(const ref_param *a, int64_t i)
{
    return i < REF_MAX_DIMS ? a->values[i] : a->values[REF_MAX_DIMS - 1];
}

/* A4: storage formats NCHW or NCL, and NCHW for gradOutput and gradInput when 4-D. */
static bool formats_ok(const ref_tensor_desc *t, ref_status *fail)
{
    for (int i = 0; i < 3; i++)
        if (t[i].format != REF_FMT_NCHW && t[i].format != REF_FMT_NCL) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s format %s is not NCHW or NCL",
                                    tensor_names[i], ref_format_name(t[i].format));
            return false;
        }
    if (t[0].rank == 4 && (t[0].format != REF_FMT_NCHW || t[2].format != REF_FMT_NCHW)) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "gradOutput is 4-D, so gradOutput (%s) and gradInput (%s) must "
                                "both be NCHW", ref_format_name(t[0].format),
                                ref_format_name(t[2].format));
        return false;
    }
    return true;
}

/* A5: ranks of gradOutput and gradInput, negative dims, attribute lengths and values. */
static bool dims_ok(const ref_status_query *q, ref_status *fail)
{
    const ref_tensor_desc *t = q->t;
    if (!((t[0].rank == 3 && t[2].rank == 3) || (t[0].rank == 4 && t[2].rank == 4))) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "gradOutput (rank %d) and gradInput (rank %d) are not both 3-D or "
                                "both 4-D", t[0].rank, t[2].rank);
        return false;
    }
    for (int i = 0; i < 3; i++)
        if (has_negative(&t[i])) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s has a negative dim",
                                    tensor_names[i]);
            return false;
        }
    const ref_param *k = &q->p[REF_AVGPOOL_KERNEL_SIZE], *s = &q->p[REF_AVGPOOL_STRIDE];
    if (k->len < 1 || k->len > 2) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "kernelSize has length %lld, not 1 or 2", (long long)k->len);
        return false;
    }
    for (int64_t i = 0; i < k->len; i++)
        if (value(k, i) <= 0) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "kernelSize[%lld] = %lld is not > 0",
                                    (long long)i, (long long)value(k, i));
            return false;
        }
    if (s->present) {
        if (s->len > 2) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "stride has length %lld, more than 2",
                                    (long long)s->len);
            return false;
        }
        for (int64_t i = 0; i < s->len; i++)
            if (value(s, i) <= 0) {
                *fail = ref_status_make(REF_STATUS_INVALID, false, "stride[%lld] = %lld is not > 0",
                                        (long long)i, (long long)value(s, i));
                return false;
            }
    }
    if (q->p[REF_AVGPOOL_PADDING].len > 2) {
        *fail = ref_status_make(REF_STATUS_INVALID, false, "padding has length %lld, more than 2",
                                (long long)q->p[REF_AVGPOOL_PADDING].len);
        return false;
    }
    return true;
}

/* A6: padding not empty, and kernel >= 2·padding per axis (a negative padding passes here). */
static bool padding_ok(const ref_status_query *q, int64_t k[2], int64_t p[2], ref_status *fail)
{
    if (q->p[REF_AVGPOOL_PADDING].len == 0) {
        *fail = ref_status_make(REF_STATUS_INVALID, false, "padding is empty");
        return false;
    }
    k[0] = value(&q->p[REF_AVGPOOL_KERNEL_SIZE], 0);
    k[1] = q->p[REF_AVGPOOL_KERNEL_SIZE].len == 1 ? k[0] : value(&q->p[REF_AVGPOOL_KERNEL_SIZE], 1);
    p[0] = value(&q->p[REF_AVGPOOL_PADDING], 0);
    p[1] = q->p[REF_AVGPOOL_PADDING].len == 1 ? p[0] : value(&q->p[REF_AVGPOOL_PADDING], 1);
    for (int a = 0; a < 2; a++)
        if (p[a] > k[a] / 2) { /* kernel < 2·pad, written without overflow */
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "padding %s = %lld exceeds half of kernelSize %s = %lld",
                                    a ? "W" : "H", (long long)p[a], a ? "W" : "H",
                                    (long long)k[a]);
            return false;
        }
    return true;
}

/* A10: the lowering's global-pooling test (divisor 0, kernel = self's H×W >= 10×10, gradOutput
 * 1×1), which skips every later check. */
static bool global_pool(const ref_status_query *q, const int64_t k[2])
{
    const ref_tensor_desc *go = &q->t[0], *self = &q->t[1];
    int r = go->rank, rs = self->rank;
    const int64_t divisor = ref_param_int(q, REF_AVGPOOL_DIVISOR_OVERRIDE);
    if (divisor != 0 || rs < 2)
        return false;
    return ref_avgpool_vendor_global(k[0], k[1], self->dims[rs - 2], self->dims[rs - 1],
                                     go->dims[r - 2], go->dims[r - 1], divisor);
}

/* The stride of axis a (H 0, W 1): NULL or empty stride = kernel. */
static int64_t stride_of(const ref_status_query *q, const int64_t k[2], int a)
{
    const ref_param *s = &q->p[REF_AVGPOOL_STRIDE];
    if (!s->present || s->len == 0)
        return k[a];
    return a == 1 && s->len == 2 ? value(s, 1) : value(s, 0);
}

/* A11/A12: what the chosen lowering still refuses. A13 (derived): the lowering computes
 * (gradOutput H - 1) * stride + kernel in int64 (NN:610-611@0413e303); where that overflows
 * the result is undefined, so aclcts refuses it. */
static bool lowering_ok(const ref_status_query *q, const int64_t k[2], const int64_t p[2],
                        ref_status *fail)
{
    const ref_tensor_desc *go = &q->t[0];
    for (int a = 0; a < 2; a++) {
        __int128 last = (__int128)(go->dims[go->rank - 2 + a] - 1) * stride_of(q, k, a) + k[a];
        if (last > INT64_MAX) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "the last %s window of gradOutput ends past the int64 range",
                                    a ? "W" : "H");
            return false;
        }
    }
    const ref_family family = ref_product_family(q->product);
    const bool a2a3 = family == REF_FAMILY_A2A3;
    const bool regbase = family == REF_FAMILY_950 && q->spec != REF_SPEC_VENDOR_OLD;
    const int64_t divisor = ref_param_int(q, REF_AVGPOOL_DIVISOR_OVERRIDE);
    if (!a2a3 && !regbase && (divisor < -255 || divisor > 255)) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "divisorOverride %lld is outside [-255, 255], which the cube "
                                "lowering on %s needs", (long long)divisor,
                                ref_product_id(q->product));
        return false;
    }
    for (int a = 0; a < 2; a++)
        if (p[a] < 0) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "padding %s = %lld is less than 0",
                                    a ? "W" : "H", (long long)p[a]);
            return false;
        }
    return true;
}

/* A14: a NULL stride reaches `->Size()` without a null check off the cube: the vector
 * lowering of 910b/910_93 fills its int arrays from it (FillIntArray, every release) and 950's
 * regbase lowering checks its values (CheckArrayDataAvgPoolBackWard, from 9.0). The code
 * dereferences NULL there: the outcome is undefined, no code can be demanded. */
static bool null_stride_undefined(const ref_status_query *q, ref_status *out)
{
    if (q->p[REF_AVGPOOL_STRIDE].present)
        return false;
    ref_avgpool_params p;
    ref_avgpool_params_of(q, &p);
    if (ref_avgpool_vendor_cube(q->spec, q->product, &p))
        return false;
    bool regbase = ref_product_family(q->product) == REF_FAMILY_950;
    *out = ref_status_make(REF_STATUS_SUCCESS, false,
                           "stride is NULL and the %s lowering on %s reads its length without a "
                           "null check (%s)",
                           regbase ? "regbase" : "vector", ref_product_id(q->product),
                           regbase ? "CheckArrayDataAvgPoolBackWard" : "FillIntArray");
    out->undefined = true;
    return true;
}

ref_status ref_status_vendor_avgpool2d_backward(const ref_status_query *q)
{
    const ref_tensor_desc *t = q->t;
    ref_status fail;
    char b1[200], b2[200];

    /* A1: null pointers; stride may be NULL. A2 (package, derived): no kernel for the op on
     * ascend310b. */
    if (!ref_status_avgpool_pointers_ok(q, &fail) || !ref_status_avgpool_product_ok(q, &fail))
        return fail;
    /* A3: each dtype listed for the SoC, then gradOutput's equal to gradInput's (self free). */
    for (int i = 0; i < 3; i++)
        if (!dtype_listed(q->spec, q->product, t[i].dtype))
            return ref_status_make(REF_STATUS_INVALID, false, "%s dtype %s is not supported on %s",
                                   tensor_names[i], ref_dtype_name(t[i].dtype),
                                   ref_product_id(q->product));
    if (t[0].dtype != t[2].dtype)
        return ref_status_make(REF_STATUS_INVALID, false,
                               "gradOutput dtype %s differs from gradInput dtype %s",
                               ref_dtype_name(t[0].dtype), ref_dtype_name(t[2].dtype));
    int64_t k[2], p[2];
    if (!formats_ok(t, &fail) || !dims_ok(q, &fail) || !padding_ok(q, k, p, &fail))
        return fail;
    /* A7: cubeMathType 0..3; 161001 in release 8.5. */
    if (!ref_status_avgpool_cube_range_ok(q, &fail))
        return fail;
    /* A8: self's shape equals gradInput's. */
    if (!ref_status_same_shape(&t[1], &t[2]))
        return ref_status_make(REF_STATUS_INVALID, false,
                               "self shape %s differs from gradInput shape %s",
                               ref_status_shape_str(&t[1], b1, sizeof b1),
                               ref_status_shape_str(&t[2], b2, sizeof b2));
    /* A8' (derived): gradOutput keeps self's leading dims; the code does not compare them and
     * the kernels' result is undefined otherwise. gradOutput's H and W are free (A9'). */
    for (int i = 0; i < t[1].rank - 2; i++)
        if (t[0].dims[i] != t[1].dims[i])
            return ref_status_make(REF_STATUS_INVALID, false,
                                   "gradOutput dim %d = %lld differs from self dim %d = %lld", i,
                                   (long long)t[0].dims[i], i, (long long)t[1].dims[i]);
    /* A9: an empty tensor succeeds with nothing to compute. */
    if (ref_status_first_empty(t, tensor_names, 3, &fail))
        return fail;
    if (!global_pool(q, k) && (null_stride_undefined(q, &fail) || !lowering_ok(q, k, p, &fail)))
        return fail;
    return ref_status_make(REF_STATUS_SUCCESS, true, "valid parameters on %s (%s)",
                           ref_product_id(q->product), ref_spec_name(q->spec));
}

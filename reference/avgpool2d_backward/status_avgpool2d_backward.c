/* Expected status of aclnnAvgPool2dBackwardGetWorkspaceSize: the error table of spec/000_*, its
 * per-product dtype, divisorOverride and cubeMathType rules, facts §3 and §4, in the check order
 * of docs/contract.md. Tensors: t[0] gradOutput, t[1] self, t[2] gradInput. */
#include <stdio.h>

#include "avgpool_internal.h"
#include "status_internal.h"

#define tensor_names ref_avgpool_tensor_names

static bool dtype_supported(ref_product p, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT || dt == REF_DT_FLOAT16)
        return true;
    /* doc: "Atlas inference products, Atlas training products: ... do not support BFLOAT16" */
    const ref_family f = ref_product_family(p);
    return dt == REF_DT_BF16 && (f == REF_FAMILY_A2A3 || f == REF_FAMILY_950);
}

/* Forward output size on one axis (facts §4, PyTorch pooling_output_shape), in 128-bit
 * arithmetic so fuzzed extreme dims and parameters cannot overflow. */
__extension__ typedef __int128 wide;

static wide floor_div(wide a, wide b)
{
    wide q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static wide forward_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode)
{
    wide out = floor_div((wide)in + 2 * (wide)p - k + (ceil_mode ? (wide)s - 1 : 0), s) + 1;
    if (ceil_mode && (out - 1) * s >= (wide)in + p)
        out--;
    return out;
}

bool ref_avgpool_output_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                             bool ceil_mode, int64_t *out)
{
    if (kernel <= 0 || stride <= 0 || pad < 0)
        return false;
    wide o = forward_size(in, kernel, stride, pad, ceil_mode);
    if (o < INT64_MIN || o > INT64_MAX)
        return false;
    *out = (int64_t)o;
    return true;
}

/* Length and values of an int array; `what` names it, `min` is the least legal value. */
static bool int_array_ok(const ref_param *a, const char *what, int64_t min,
                         bool empty_ok, ref_status *fail)
{
    if (a->len < (empty_ok ? 0 : 1) || a->len > 2) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "%s has length %lld but must have length %s", what,
                                (long long)a->len, empty_ok ? "0, 1 or 2" : "1 or 2");
        return false;
    }
    for (int64_t i = 0; i < a->len; i++) {
        if (a->values[i] < min) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s[%lld] = %lld but must be %s",
                                    what, (long long)i, (long long)a->values[i],
                                    min > 0 ? "greater than 0" : "at least 0");
            return false;
        }
    }
    return true;
}

/* (H, W) pair of a length-1 or -2 array: length 1 means H = W. */
static void pair(const ref_param *a, int64_t out[2])
{
    out[0] = a->values[0];
    out[1] = a->len == 2 ? a->values[1] : a->values[0];
}

/* 3. dtypes: support per product, then gradOutput and self equal to gradInput. */
static bool dtypes_ok(const ref_status_query *q, ref_status *fail)
{
    const ref_tensor_desc *t = q->t;
    for (int i = 0; i < 3; i++)
        if (!dtype_supported(q->product, t[i].dtype)) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s dtype %s is not supported on %s", tensor_names[i],
                                    ref_dtype_name(t[i].dtype), ref_product_id(q->product));
            return false;
        }
    for (int i = 0; i < 2; i++)
        if (t[i].dtype != t[2].dtype) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s dtype %s differs from gradInput dtype %s",
                                    tensor_names[i], ref_dtype_name(t[i].dtype),
                                    ref_dtype_name(t[2].dtype));
            return false;
        }
    return true;
}

/* 4. Formats NCHW or NCL (not cross-checked with the rank: contract, derived). 5. Ranks 3 or 4,
 * all three equal. */
static bool formats_and_ranks_ok(const ref_tensor_desc *t, ref_status *fail)
{
    for (int i = 0; i < 3; i++)
        if (t[i].format != REF_FMT_NCHW && t[i].format != REF_FMT_NCL) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s format %s is not NCHW or NCL",
                                    tensor_names[i], ref_format_name(t[i].format));
            return false;
        }
    for (int i = 0; i < 3; i++)
        if (t[i].rank != 3 && t[i].rank != 4) {
            *fail = ref_status_make(REF_STATUS_INVALID, false, "%s has rank %d but must be 3 or 4",
                                    tensor_names[i], t[i].rank);
            return false;
        }
    for (int i = 0; i < 2; i++)
        if (t[i].rank != t[2].rank) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s rank %d differs from gradInput rank %d", tensor_names[i],
                                    t[i].rank, t[2].rank);
            return false;
        }
    return true;
}

/* 6. Parameter values. kernelSize length 1 or 2, > 0; stride length 1 or 2 (doc) or 0..2 with
 * empty = kernel (vendor), > 0; padding length 1 or 2, >= 0; 2·pad <= kernel; divisorOverride's
 * range. Sets the (H, W) pairs k, s, p. */
static bool params_ok(const ref_status_query *q, ref_spec spec, int64_t k[2], int64_t s[2],
                      int64_t p[2], ref_status *fail)
{
    const ref_param *kernel = &q->p[REF_AVGPOOL_KERNEL_SIZE], *stride = &q->p[REF_AVGPOOL_STRIDE];
    const ref_param *padding = &q->p[REF_AVGPOOL_PADDING];
    const int64_t divisor = ref_param_int(q, REF_AVGPOOL_DIVISOR_OVERRIDE);
    if (!int_array_ok(kernel, "kernelSize", 1, false, fail))
        return false;
    pair(kernel, k);
    if (stride->present && !int_array_ok(stride, "stride", 1, spec != REF_SPEC_DOC, fail))
        return false;
    if (stride->present && stride->len > 0)
        pair(stride, s);
    else
        s[0] = k[0], s[1] = k[1];
    if (!int_array_ok(padding, "padding", 0, false, fail))
        return false;
    pair(padding, p);
    for (int a = 0; a < 2; a++)
        if (p[a] > k[a] / 2) { /* 2·pad > kernel, without overflow (pad, kernel >= 0) */
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "padding %s = %lld exceeds half of kernelSize %s = %lld",
                                    a ? "W" : "H", (long long)p[a], a ? "W" : "H",
                                    (long long)k[a]);
            return false;
        }
    /* "Atlas inference products and Atlas training products: The supported range is
     * [-255, 255]"; "this check does not apply to Ascend 950PR/Ascend 950DT". */
    if (ref_product_family(q->product) == REF_FAMILY_TRAIN_INFER &&
        (divisor < -255 || divisor > 255)) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "divisorOverride %lld is outside [-255, 255] on %s",
                                (long long)divisor, ref_product_id(q->product));
        return false;
    }
    return true;
}

/* gradOutput's H and W: the forward output of self's (an empty self may have an empty forward
 * output; step 8 then decides: facts §3, the vendor code returns success for every empty
 * tensor). */
static bool forward_sizes_ok(const ref_status_query *q, const int64_t k[2], const int64_t s[2],
                             const int64_t p[2], ref_status *fail)
{
    const ref_tensor_desc *go = &q->t[0], *self = &q->t[1];
    const int r = self->rank;
    const bool self_empty = ref_status_zero_axis(self) >= 0;
    for (int a = 0; a < 2; a++) {
        int64_t in = self->dims[r - 2 + a];
        wide out = forward_size(in, k[a], s[a], p[a], ref_param_bool(q, REF_AVGPOOL_CEIL_MODE));
        if (self_empty && out < 0)
            out = 0;
        if (out < 1 && !self_empty) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "the forward output %s of self (%lld) is %lld, less than 1",
                                    a ? "width" : "height", (long long)in, (long long)out);
            return false;
        }
        if (go->dims[r - 2 + a] != out) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "gradOutput %s %lld differs from the forward output size %lld",
                                    a ? "width" : "height", (long long)go->dims[r - 2 + a],
                                    (long long)out);
            return false;
        }
    }
    return true;
}

/* 7. Shapes: no negative dim; self == gradInput; gradOutput = (N,) C, forward size. */
static bool shapes_ok(const ref_status_query *q, const int64_t k[2], const int64_t s[2],
                      const int64_t p[2], ref_status *fail)
{
    const ref_tensor_desc *t = q->t, *self = &t[1];
    char b1[200], b2[200];
    if (ref_status_first_negative(t, tensor_names, 3, fail))
        return false;
    if (!ref_status_same_shape(self, &t[2])) {
        *fail = ref_status_make(REF_STATUS_INVALID, false,
                                "self shape %s differs from gradInput shape %s",
                                ref_status_shape_str(self, b1, sizeof b1),
                                ref_status_shape_str(&t[2], b2, sizeof b2));
        return false;
    }
    for (int i = 0; i < self->rank - 2; i++)
        if (t[0].dims[i] != self->dims[i]) {
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "gradOutput dim %d = %lld differs from self dim %d = %lld", i,
                                    (long long)t[0].dims[i], i, (long long)self->dims[i]);
            return false;
        }
    return forward_sizes_ok(q, k, s, p, fail);
}

/* 8. Empty tensors: doc "Empty tensors are not supported"; vendor success, no work. */
static bool nonempty(const ref_status_query *q, ref_spec spec, ref_status *done)
{
    if (spec != REF_SPEC_DOC)
        return !ref_status_first_empty(q->t, tensor_names, 3, done);
    for (int i = 0; i < 3; i++) {
        int ax = ref_status_zero_axis(&q->t[i]);
        if (ax >= 0) {
            *done = ref_status_make(REF_STATUS_INVALID, false,
                                    "%s is empty (dim %d is 0) and empty tensors are not "
                                    "supported", tensor_names[i], ax);
            return false;
        }
    }
    return true;
}

/* 9. cubeMathType: range 0..3 (161001 under vendor-old), then the per-product rules of the
 * document's enumeration (161002 in every spec). */
static bool cube_math_ok(const ref_status_query *q, const int64_t k[2], const int64_t p[2],
                         ref_status *fail)
{
    if (!ref_status_avgpool_cube_range_ok(q, fail))
        return false;
    const int64_t cube = ref_status_avgpool_cube_math_type(q);
    const ref_tensor_desc *self = &q->t[1];
    const int r = self->rank;
    const ref_dtype dt = self->dtype;
    const bool global = ref_avgpool_global_pooling(k[0], k[1], self->dims[r - 2],
                                                   self->dims[r - 1], p[0], p[1],
                                                   ref_param_int(q, REF_AVGPOOL_DIVISOR_OVERRIDE));
    const char *prod = ref_product_id(q->product);
    const ref_family family = ref_product_family(q->product);
    const char *where = family == REF_FAMILY_950 ? " in global pooling" : "";
    switch (family) {
    case REF_FAMILY_TRAIN_INFER:
        /* "0: ... not supported when the input data type is FLOAT32"; "3: ... not supported" */
        if (cube == 0 && dt == REF_DT_FLOAT)
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "cubeMathType 0 (KEEP_DTYPE) is not supported with FLOAT on "
                                    "%s", prod);
        else if (cube == 3)
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "cubeMathType 3 (USE_HF32) is not supported on %s", prod);
        else
            return true;
        return false;
    case REF_FAMILY_A2A3:
    case REF_FAMILY_950:
        /* "2: ... not supported when the input data type is BFLOAT16"; "3: ... not supported
         * for other input data types"; on 950 both "In globalPooling mode" only. */
        if (family == REF_FAMILY_950 && !global)
            return true;
        if (cube == 2 && dt == REF_DT_BF16)
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "cubeMathType 2 (USE_FP16) is not supported with BF16 on %s%s",
                                    prod, where);
        else if (cube == 3 && dt != REF_DT_FLOAT)
            *fail = ref_status_make(REF_STATUS_INVALID, false,
                                    "cubeMathType 3 (USE_HF32) is not supported with %s on %s%s",
                                    ref_dtype_name(dt), prod, where);
        else
            return true;
        return false;
    default: return true;
    }
}

/* The checks in docs/contract.md's order (1. null pointers, 2. product: "Atlas 200I/500 A2
 * inference products ×", then 3..9 above); the first failing one decides. */
ref_status ref_status_avgpool2d_backward(const ref_status_query *q)
{
    const ref_spec spec = ref_status_spec(q);
    ref_status fail;
    int64_t k[2], s[2], p[2];
    if (!ref_status_avgpool_pointers_ok(q, &fail) || !ref_status_avgpool_product_ok(q, &fail) ||
        !dtypes_ok(q, &fail) || !formats_and_ranks_ok(q->t, &fail) ||
        !params_ok(q, spec, k, s, p, &fail) || !shapes_ok(q, k, s, p, &fail) ||
        !nonempty(q, spec, &fail) || !cube_math_ok(q, k, p, &fail))
        return fail;
    return ref_status_make(REF_STATUS_SUCCESS, true, "valid parameters on %s",
                           ref_product_id(q->product));
}

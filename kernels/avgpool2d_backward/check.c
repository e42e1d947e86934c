/* avgpool_check: the first phase's checks of docs/contract.md (the `doc` contract) in their
 * order; the first failing check decides the status. One section per check of the contract's
 * numbering; the vendor releases' checks are check_vendor.c. */
#include "avgpool2d_backward.h"

/* Check 1 of docs/contract.md: null pointers (161001), then objects that are not live
 * aclTensor / aclIntArray handles (161002, derived: a destroyed or foreign handle). */
static aclnnStatus tensor_ok(const aclTensor *t, const char *name)
{
    if (!emu_tensor_valid(t)) {
        emu_set_error("%s is not a live aclTensor (destroyed or not created by aclCreateTensor)",
                      name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus array_ok(const aclIntArray *a, const char *name)
{
    if (a->magic != EMU_MAGIC_INTARRAY) {
        emu_set_error("%s is not a live aclIntArray (destroyed or not created by "
                      "aclCreateIntArray)", name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus avgpool_check_nulls(const avgpool_args *a)
{
    const struct {
        const void *p;
        const char *name;
    } required[] = {
        {a->grad_output, "gradOutput"}, {a->self, "self"},     {a->kernel_size, "kernelSize"},
        {a->padding, "padding"},        {a->grad_input, "gradInput"},
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (required[i].p == NULL) {
            emu_set_error("%s is a null pointer: gradOutput, self, kernelSize, padding and "
                          "gradInput are required", required[i].name);
            return ACLNN_ERR_PARAM_NULLPTR;
        }
    }
    aclnnStatus st;
    if ((st = tensor_ok(a->grad_output, "gradOutput")) || (st = tensor_ok(a->self, "self")) ||
        (st = tensor_ok(a->grad_input, "gradInput")) ||
        (st = array_ok(a->kernel_size, "kernelSize")) ||
        (st = array_ok(a->padding, "padding")) ||
        (a->stride != NULL && (st = array_ok(a->stride, "stride")))) {
        return st;
    }
    return ACLNN_SUCCESS;
}

/* Check 2: the product must support the operator (facts §2; the message names the product). */
aclnnStatus avgpool_check_product(void)
{
    const emu_profile *prof = emu_profile_current();
    if (!avgpool_product_of(prof)->supported) {
        emu_set_error("aclnnAvgPool2dBackward is not supported on %s (%s)", prof->product,
                      prof->id);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* Check 3: each dtype supported (FLOAT, FLOAT16; BF16 where the profile allows it), then the
 * three dtypes equal. */
static aclnnStatus dtype_supported(const aclTensor *t, const char *name)
{
    const emu_profile *prof = emu_profile_current();
    if (t->dtype == ACL_FLOAT || t->dtype == ACL_FLOAT16) {
        return ACLNN_SUCCESS;
    }
    if (t->dtype == ACL_BF16) {
        if (avgpool_product_of(prof)->bf16) {
            return ACLNN_SUCCESS;
        }
        emu_set_error("%s is BF16, which %s (%s) does not support: FLOAT and FLOAT16 only", name,
                      prof->product, prof->id);
        return ACLNN_ERR_PARAM_INVALID;
    }
    emu_set_error("%s is %s: the dtype must be FLOAT, FLOAT16%s", name, emu_dtype_name(t->dtype),
                  avgpool_product_of(prof)->bf16 ? " or BF16" : "");
    return ACLNN_ERR_PARAM_INVALID;
}

static aclnnStatus check_dtypes(const avgpool_args *a)
{
    aclnnStatus st;
    if ((st = dtype_supported(a->grad_output, "gradOutput")) ||
        (st = dtype_supported(a->self, "self")) ||
        (st = dtype_supported(a->grad_input, "gradInput"))) {
        return st;
    }
    const aclTensor *other = a->grad_output->dtype != a->grad_input->dtype ? a->grad_output
                                                                            : a->self;
    if (other->dtype != a->grad_input->dtype) {
        emu_set_error("%s is %s while gradInput is %s: the dtypes of gradOutput, self and "
                      "gradInput must be equal",
                      other == a->self ? "self" : "gradOutput", emu_dtype_name(other->dtype),
                      emu_dtype_name(a->grad_input->dtype));
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* Checks 4 and 5: format NCHW or NCL for each tensor, then rank 3 or 4 for each and the three
 * ranks equal. Format and rank are not cross-checked (docs/contract.md, derived). */
static aclnnStatus check_formats_ranks(const avgpool_args *a)
{
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    const char *name[3] = {"gradOutput", "self", "gradInput"};
    for (int i = 0; i < 3; i++) {
        if (t[i]->format != ACL_FORMAT_NCHW && t[i]->format != ACL_FORMAT_NCL) {
            emu_set_error("%s has format %s: the format must be NCHW or NCL", name[i],
                          emu_format_name(t[i]->format));
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (t[i]->ndim != 3 && t[i]->ndim != 4) {
            emu_set_error("%s has %llu dims: the rank must be 3 (NCL) or 4 (NCHW)", name[i],
                          (unsigned long long)t[i]->ndim);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (t[i]->ndim != a->grad_input->ndim) {
            emu_set_error("%s has %llu dims while gradInput has %llu: the ranks of gradOutput, "
                          "self and gradInput must be equal", name[i],
                          (unsigned long long)t[i]->ndim,
                          (unsigned long long)a->grad_input->ndim);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    return ACLNN_SUCCESS;
}

/* Check 6: kernelSize, stride, padding and divisorOverride values. A null stride means
 * stride = kernel (facts §3); an empty stride is 161002 under `doc` and = kernel when the
 * profile's empty_stride switch says so (`vendor`). */
/* Expands a length-1 or length-2 array into (h, w); checks each value against `min`. */
static aclnnStatus pair(const aclIntArray *arr, const char *name, int64_t min, const char *rule,
                        int64_t *h, int64_t *w)
{
    if (arr->size != 1 && arr->size != 2) {
        emu_set_error("%s has length %llu: the length must be 1 or 2", name,
                      (unsigned long long)arr->size);
        return ACLNN_ERR_PARAM_INVALID;
    }
    for (uint64_t i = 0; i < arr->size; i++) {
        if (arr->values[i] < min) {
            emu_set_error("%s[%llu] is %lld: %s", name, (unsigned long long)i,
                          (long long)arr->values[i], rule);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    *h = arr->values[0];
    *w = arr->values[arr->size - 1];
    return ACLNN_SUCCESS;
}

static aclnnStatus check_params(const avgpool_args *a, avgpool_window *win)
{
    const emu_profile *prof = emu_profile_current();
    aclnnStatus st = pair(a->kernel_size, "kernelSize", 1, "each kernel size must be > 0",
                          &win->kh, &win->kw);
    if (st != ACLNN_SUCCESS) {
        return st;
    }
    if (a->stride == NULL ||
        (a->stride->size == 0 && prof->empty_stride == EMU_EMPTY_STRIDE_KERNEL)) {
        win->sh = win->kh;
        win->sw = win->kw;
    } else if ((st = pair(a->stride, "stride", 1, "each stride must be > 0", &win->sh,
                          &win->sw)) != ACLNN_SUCCESS) {
        return st;
    }
    if ((st = pair(a->padding, "padding", 0, "each padding must be >= 0", &win->ph,
                   &win->pw)) != ACLNN_SUCCESS) {
        return st;
    }
    /* 2*pad > kernel written without overflow: pad > kernel/2 in exact arithmetic. */
    if (!emu_fault_on(EMU_FAULT_SKIP_CHECK)) {
        const char *axis[2] = {"H", "W"};
        int64_t k[2] = {win->kh, win->kw}, p[2] = {win->ph, win->pw};
        for (int i = 0; i < 2; i++) {
            if (p[i] > k[i] / 2) {
                emu_set_error("padding%s is %lld and kernelSize%s is %lld: the padding must be "
                              "at most half the kernel size", axis[i], (long long)p[i], axis[i],
                              (long long)k[i]);
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
    }
    if (avgpool_product_of(prof)->divisor_range_checked &&
        (a->divisor_override < -255 || a->divisor_override > 255)) {
        emu_set_error("divisorOverride is %lld: on %s it must lie in [-255, 255]",
                      (long long)a->divisor_override, prof->product);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

/* Checks 7 and 8: shapes, then empty tensors. gradOutput must have self's leading dims and the
 * forward output size of facts §4 (derived from PyTorch's shape check); self and gradInput have
 * equal shapes. */
static bool has_zero_dim(const aclTensor *t)
{
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] == 0) {
            return true;
        }
    }
    return false;
}

bool avgpool_any_empty(const avgpool_args *a)
{
    return has_zero_dim(a->grad_output) || has_zero_dim(a->self) || has_zero_dim(a->grad_input);
}

static aclnnStatus check_shapes(const avgpool_args *a, const avgpool_window *win,
                                avgpool_params *p)
{
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    const char *name[3] = {"gradOutput", "self", "gradInput"};
    char s0[160], s1[160];
    for (int i = 0; i < 3; i++) {
        for (uint64_t d = 0; d < t[i]->ndim; d++) {
            if (t[i]->dims[d] < 0) {
                emu_set_error("%s has shape %s: dims must not be negative", name[i],
                              emu_shape_str(t[i], s0, sizeof s0));
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
    }
    const aclTensor *self = a->self, *go = a->grad_output;
    for (uint64_t d = 0; d < self->ndim; d++) {
        if (self->dims[d] != a->grad_input->dims[d]) {
            emu_set_error("self has shape %s while gradInput has %s: they must be equal",
                          emu_shape_str(self, s0, sizeof s0),
                          emu_shape_str(a->grad_input, s1, sizeof s1));
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    int64_t lead = (int64_t)self->ndim - 2;
    int64_t h = self->dims[lead], w = self->dims[lead + 1];
    int64_t oh = avgpool_output_size(h, win->kh, win->sh, win->ph, a->ceil_mode);
    int64_t ow = avgpool_output_size(w, win->kw, win->sw, win->pw, a->ceil_mode);
    if (has_zero_dim(self)) {
        /* An empty input may have an empty output; step 8 decides whether that is legal. */
        oh = oh < 0 ? 0 : oh;
        ow = ow < 0 ? 0 : ow;
    } else if (oh < 1 || ow < 1) {
        emu_set_error("self has shape %s: with kernelSize (%lld, %lld), stride (%lld, %lld), "
                      "padding (%lld, %lld) the forward output size (%lld, %lld) must be >= 1",
                      emu_shape_str(self, s0, sizeof s0), (long long)win->kh, (long long)win->kw,
                      (long long)win->sh, (long long)win->sw, (long long)win->ph,
                      (long long)win->pw, (long long)oh, (long long)ow);
        return ACLNN_ERR_PARAM_INVALID;
    }
    bool ok = true;
    for (int64_t d = 0; d < lead; d++) {
        ok = ok && go->dims[d] == self->dims[d];
    }
    ok = ok && go->dims[lead] == oh && go->dims[lead + 1] == ow;
    if (!ok) {
        emu_set_error("gradOutput has shape %s: for self %s it must keep self's leading dims and "
                      "have the forward output size (%lld, %lld)",
                      emu_shape_str(go, s0, sizeof s0), emu_shape_str(self, s1, sizeof s1),
                      (long long)oh, (long long)ow);
        return ACLNN_ERR_PARAM_INVALID;
    }
    p->lead = lead;
    p->planes = 1;
    for (int64_t d = 0; d < lead; d++) {
        p->planes *= self->dims[d];
    }
    p->h = h;
    p->w = w;
    p->oh = oh;
    p->ow = ow;
    p->win = *win;
    return ACLNN_SUCCESS;
}

/* Check 9: cubeMathType, first its range (status from the profile: 161002, or 161001 under
 * vendor-old), then the per-product rules of the document (docs/contract.md). */
static aclnnStatus reject(int8_t cmt, aclDataType dt, const char *rule)
{
    const emu_profile *prof = emu_profile_current();
    emu_set_error("cubeMathType is %d with dtype %s: %s on %s", cmt, emu_dtype_name(dt), rule,
                  prof->product);
    return ACLNN_ERR_PARAM_INVALID;
}

static aclnnStatus check_cube_math(const avgpool_args *a, const avgpool_window *win)
{
    const emu_profile *prof = emu_profile_current();
    int8_t cmt = a->cube_math_type;
    aclDataType dt = a->self->dtype;
    if (cmt < 0 || cmt > 3) {
        emu_set_error("cubeMathType is %d: it must be 0 (KEEP_DTYPE), 1 "
                      "(ALLOW_FP32_DOWN_PRECISION), 2 (USE_FP16) or 3 (USE_HF32)", cmt);
        return prof->cube_math_type_code;
    }
    int64_t lead = (int64_t)a->self->ndim - 2;
    bool global = avgpool_is_global(win, a->self->dims[lead], a->self->dims[lead + 1],
                                    a->divisor_override);
    switch (prof->family) {
    case EMU_FAMILY_TRAINING_INFERENCE:
        if (cmt == 0 && dt == ACL_FLOAT) {
            return reject(cmt, dt, "KEEP_DTYPE is not supported for FLOAT (the cube has no FP32)");
        }
        if (cmt == 3) {
            return reject(cmt, dt, "USE_HF32 is not supported");
        }
        break;
    case EMU_FAMILY_950:
        if (!global) {
            break; /* the rules apply in global pooling only */
        }
        /* fall through */
    case EMU_FAMILY_A2_A3:
        if (cmt == 2 && dt == ACL_BF16) {
            return reject(cmt, dt, "USE_FP16 is not supported for BF16");
        }
        if (cmt == 3 && dt != ACL_FLOAT) {
            return reject(cmt, dt, "USE_HF32 is supported for FLOAT only");
        }
        break;
    case EMU_FAMILY_A2_INFER_310B:
    default:
        break;
    }
    return ACLNN_SUCCESS;
}

/* Checks 1 to 9; *empty is set when the tensors are empty and the profile accepts that. */
aclnnStatus avgpool_check(const avgpool_args *a, avgpool_params *p, bool *empty)
{
    avgpool_window win;
    aclnnStatus st;
    if ((st = avgpool_check_nulls(a)) || (st = avgpool_check_product()) ||
        (st = check_dtypes(a)) || (st = check_formats_ranks(a)) ||
        (st = check_params(a, &win)) || (st = check_shapes(a, &win, p))) {
        return st;
    }
    if (avgpool_any_empty(a)) {
        if (emu_profile_current()->empty_tensor == EMU_EMPTY_INVALID) {
            emu_set_error("gradOutput, self or gradInput is an empty tensor (a zero dim): empty "
                          "tensors are not supported");
            return ACLNN_ERR_PARAM_INVALID;
        }
        *empty = true; /* vendor: success, workspace 0, nothing written */
        return ACLNN_SUCCESS;
    }
    return check_cube_math(a, &win);
}

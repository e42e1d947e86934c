/* The first phase's checks under a vendor contract (ACLNN_EMU_SPEC=vendor|vendor-old): the
 * order and rules the vendor's op_api code applies (docs/contract.md "Vendor releases", A1..A14),
 * implemented here without the reference's status model. Release 8.5 differs from 9.0 in the
 * cubeMathType code and in having no regbase (950) branch. */
#include <signal.h>

#include "avgpool2d_backward.h"

/* Release 9.0 or later (9.1 and 9.2 change nothing this operator's first phase checks). */
static bool since_9_0(void) { return emu_profile_current()->contract != EMU_CONTRACT_VENDOR_8_5; }

static bool regbase(void) { return emu_profile_current()->family == EMU_FAMILY_950 && since_9_0(); }

static aclnnStatus invalid(const char *what)
{
    emu_set_error("%s", what);
    return ACLNN_ERR_PARAM_INVALID;
}

/* A3: the SoC's dtype list for each tensor, then gradOutput's dtype equal to gradInput's. */
static aclnnStatus check_dtypes(const avgpool_args *a)
{
    const emu_profile *prof = emu_profile_current();
    bool bf16 = prof->family == EMU_FAMILY_A2_A3 || regbase();
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    const char *name[3] = {"gradOutput", "self", "gradInput"};
    for (int i = 0; i < 3; i++) {
        aclDataType d = t[i]->dtype;
        if (d != ACL_FLOAT && d != ACL_FLOAT16 && !(d == ACL_BF16 && bf16)) {
            emu_set_error("%s dtype %s is not in the dtype list of %s", name[i],
                          emu_dtype_name(d), prof->soc_name);
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    if (a->grad_output->dtype != a->grad_input->dtype) {
        return invalid("gradOutput and gradInput must have the same dtype");
    }
    return ACLNN_SUCCESS;
}

/* A4: NCHW or NCL storage formats; a 4-D gradOutput needs NCHW gradOutput and gradInput. */
static aclnnStatus check_formats(const avgpool_args *a)
{
    const aclTensor *t[3] = {a->grad_output, a->self, a->grad_input};
    for (int i = 0; i < 3; i++) {
        if (t[i]->format != ACL_FORMAT_NCHW && t[i]->format != ACL_FORMAT_NCL) {
            return invalid("gradOutput, self and gradInput formats must be NCHW or NCL");
        }
    }
    if (a->grad_output->ndim == 4 &&
        (a->grad_output->format != ACL_FORMAT_NCHW || a->grad_input->format != ACL_FORMAT_NCHW)) {
        return invalid("a 4-D gradOutput needs gradOutput and gradInput in NCHW");
    }
    return ACLNN_SUCCESS;
}

static bool any_negative(const aclTensor *t)
{
    for (uint64_t d = 0; d < t->ndim; d++) {
        if (t->dims[d] < 0) {
            return true;
        }
    }
    return false;
}

static bool all_positive(const aclIntArray *arr)
{
    for (uint64_t i = 0; i < arr->size; i++) {
        if (arr->values[i] <= 0) {
            return false;
        }
    }
    return true;
}

/* A5: ranks of gradOutput/gradInput, negative dims, array lengths and values. */
static aclnnStatus check_dims(const avgpool_args *a)
{
    uint64_t ro = a->grad_output->ndim, ri = a->grad_input->ndim;
    if (ro != ri || (ro != 3 && ro != 4)) {
        return invalid("gradOutput and gradInput must both be 3-D or both be 4-D");
    }
    if (any_negative(a->grad_output) || any_negative(a->self) || any_negative(a->grad_input)) {
        return invalid("a dim of gradOutput, self or gradInput is negative");
    }
    if (a->kernel_size->size == 0 || a->kernel_size->size > 2 || !all_positive(a->kernel_size)) {
        return invalid("kernelSize needs 1 or 2 values, each > 0");
    }
    if (a->stride != NULL && (a->stride->size > 2 || !all_positive(a->stride))) {
        return invalid("stride takes at most 2 values, each > 0");
    }
    if (a->padding->size > 2) {
        return invalid("padding takes at most 2 values");
    }
    return ACLNN_SUCCESS;
}

/* A6 and the window: padding not empty, kernel >= 2 * padding; fills *win. */
static aclnnStatus check_window(const avgpool_args *a, avgpool_window *win)
{
    if (a->padding->size == 0) {
        return invalid("padding is empty");
    }
    const aclIntArray *k = a->kernel_size, *s = a->stride, *pd = a->padding;
    win->kh = k->values[0];
    win->kw = k->values[k->size - 1];
    win->ph = pd->values[0];
    win->pw = pd->values[pd->size - 1];
    bool stride_is_kernel = s == NULL || s->size == 0;
    win->sh = stride_is_kernel ? win->kh : s->values[0];
    win->sw = stride_is_kernel ? win->kw : s->values[s->size - 1];
    if (win->ph > win->kh / 2 || win->pw > win->kw / 2) {
        return invalid("padding must be at most half of kernelSize on each axis");
    }
    return ACLNN_SUCCESS;
}

bool avgpool_vendor_global(const avgpool_args *a, const avgpool_window *win, int64_t h, int64_t w)
{
    uint64_t r = a->grad_output->ndim;
    return a->divisor_override == 0 && win->kh == h && win->kw == w && h >= 10 && w >= 10 &&
           a->grad_output->dims[r - 2] == 1 && a->grad_output->dims[r - 1] == 1;
}

/* A11/A12: divisorOverride range on the cube-only SoCs, negative padding everywhere; A13
 * (derived): (gradOutput's H or W - 1) * stride + kernel must be an int64, as the lowering
 * computes it. */
static aclnnStatus check_lowering(const avgpool_args *a, const avgpool_window *win,
                                  const avgpool_params *p)
{
    int64_t span;
    if (__builtin_mul_overflow(p->oh - 1, win->sh, &span) ||
        __builtin_add_overflow(span, win->kh, &span) ||
        __builtin_mul_overflow(p->ow - 1, win->sw, &span) ||
        __builtin_add_overflow(span, win->kw, &span)) {
        return invalid("gradOutput's last window ends past the int64 range");
    }
    bool a2a3 = emu_profile_current()->family == EMU_FAMILY_A2_A3;
    if (!a2a3 && !regbase() && (a->divisor_override < -255 || a->divisor_override > 255)) {
        return invalid("divisorOverride must lie in [-255, 255] for the cube lowering");
    }
    if (win->ph < 0 || win->pw < 0) {
        return invalid("padding must not be negative");
    }
    return ACLNN_SUCCESS;
}

/* A14: off the cube the vendor's lowering reads the length of a NULL stride without a null
 * check (FillIntArray on 910b/910_93, CheckArrayDataAvgPoolBackWard on 950's regbase branch from
 * 9.0). The emulated device does what that code does on a device: it dies of SIGSEGV. */
static void read_null_stride(void)
{
    raise(SIGSEGV);
}

static void fill_geometry(const avgpool_args *a, const avgpool_window *win, avgpool_params *p)
{
    p->lead = (int64_t)a->self->ndim - 2;
    p->planes = 1;
    for (int64_t d = 0; d < p->lead; d++) {
        p->planes *= a->self->dims[d];
    }
    p->h = a->self->dims[p->lead];
    p->w = a->self->dims[p->lead + 1];
    /* A9': gradOutput's H and W are taken as given (the code never derives them). */
    p->oh = a->grad_output->dims[p->lead];
    p->ow = a->grad_output->dims[p->lead + 1];
    p->win = *win;
}

aclnnStatus avgpool_check_vendor(const avgpool_args *a, avgpool_params *p, bool *empty)
{
    avgpool_window win;
    aclnnStatus st;
    if ((st = avgpool_check_nulls(a)) || (st = avgpool_check_product()) ||
        (st = check_dtypes(a)) || (st = check_formats(a)) || (st = check_dims(a)) ||
        (st = check_window(a, &win))) {
        return st;
    }
    if (a->cube_math_type < 0 || a->cube_math_type > 3) {
        emu_set_error("cubeMathType %d is not KEEP_DTYPE, ALLOW_FP32_DOWN_PRECISION, USE_FP16 or "
                      "USE_HF32", a->cube_math_type);
        return emu_profile_current()->cube_math_type_code;
    }
    const aclTensor *self = a->self, *gi = a->grad_input, *go = a->grad_output;
    bool same = self->ndim == gi->ndim;
    for (uint64_t d = 0; same && d < self->ndim; d++) {
        same = self->dims[d] == gi->dims[d];
    }
    if (!same) {
        return invalid("self and gradInput must have the same shape");
    }
    /* A8' (derived): gradOutput's leading dims are self's. */
    for (uint64_t d = 0; d + 2 < self->ndim; d++) {
        if (go->dims[d] != self->dims[d]) {
            return invalid("gradOutput must keep self's leading (N, C) dims");
        }
    }
    if (avgpool_any_empty(a)) {
        *empty = true;
        return ACLNN_SUCCESS;
    }
    fill_geometry(a, &win, p);
    if (avgpool_vendor_global(a, &win, p->h, p->w)) {
        return ACLNN_SUCCESS;
    }
    if (a->stride == NULL && !avgpool_vendor_takes_cube(a, &win, p)) {
        read_null_stride();
    }
    if ((st = check_lowering(a, &win, p))) {
        return st;
    }
    return ACLNN_SUCCESS;
}

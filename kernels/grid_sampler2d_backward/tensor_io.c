/* gs_direct, gs_view, gs_grid_view, gs_store: the grid sampler's staging for one compute type
 * GS_T (built once per type, grid_sampler2d_backward.h). Tensors of dtype GS_DT that are
 * contiguous are used in place; anything else (FLOAT16, BF16, strided views, offsets) is staged
 * through contiguous GS_T arrays, computed there, and rounded once per element into the
 * output. */
#include <stdlib.h>
#include <string.h>

#include "grid_sampler2d_backward.h"

/* Contiguous as this kernel sees it (a padded batch stride is missed under the dense-batch
 * fault). */
static bool contiguous(const aclTensor *t)
{
    return emu_tensor_contiguous(t) || emu_batch_stride(t) != t->strides[0];
}

bool GS_FN(gs_direct)(const aclTensor *t)
{
    return t->dtype == GS_DT && contiguous(t);
}

/* Element `first` of a contiguous tensor (as this kernel sees it: from element 0 on). */
static unsigned char *contiguous_ptr(const aclTensor *t, int64_t first)
{
    return (unsigned char *)emu_element_ptr(t, 0) + first * (int64_t)emu_dtype_size(t->dtype);
}

/* Elements first .. first + n - 1 of a contiguous tensor into buf as emu_load reads them, with
 * the dtype tested once rather than the view walked and the dtype looked up for every element
 * (that walk was a fifth of a FLOAT16 vendor case's instructions). False for other dtypes. */
static bool stage_contiguous(const aclTensor *t, int64_t first, int64_t n, GS_T *buf)
{
    const unsigned char *p = contiguous_ptr(t, first);
    const uint16_t *h = (const uint16_t *)p;
    float f;
    double d;
    switch (t->dtype) {
#if !GS_DOUBLE /* one call for the range (F16C), not one into libnnopbase per element */
    case ACL_FLOAT16:
        emu_f16_to_f32_n(h, buf, n);
        return true;
    case ACL_BF16:
        emu_bf16_to_f32_n(h, buf, n);
        return true;
#else
    case ACL_FLOAT16:
        for (int64_t i = 0; i < n; i++) buf[i] = fp_f16_to_f32(h[i]);
        return true;
    case ACL_BF16:
        for (int64_t i = 0; i < n; i++) buf[i] = fp_bf16_to_f32(h[i]);
        return true;
#endif
    case ACL_FLOAT:
        for (int64_t i = 0; i < n; i++) memcpy(&f, p + 4 * i, 4), buf[i] = (GS_T)f;
        return true;
    case ACL_DOUBLE:
        for (int64_t i = 0; i < n; i++) memcpy(&d, p + 8 * i, 8), buf[i] = (GS_T)d;
        return true;
    default:
        return false;
    }
}

GS_T *GS_FN(gs_view)(const aclTensor *t, int64_t first, int64_t n, GS_T **owned)
{
    *owned = NULL;
    if (GS_FN(gs_direct)(t))
        return (GS_T *)contiguous_ptr(t, first);
    GS_T *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof(GS_T));
    if (buf != NULL && !(contiguous(t) && stage_contiguous(t, first, n, buf)))
        for (int64_t i = 0; i < n; i++)
            buf[i] = (GS_T)emu_load(t, first + i); /* exact: FLOAT16 and BF16 fit in FP32 */
    return *owned = buf;
}

/* A last dim other than 2 (possible only under the skip-check fault) reads missing coordinates
 * as 0 and ignores extra ones, staying inside the tensor. */
GS_T *GS_FN(gs_grid_view)(const aclTensor *t, int64_t first, int64_t points, GS_T **owned)
{
    int64_t d = t->dims[3];
    if (d == 2)
        return GS_FN(gs_view)(t, first * 2, points * 2, owned);
    GS_T *buf = *owned = calloc((size_t)(points > 0 ? points : 1) * 2, sizeof(GS_T));
    if (buf != NULL)
        for (int64_t p = 0; p < points; p++)
            for (int64_t k = 0; k < 2 && k < d; k++)
                buf[p * 2 + k] = (GS_T)emu_load(t, (first + p) * d + k);
    return buf;
}

#if GS_DOUBLE
void GS_FN(gs_store)(const aclTensor *t, int64_t i, GS_T v, bool truncate)
{
    (void)truncate; /* no narrowing */
    memcpy(emu_element_ptr(t, i), &v, sizeof v);
}
#else
void GS_FN(gs_store)(const aclTensor *t, int64_t i, GS_T v, bool truncate)
{
    void *p = emu_element_ptr(t, i);
    uint16_t h;
    switch (t->dtype) {
    case ACL_FLOAT16:
        h = fp_f32_to_f16(v, truncate);
        memcpy(p, &h, sizeof h);
        break;
    case ACL_BF16:
        h = fp_f32_to_bf16(v, truncate);
        memcpy(p, &h, sizeof h);
        break;
    default:
        memcpy(p, &v, sizeof v);
        break;
    }
}
#endif

/* gs_store of src[0..n-1] into elements 0..n-1 of a contiguous t, the dtype tested once: t of
 * dtype GS_DT, or (FP32 compute) FLOAT16 or BF16. False for others (per element, as gs_store
 * writes them). */
static bool store_contiguous(const aclTensor *t, int64_t first, const GS_T *src, int64_t n,
                             bool truncate)
{
    unsigned char *p = contiguous_ptr(t, first);
    if (t->dtype == GS_DT) {
        memcpy(p, src, (size_t)n * sizeof *src);
        return true;
    }
#if GS_DOUBLE
    (void)truncate;
#else
    if (t->dtype == ACL_FLOAT16) {
        emu_f32_to_f16_n(src, (uint16_t *)p, n, truncate);
        return true;
    }
    if (t->dtype == ACL_BF16) {
        emu_f32_to_bf16_n(src, (uint16_t *)p, n, truncate);
        return true;
    }
#endif
    return false;
}

void GS_FN(gs_store_range)(const aclTensor *t, int64_t first, const GS_T *src, int64_t n,
                           bool truncate)
{
    if (contiguous(t) && store_contiguous(t, first, src, n, truncate))
        return;
    for (int64_t i = 0; i < n; i++)
        GS_FN(gs_store)(t, first + i, src[i], truncate);
}

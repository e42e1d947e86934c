/* Strided access to the (H, W) planes of a rank-3 or rank-4 view, any strides and storage
 * offset, one dtype switch per row (no per-element calls in the hot loops). */
#include <string.h>

#include "avgpool2d_backward.h"

int64_t avgpool_plane_offset(const aclTensor *t, int64_t plane)
{
    if (t->ndim == 4) {
        int64_t c = t->dims[1];
        return t->offset + (plane / c) * emu_batch_stride(t) + (plane % c) * t->strides[1];
    }
    return t->offset + plane * emu_batch_stride(t);
}

static int64_t row_offset(const aclTensor *t, int64_t plane_off, int64_t h)
{
    return plane_off + h * t->strides[t->ndim - 2];
}

void avgpool_load_row(const aclTensor *t, int64_t plane_off, int64_t h, float *dst)
{
    int64_t n = t->dims[t->ndim - 1], sw = t->strides[t->ndim - 1];
    int64_t off = row_offset(t, plane_off, h);
    switch (t->dtype) {
    case ACL_FLOAT16: {
        const uint16_t *src = (const uint16_t *)t->data + off;
        if (sw == 1) {
            emu_f16_to_f32_n(src, dst, n);
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[i] = fp_f16_to_f32(src[i * sw]);
        }
        break;
    }
    case ACL_BF16: {
        const uint16_t *src = (const uint16_t *)t->data + off;
        if (sw == 1) {
            emu_bf16_to_f32_n(src, dst, n);
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[i] = fp_bf16_to_f32(src[i * sw]);
        }
        break;
    }
    default: {
        const float *src = (const float *)t->data + off;
        if (sw == 1) {
            memcpy(dst, src, sizeof(float) * (size_t)n);
        } else {
            for (int64_t i = 0; i < n; i++) {
                dst[i] = src[i * sw];
            }
        }
        break;
    }
    }
}

float *avgpool_direct_row(const aclTensor *t, int64_t plane_off, int64_t h)
{
    if (t->dtype != ACL_FLOAT || t->strides[t->ndim - 1] != 1) {
        return NULL;
    }
    return (float *)t->data + row_offset(t, plane_off, h);
}

void avgpool_store_row(const aclTensor *t, int64_t plane_off, int64_t h, const float *src,
                       bool truncate)
{
    int64_t n = t->dims[t->ndim - 1], sw = t->strides[t->ndim - 1];
    int64_t off = row_offset(t, plane_off, h);
    switch (t->dtype) {
    case ACL_FLOAT16: {
        uint16_t *dst = (uint16_t *)t->data + off;
        if (sw == 1) {
            emu_f32_to_f16_n(src, dst, n, truncate);
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[i * sw] = fp_f32_to_f16(src[i], truncate);
        }
        break;
    }
    case ACL_BF16: {
        uint16_t *dst = (uint16_t *)t->data + off;
        if (sw == 1) {
            emu_f32_to_bf16_n(src, dst, n, truncate);
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[i * sw] = fp_f32_to_bf16(src[i], truncate);
        }
        break;
    }
    default: {
        float *dst = (float *)t->data + off;
        if (dst == src) {
            break;
        }
        for (int64_t i = 0; i < n; i++) {
            dst[i * sw] = src[i];
        }
        break;
    }
    }
}

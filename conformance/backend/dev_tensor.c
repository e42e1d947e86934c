/* Device tensors with guard zones and poison (backend.h). */
#include "backend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "host images assume little-endian");

/* x is already an FP16 value (rounded by ref_round_to): pack sign, exponent, significand. */
static uint16_t fp16_bits(double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x)) return 0x7e00;
    if (isinf(a)) return sign | 0x7c00;
    if (a < 0x1p-14) return sign | (uint16_t)(a * 0x1p24); /* subnormal or zero: exact */
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    return sign | (uint16_t)((e + 14) << 10) | (uint16_t)((m * 2048.0) - 1024.0);
}

static double fp16_value(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double s = (h & 0x8000) ? -1.0 : 1.0;
    if (e == 0x1f) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp(m, -24);
    return s * ldexp(m + 1024, e - 25);
}

void cts_encode(ref_dtype dt, double x, void *dst)
{
    switch (dt) {
    case REF_DT_FLOAT16: { uint16_t h = fp16_bits(ref_round_to(x, dt)); memcpy(dst, &h, 2); return; }
    case REF_DT_BF16: {
        float f = (float)ref_round_to(x, dt); /* exact: BF16 values are floats */
        uint32_t u;
        memcpy(&u, &f, 4);
        uint16_t h = (uint16_t)(u >> 16);
        if (isnan(f)) h = 0x7fc0;
        memcpy(dst, &h, 2);
        return;
    }
    case REF_DT_FLOAT: { float f = (float)ref_round_to(x, dt); memcpy(dst, &f, 4); return; }
    case REF_DT_DOUBLE: memcpy(dst, &x, 8); return;
    default: break;
    }
    /* Integer and other dtypes only appear in dtype-error cases: any bits will do, keep them
     * meaningful for dumps. */
    int64_t i = !isfinite(x) ? 0 : x >= 0x1p63 ? INT64_MAX : x < -0x1p63 ? INT64_MIN : (int64_t)x;
    size_t n = cts_dtype_size(dt);
    memset(dst, 0, n);
    memcpy(dst, &i, n < 8 ? n : 8);
}

double cts_decode(ref_dtype dt, const void *src)
{
    switch (dt) {
    case REF_DT_FLOAT16: { uint16_t h; memcpy(&h, src, 2); return fp16_value(h); }
    case REF_DT_BF16: {
        uint16_t h;
        memcpy(&h, src, 2);
        uint32_t u = (uint32_t)h << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case REF_DT_FLOAT: { float f; memcpy(&f, src, 4); return f; }
    case REF_DT_DOUBLE: { double d; memcpy(&d, src, 8); return d; }
    case REF_DT_INT8: return *(const int8_t *)src;
    case REF_DT_UINT8: case REF_DT_BOOL: return *(const uint8_t *)src;
    case REF_DT_INT16: { int16_t v; memcpy(&v, src, 2); return v; }
    case REF_DT_UINT16: { uint16_t v; memcpy(&v, src, 2); return v; }
    case REF_DT_INT32: { int32_t v; memcpy(&v, src, 4); return v; }
    case REF_DT_UINT32: { uint32_t v; memcpy(&v, src, 4); return v; }
    case REF_DT_INT64: { int64_t v; memcpy(&v, src, 8); return (double)v; }
    case REF_DT_UINT64: { uint64_t v; memcpy(&v, src, 8); return (double)v; }
    default: return NAN;
    }
}

unsigned char cts_poison_byte(size_t i)
{
    /* 0xA5 + 0x3B·i: never a run of zeros, and FP16/FP32 words of it are ordinary numbers a
     * kernel would not produce by accident. */
    return (unsigned char)(0xA5u + 0x3Bu * (unsigned)(i & 0xff));
}

int64_t cts_dev_tensor_pos(const cts_dev_tensor *d, int64_t k)
{
    int64_t pos = d->t->offset;
    for (int i = d->t->rank - 1; i >= 0; i--) {
        int64_t n = d->t->dims[i];
        pos += (k % n) * d->strides[i];
        k /= n;
    }
    return pos;
}

int cts_dev_tensor_layout(cts_dev_tensor *d, const cts_tensor *t, int slot)
{
    memset(d, 0, sizeof *d);
    d->t = t;
    d->slot = slot;
    d->esize = cts_dtype_size(t->dtype);
    cts_tensor_extent e;
    bool ok = cts_tensor_layout(t, d->strides, &e);
    d->numel = e.numel;
    d->storage = e.storage;
    d->bytes = (size_t)e.bytes;
    return ok && (uint64_t)e.bytes <= SIZE_MAX ? 0 : -1;
}

int cts_dev_tensor_prepare(cts_dev_tensor *d, const cts_tensor *t, int slot, double *values)
{
    if (cts_dev_tensor_layout(d, t, slot) != 0) {
        free(values);
        return -1;
    }
    d->sent = malloc(d->bytes);
    d->back = malloc(d->bytes);
    if (!d->sent || !d->back) {
        free(values);
        return CTS_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < d->bytes; i++) d->sent[i] = cts_poison_byte(i);
    memcpy(d->back, d->sent, d->bytes);
    if (!values) {
        d->values = calloc((size_t)(d->numel > 0 ? d->numel : 1), sizeof(double));
        return d->values ? 0 : CTS_OUT_OF_MEMORY;
    }
    d->values = values;
    unsigned char *data = d->sent + CTS_GUARD_BYTES;
    for (int64_t k = 0; k < d->numel; k++)
        cts_encode(t->dtype, values[k], data + cts_dev_tensor_pos(d, k) * d->esize);
    for (int64_t k = 0; k < d->numel; k++)
        values[k] = cts_decode(t->dtype, data + cts_dev_tensor_pos(d, k) * d->esize);
    return 0;
}

int cts_dev_tensor_upload(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen)
{
    aclError e = b->aclrtMalloc(&d->dev, d->bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    if (e != ACL_SUCCESS || !d->dev) {
        d->dev = NULL;
        snprintf(err, errlen, "aclrtMalloc(%zu bytes) for %s failed with %d%s", d->bytes,
                 d->t->name, e, e == ACL_ERROR_BAD_ALLOC ? " (out of device memory)" : "");
        return e == ACL_ERROR_BAD_ALLOC ? CTS_OUT_OF_MEMORY : -1;
    }
    e = b->aclrtMemcpy(d->dev, d->bytes, d->sent, d->bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    if (e != ACL_SUCCESS) {
        snprintf(err, errlen, "aclrtMemcpy to the device for %s failed with %d", d->t->name, e);
        return -1;
    }
    return cts_dev_tensor_attach(b, d, (unsigned char *)d->dev + CTS_GUARD_BYTES, err, errlen);
}

int cts_dev_tensor_attach(const cts_backend *b, cts_dev_tensor *d, void *data, char *err,
                          size_t errlen)
{
    if (d->t->null) return 0;
    const cts_tensor *t = d->t;
    bool plain = !t->has_strides && t->offset == 0;
    int64_t storage_dims[1] = {d->acl_storage ? d->acl_storage : d->storage};
    d->acl = b->aclCreateTensor(t->dims, (uint64_t)t->rank, (aclDataType)t->dtype, d->strides,
                                t->offset, (aclFormat)t->format, plain ? t->dims : storage_dims,
                                plain ? (uint64_t)t->rank : 1, data);
    if (!d->acl) {
        snprintf(err, errlen, "aclCreateTensor returned NULL for %s", t->name);
        return -1;
    }
    return 0;
}

int cts_dev_tensor_download(const cts_backend *b, cts_dev_tensor *d, char *err, size_t errlen)
{
    aclError e = b->aclrtMemcpy(d->back, d->bytes, d->dev, d->bytes, ACL_MEMCPY_DEVICE_TO_HOST);
    if (e != ACL_SUCCESS) {
        snprintf(err, errlen, "aclrtMemcpy from the device for %s failed with %d", d->t->name, e);
        return -1;
    }
    return 0;
}

void cts_dev_tensor_read_back(const cts_dev_tensor *d, double *out)
{
    const unsigned char *data = d->back + CTS_GUARD_BYTES;
    for (int64_t k = 0; k < d->numel; k++)
        out[k] = cts_decode(d->t->dtype, data + cts_dev_tensor_pos(d, k) * d->esize);
}

void cts_dev_tensor_release(const cts_backend *b, cts_dev_tensor *d)
{
    if (d->acl) b->aclDestroyTensor(d->acl);
    if (d->dev) b->aclrtFree(d->dev);
    d->acl = NULL;
    d->dev = NULL;
}

void cts_dev_tensor_free(const cts_backend *b, cts_dev_tensor *d)
{
    if (b) cts_dev_tensor_release(b, d);
    free(d->sent);
    free(d->back);
    free(d->values);
    d->sent = d->back = NULL;
    d->values = NULL;
}

const char *cts_multi_index(int rank, const int64_t *dims, int64_t k, char *buf, size_t size)
{
    int64_t idx[CTS_MAX_DIMS];
    for (int i = rank - 1; i >= 0; i--) {
        int64_t n = dims[i] > 0 ? dims[i] : 1;
        idx[i] = k % n;
        k /= n;
    }
    size_t len = 0;
    len += (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "," : "", (long long)idx[i]);
    if (len < size) snprintf(buf + len, size - len, "]");
    return buf;
}

/* Element access through a tensor's view (dims, strides, offset), dtype names and sizes. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nnopbase.h"

size_t emu_dtype_size(aclDataType dt)
{
    switch (dt) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: case ACL_COMPLEX64: return 8;
    case ACL_COMPLEX128: return 16;
    default: return 0;
    }
}

const char *emu_dtype_name(aclDataType dt)
{
    switch (dt) {
    case ACL_FLOAT: return "FLOAT";
    case ACL_FLOAT16: return "FLOAT16";
    case ACL_BF16: return "BFLOAT16";
    case ACL_DOUBLE: return "DOUBLE";
    case ACL_INT8: return "INT8";
    case ACL_INT16: return "INT16";
    case ACL_INT32: return "INT32";
    case ACL_INT64: return "INT64";
    case ACL_UINT8: return "UINT8";
    case ACL_UINT16: return "UINT16";
    case ACL_UINT32: return "UINT32";
    case ACL_UINT64: return "UINT64";
    case ACL_BOOL: return "BOOL";
    case ACL_STRING: return "STRING";
    case ACL_COMPLEX64: return "COMPLEX64";
    case ACL_COMPLEX128: return "COMPLEX128";
    case ACL_DT_UNDEFINED: return "UNDEFINED";
    default: return "UNKNOWN";
    }
}

const char *emu_format_name(aclFormat f)
{
    switch (f) {
    case ACL_FORMAT_NCHW: return "NCHW";
    case ACL_FORMAT_NHWC: return "NHWC";
    case ACL_FORMAT_ND: return "ND";
    case ACL_FORMAT_NC1HWC0: return "NC1HWC0";
    case ACL_FORMAT_FRACTAL_Z: return "FRACTAL_Z";
    case ACL_FORMAT_NCL: return "NCL";
    case ACL_FORMAT_UNDEFINED: return "UNDEFINED";
    default: return "UNKNOWN";
    }
}

const char *emu_shape_str(const aclTensor *t, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "[");
    for (uint64_t i = 0; i < t->ndim && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    if (n < len)
        snprintf(buf + n, len - n, "]");
    return buf;
}

int64_t emu_tensor_numel(const aclTensor *t)
{
    int64_t n = 1;
    for (uint64_t i = 0; i < t->ndim; i++)
        n *= t->dims[i] > 0 ? t->dims[i] : 0;
    return n;
}

bool emu_tensor_contiguous(const aclTensor *t)
{
    int64_t expect = 1;
    for (uint64_t i = t->ndim; i-- > 0;) {
        if (t->dims[i] != 1 && t->strides[i] != expect)
            return false;
        expect *= t->dims[i];
    }
    return true;
}

void *emu_element_ptr(const aclTensor *t, int64_t linear_index)
{
    int64_t off = t->offset;
    for (uint64_t i = t->ndim; i-- > 0;) {
        int64_t d = t->dims[i] > 0 ? t->dims[i] : 1;
        off += (linear_index % d) * t->strides[i];
        linear_index /= d;
    }
    return (char *)t->data + off * (int64_t)emu_dtype_size(t->dtype);
}

double emu_load(const aclTensor *t, int64_t linear_index)
{
    const void *p = emu_element_ptr(t, linear_index);
    switch (t->dtype) {
    case ACL_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case ACL_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    case ACL_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return emu_f16_to_f32(h); }
    case ACL_BF16: { uint16_t h; memcpy(&h, p, 2); return emu_bf16_to_f32(h); }
    case ACL_INT8: return *(const int8_t *)p;
    case ACL_UINT8: case ACL_BOOL: return *(const uint8_t *)p;
    case ACL_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
    case ACL_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case ACL_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
    case ACL_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case ACL_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case ACL_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    default: return NAN;
    }
}

void emu_store(const aclTensor *t, int64_t linear_index, double value)
{
    void *p = emu_element_ptr(t, linear_index);
    bool trunc = emu_fault_on(EMU_FAULT_ROUND_TRUNCATE);
    switch (t->dtype) {
    case ACL_FLOAT: {
        float v = (float)value;
        if (trunc && fabs((double)v) > fabs(value)) /* rounded away from zero: step back */
            v = nextafterf(v, 0.0f);
        memcpy(p, &v, 4);
        break;
    }
    case ACL_DOUBLE: memcpy(p, &value, 8); break;
    case ACL_FLOAT16: {
        uint16_t h = emu_f32_to_f16((float)value, trunc);
        memcpy(p, &h, 2);
        break;
    }
    case ACL_BF16: {
        uint16_t h = emu_f32_to_bf16((float)value, trunc);
        memcpy(p, &h, 2);
        break;
    }
    default: break; /* the operators produce floating-point outputs only */
    }
}

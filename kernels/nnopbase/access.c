/* Element access through a tensor's view (dims, strides, offset); the one table of dtype names
 * and sizes and the one of format names (kernels/). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nnopbase.h"

/* Every dtype of acl_base.h: its name in messages and its element size (0: none fixed). */
static const struct {
    aclDataType dt;
    const char *name;
    size_t size;
} DTYPES[] = {
    {ACL_FLOAT, "FLOAT", 4},        {ACL_FLOAT16, "FLOAT16", 2},   {ACL_BF16, "BFLOAT16", 2},
    {ACL_DOUBLE, "DOUBLE", 8},      {ACL_INT8, "INT8", 1},         {ACL_INT16, "INT16", 2},
    {ACL_INT32, "INT32", 4},        {ACL_INT64, "INT64", 8},       {ACL_UINT8, "UINT8", 1},
    {ACL_UINT16, "UINT16", 2},      {ACL_UINT32, "UINT32", 4},     {ACL_UINT64, "UINT64", 8},
    {ACL_BOOL, "BOOL", 1},          {ACL_STRING, "STRING", 0},     {ACL_COMPLEX64, "COMPLEX64", 8},
    {ACL_COMPLEX128, "COMPLEX128", 16}, {ACL_DT_UNDEFINED, "UNDEFINED", 0},
};

/* Every format of acl_base.h the emulation names. */
static const struct {
    aclFormat format;
    const char *name;
} FORMATS[] = {
    {ACL_FORMAT_NCHW, "NCHW"},       {ACL_FORMAT_NHWC, "NHWC"},
    {ACL_FORMAT_ND, "ND"},           {ACL_FORMAT_NC1HWC0, "NC1HWC0"},
    {ACL_FORMAT_FRACTAL_Z, "FRACTAL_Z"}, {ACL_FORMAT_NCL, "NCL"},
    {ACL_FORMAT_UNDEFINED, "UNDEFINED"},
};

size_t emu_dtype_size(aclDataType dt)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (DTYPES[i].dt == dt)
            return DTYPES[i].size;
    return 0;
}

const char *emu_dtype_name(aclDataType dt)
{
    for (size_t i = 0; i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (DTYPES[i].dt == dt)
            return DTYPES[i].name;
    return "UNKNOWN";
}

const char *emu_format_name(aclFormat f)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (FORMATS[i].format == f)
            return FORMATS[i].name;
    return "UNKNOWN";
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

int64_t emu_batch_stride(const aclTensor *t)
{
    if (t->ndim < 2 || !emu_fault_on(EMU_FAULT_DENSE_BATCH))
        return t->strides[0];
    int64_t expect = 1;
    for (uint64_t i = t->ndim; i-- > 1;) {
        if (t->dims[i] != 1 && t->strides[i] != expect)
            return t->strides[0];
        expect *= t->dims[i];
    }
    return expect;
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

/* ref_dtype_prec and ref_operand_prec: the one table of the floating formats' precision. */
#include <float.h>

#include "ref_internal.h"

/* DOUBLE's eta is its smallest subnormal itself: half of it, 2^-1075, is not a double. */
static const ref_prec fp16 = {REF_FP16_FORMAT, 0x1p-11, 0x1.ffcp15, 0x1p-25};
static const ref_prec bf16 = {REF_BF16_FORMAT, 0x1p-8, 0x1.fep127, 0x1p-134};
static const ref_prec fp32 = {REF_FP32_FORMAT, 0x1p-24, 0x1.fffffep127, 0x1p-150};
static const ref_prec fp64 = {53, -1022, 1023, 0x1p-53, DBL_MAX, 0x1p-1074};

const ref_prec *ref_dtype_prec(ref_dtype dt)
{
    switch (dt) {
    case REF_DT_FLOAT16: return &fp16;
    case REF_DT_BF16: return &bf16;
    case REF_DT_FLOAT: return &fp32;
    case REF_DT_DOUBLE: return &fp64;
    default: return NULL;
    }
}

ref_prec ref_operand_prec(const ref_path *path)
{
    if (!path->hf32) {
        const ref_prec *f = ref_dtype_prec(path->operand);
        return f ? *f : fp32;
    }
    int p = path->hf32_bits > 0 ? path->hf32_bits : REF_HF32_BITS;
    return (ref_prec){p, fp32.emin, fp32.emax, ldexp(1.0, -p),
                      ldexp(2.0 - ldexp(1.0, 1 - p), fp32.emax), ldexp(1.0, fp32.emin - p)};
}

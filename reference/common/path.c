/* ref_avgpool_path and ref_grid_path: which arithmetic the device uses, as docs/contract.md
 * "Path" reads the documents and facts §3 (lowering of avg-pool). */
#include <string.h>

#include "ref_internal.h"

static bool global_pooling(const ref_avgpool_params *p)
{
    return p->kh == p->h && p->kw == p->w && p->ph == 0 && p->pw == 0 && p->divisor_override == 0;
}

ref_path ref_avgpool_path(ref_product product, const ref_avgpool_params *p, ref_dtype dtype,
                          int cube_math_type)
{
    ref_path vec = {REF_PATH_VECTOR, REF_DT_UNDEFINED, false, 0, "vector-fp32"};
    bool train_infer = product == REF_PRODUCT_ASCEND910 || product == REF_PRODUCT_ASCEND310P;
    bool a2a3 = product == REF_PRODUCT_ASCEND910B || product == REF_PRODUCT_ASCEND910_93;
    bool cube;
    if (global_pooling(p))
        cube = product == REF_PRODUCT_ASCEND950;
    else if (train_infer)
        cube = true;
    else if (a2a3)
        cube = p->count_include_pad && !p->ceil_mode;
    else
        cube = false;
    if (!cube)
        return vec;
    ref_path c = {REF_PATH_CUBE, dtype, false, 11, NULL};
    if (dtype == REF_DT_FLOAT16) {
        c.name = "cube-fp16";
    } else if (dtype == REF_DT_BF16) {
        c.name = "cube-bf16";
    } else if (cube_math_type == 0) {
        c.operand = REF_DT_FLOAT;
        c.name = "cube-fp32";
    } else if (cube_math_type == 2 || (cube_math_type == 1 && train_infer)) {
        c.operand = REF_DT_FLOAT16;
        c.name = "cube-fp16";
    } else {
        c.operand = REF_DT_UNDEFINED;
        c.hf32 = true;
        c.name = "cube-hf32";
    }
    return c;
}

ref_path ref_grid_path(ref_dtype dtype)
{
    ref_path p = {REF_PATH_VECTOR, REF_DT_UNDEFINED, false, 0, "vector-fp32"};
    if (dtype == REF_DT_DOUBLE)
        p.name = "vector-double";
    return p;
}

bool ref_operand_overflows(const ref_path *path, double x)
{
    if (path->kind != REF_PATH_CUBE || !isfinite(x))
        return false;
    /* Nearest-even overflows from half an ULP above the largest finite value on:
     * (2 - 2^-p)·2^emax for a p-bit significand. */
    int bits = path->hf32 ? path->hf32_bits : path->operand == REF_DT_FLOAT16 ? 11
             : path->operand == REF_DT_BF16 ? 8 : 24;
    int emax = path->operand == REF_DT_FLOAT16 && !path->hf32 ? 15 : 127;
    return fabs(x) >= ldexp(2.0 - ldexp(1.0, -bits), emax);
}

double ref_path_overflow_at(const ref_path *path)
{
    bool dbl = path->kind == REF_PATH_VECTOR && path->name && strstr(path->name, "double");
    /* FP32: its largest finite value plus half an ULP (the first value nearest rounds to inf);
     * double: its largest finite value (the next one is not a double) */
    return dbl ? 0x1.fffffffffffffp1023 : 0x1.ffffffp127;
}

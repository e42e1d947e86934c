/* ref_avgpool_vendor_path: which arithmetic a device following the vendor's code uses for
 * avg-pool, as docs/contract.md "Numerics" (L1-L5) reads ops-nn's lowering. */
#include "avgpool_internal.h"

/* L3: the cube's limits on ascend910b/910_93 (else the vector kernel). */
static bool a2a3_cube(const ref_avgpool_params *p)
{
    int64_t d = p->divisor_override;
    bool divisor_ok = d >= -255 && d <= 255;
    bool kernel_ok = p->kh <= 255 && p->kw <= 255 &&
                     (p->kh * p->kw <= 255 || (p->kh <= 20 && p->kw <= 20));
    bool strip = p->w / p->h >= 2 || p->h / p->w >= 2;
    return divisor_ok && kernel_ok && p->count_include_pad && !p->ceil_mode && !strip &&
           p->c < 65536;
}

bool ref_avgpool_vendor_cube(ref_spec spec, ref_product product, const ref_avgpool_params *p)
{
    switch (ref_product_family(product)) {
    case REF_FAMILY_TRAIN_INFER:
        return true; /* L4 */
    case REF_FAMILY_A2A3:
        return a2a3_cube(p);
    case REF_FAMILY_950:
        return spec == REF_SPEC_VENDOR_OLD; /* L4 in 8.5; 9.0's regbase kernel (L2) */
    default:
        return false;
    }
}

ref_path ref_avgpool_vendor_path(ref_spec spec, ref_product product, const ref_avgpool_params *p,
                                 ref_dtype dtype, int cube_math_type)
{
    ref_path vec = {.kind = REF_PATH_VECTOR, .operand = REF_DT_UNDEFINED, .name = "vector-fp32"};
    bool to_fp16 = cube_math_type == 1 || cube_math_type == 2;
    if (p->h <= 0 || p->w <= 0) /* empty: nothing computed */
        return vec;
    if (ref_avgpool_vendor_global(p->kh, p->kw, p->h, p->w, p->oh, p->ow, p->divisor_override)) {
        if (!to_fp16 && dtype != REF_DT_FLOAT16)
            return vec;
        ref_path div = {.kind = REF_PATH_VECTOR, .operand = REF_DT_FLOAT16, .name = "divide-fp16"};
        div.result_fp16 = dtype != REF_DT_FLOAT16;
        return div;
    }
    if (!ref_avgpool_vendor_cube(spec, product, p))
        return vec;
    /* L5: BF16 computes as FLOAT; cubeMathType 1 or 2 converts to FP16 first; HF32 only on the
     * SoCs whose cube has it. */
    ref_family family = ref_product_family(product);
    bool hf32_soc = family == REF_FAMILY_A2A3 || family == REF_FAMILY_950;
    int64_t d = p->divisor_override;
    bool premul = !(p->count_include_pad || (d > -255 && d < 255 && d != 0));
    ref_path c = {.kind = REF_PATH_CUBE, .operand = REF_DT_FLOAT, .hf32_bits = REF_HF32_BITS,
                  .name = "cube-fp32"};
    if (dtype == REF_DT_FLOAT16 || to_fp16) {
        c.operand = REF_DT_FLOAT16;
        c.name = premul ? "cube-fp16-premul" : "cube-fp16";
    } else if (cube_math_type == 3 && hf32_soc) {
        c.operand = REF_DT_UNDEFINED;
        c.hf32 = true;
        c.name = premul ? "cube-hf32-premul" : "cube-hf32";
    } else if (premul) {
        c.name = "cube-fp32-premul";
    }
    c.premul = premul;
    c.premul_fp16 = dtype == REF_DT_FLOAT16;
    c.result_fp16 = c.operand == REF_DT_FLOAT16 && dtype != REF_DT_FLOAT16;
    return c;
}

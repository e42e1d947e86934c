/* ref_avgpool_path: which arithmetic the device uses for avg-pool, as docs/contract.md "Path"
 * reads the documents and facts §3 (lowering of avg-pool). */
#include "avgpool_internal.h"

ref_path ref_avgpool_path(ref_product product, const ref_avgpool_params *p, ref_dtype dtype,
                          int cube_math_type)
{
    ref_path vec = {.kind = REF_PATH_VECTOR, .operand = REF_DT_UNDEFINED, .name = "vector-fp32"};
    const ref_family family = ref_product_family(product);
    bool train_infer = family == REF_FAMILY_TRAIN_INFER, a2a3 = family == REF_FAMILY_A2A3;
    bool cube;
    if (ref_avgpool_global_pooling(p->kh, p->kw, p->h, p->w, p->ph, p->pw, p->divisor_override))
        cube = family == REF_FAMILY_950;
    else if (train_infer)
        cube = true;
    else if (a2a3)
        cube = p->count_include_pad && !p->ceil_mode;
    else
        cube = false;
    if (!cube)
        return vec;
    ref_path c = {.kind = REF_PATH_CUBE, .operand = dtype, .hf32_bits = REF_HF32_BITS,
                  .name = NULL};
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

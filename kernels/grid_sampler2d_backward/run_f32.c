/* gs_run_f32: the second phase for FLOAT, FLOAT16 and BF16 (computed in FP32). */
#include <string.h>

#include "grid_sampler2d_backward.h"

/* One rounding of an FP32 result into the output's dtype. */
static void store_f32(const aclTensor *t, int64_t i, float v, bool truncate)
{
    void *p = emu_element_ptr(t, i);
    uint16_t h;
    switch (t->dtype) {
    case ACL_FLOAT16:
        h = emu_f32_to_f16(v, truncate);
        memcpy(p, &h, sizeof h);
        break;
    case ACL_BF16:
        h = emu_f32_to_bf16(v, truncate);
        memcpy(p, &h, sizeof h);
        break;
    default:
        memcpy(p, &v, sizeof v);
        break;
    }
}

#define GS_T float
#define GS_DT ACL_FLOAT
#define GS_FN(name) name##_f32
#define GS_KERNEL gs_kernel_f32
#define GS_STORE store_f32
#include "run_impl.h"

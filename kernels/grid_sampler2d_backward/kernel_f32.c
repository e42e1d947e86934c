/* gs_kernel_f32: the kernel in FP32 (FLOAT, FLOAT16, BF16). */
#include <float.h>

#define GS_T float
#define GS_FN(name) name##_f32
#define GS_FLOOR floorf
#define GS_FMOD fmodf
#define GS_UINT uint32_t /* same width as GS_T */
#define GS_EPSILON FLT_EPSILON
#include "kernel_impl.h"

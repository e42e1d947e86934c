/* gs_kernel_f64: the kernel in double (DOUBLE). */
#include <float.h>

#define GS_T double
#define GS_FN(name) name##_f64
#define GS_FLOOR floor
#define GS_FMOD fmod
#define GS_UINT uint64_t /* same width as GS_T */
#define GS_EPSILON DBL_EPSILON
#include "kernel_impl.h"

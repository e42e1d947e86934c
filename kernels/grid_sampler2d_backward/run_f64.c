/* gs_run_f64: the second phase for DOUBLE (computed in double). */
#include <string.h>

#include "grid_sampler2d_backward.h"

static void store_f64(const aclTensor *t, int64_t i, double v, bool truncate)
{
    (void)truncate; /* no narrowing */
    memcpy(emu_element_ptr(t, i), &v, sizeof v);
}

#define GS_T double
#define GS_DT ACL_DOUBLE
#define GS_FN(name) name##_f64
#define GS_KERNEL gs_kernel_f64
#define GS_STORE store_f64
#include "run_impl.h"

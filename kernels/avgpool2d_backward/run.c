/* The executor's run: builds the window tables of both axes and the per-output scales, then
 * runs the kernel chosen in the first phase. */
#include <stdlib.h>

#include "avgpool2d_backward.h"

aclnnStatus avgpool_run(aclOpExecutor *ex, void *workspace)
{
    const avgpool_params *p = ex->params;
    if (p == NULL || p->planes == 0 || p->h == 0 || p->w == 0) {
        return ACLNN_SUCCESS; /* nothing to compute (empty tensors, faulted status) */
    }
    /* Fault window-off-by-one: every window ends one element too far. */
    int64_t extra = emu_fault_on(EMU_FAULT_WINDOW_OFF_BY_ONE) ? 1 : 0;
    avgpool_axis ah = {0}, aw = {0};
    float *scales = NULL;
    aclnnStatus st = ACLNN_ERR_INNER;
    if (!avgpool_axis_init(&ah, p->h, p->oh, p->win.kh, p->win.sh, p->win.ph, extra) ||
        !avgpool_axis_init(&aw, p->w, p->ow, p->win.kw, p->win.sw, p->win.pw, extra) ||
        (scales = avgpool_scales(p, &ah, &aw)) == NULL) {
        emu_set_error("aclnnAvgPool2dBackward: out of host memory for the window tables");
    } else if (p->deterministic) {
        st = avgpool_kernel_deterministic(p, &ah, &aw, scales);
    } else {
        st = avgpool_kernel_atomic(p, &ah, &aw, scales, workspace);
    }
    free(scales);
    avgpool_axis_free(&ah);
    avgpool_axis_free(&aw);
    return st;
}

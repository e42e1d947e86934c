/* aclnnAvgPool2dBackwardGetWorkspaceSize: the checks of docs/contract.md in their order (the
 * first failing check decides the status), then an executor owning copies of the views and
 * the resolved geometry and path. Every status passes through emu_fault_status (fault
 * `status`). */
#include <stdlib.h>

#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "avgpool2d_backward.h"

static aclnnStatus run_nothing(aclOpExecutor *ex, void *workspace)
{
    (void)ex;
    (void)workspace;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnAvgPool2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, bool ceilMode, bool countIncludePad,
    int64_t divisorOverride, int8_t cubeMathType, aclTensor *gradInput, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    if (workspaceSize == NULL || executor == NULL) {
        emu_set_error("%s is a null pointer: the first phase needs somewhere to return the "
                      "workspace size and the executor",
                      workspaceSize == NULL ? "workspaceSize" : "executor");
        return emu_fault_status(ACLNN_ERR_PARAM_NULLPTR);
    }
    avgpool_args a = {gradOutput, self,         kernelSize,      stride,       padding,
                      ceilMode,   countIncludePad, divisorOverride, cubeMathType, gradInput};
    avgpool_params *p = calloc(1, sizeof *p);
    if (p == NULL) {
        emu_set_error("aclnnAvgPool2dBackwardGetWorkspaceSize: out of host memory");
        return ACLNN_ERR_INNER;
    }
    bool empty = false;
    aclnnStatus checked = emu_profile_current()->contract == EMU_CONTRACT_DOC
                              ? avgpool_check(&a, p, &empty)
                              : avgpool_check_vendor(&a, p, &empty);
    aclnnStatus st = emu_fault_status(checked);
    if (st != ACLNN_SUCCESS) {
        free(p);
        return st;
    }
    uint64_t ws = 0;
    aclOpExecutor *ex;
    if (checked != ACLNN_SUCCESS || empty) {
        /* Nothing to compute: an empty-tensor success, or an error the status fault hid. */
        free(p);
        ex = emu_executor_new("aclnnAvgPool2dBackward", 0, run_nothing, NULL, NULL);
    } else {
        p->grad_output = *gradOutput;
        p->self = *self;
        p->grad_input = *gradInput;
        p->ceil_mode = ceilMode;
        p->count_include_pad = countIncludePad;
        p->divisor = divisorOverride;
        avgpool_window win = p->win;
        avgpool_choose_path(&a, &win, p);
        p->deterministic = emu_deterministic();
        /* The scatter kernel accumulates in an FP32 copy of gradInput in the workspace. */
        ws = p->deterministic ? 0 : (uint64_t)(p->planes * p->h * p->w) * sizeof(float);
        ex = emu_executor_new("aclnnAvgPool2dBackward", ws, avgpool_run, free, p);
        if (ex != NULL) {
            ex->inputs[0] = &p->grad_output;
            ex->inputs[1] = &p->self;
            ex->outputs[0] = &p->grad_input;
        } else {
            free(p);
        }
    }
    if (ex == NULL) {
        emu_set_error("aclnnAvgPool2dBackwardGetWorkspaceSize: out of host memory");
        return ACLNN_ERR_INNER;
    }
    *workspaceSize = ws;
    *executor = ex;
    return ACLNN_SUCCESS;
}

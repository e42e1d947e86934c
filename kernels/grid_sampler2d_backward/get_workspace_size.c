/* aclnnGridSampler2DBackwardGetWorkspaceSize: the first phase. Checks (gs_check or
 * gs_check_vendor), chooses the compute type and kernel (gs_choose_path) and returns an
 * executor. The workspace is always 0: staging buffers, when needed, are host memory of the
 * emulation. */
#include <stdlib.h>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "grid_sampler2d_backward.h"

static void free_params(void *p)
{
    free(p);
}

/* The executor's run: the compute type's run chosen in the first phase (gs_choose_path). */
static aclnnStatus run(aclOpExecutor *executor, void *workspace)
{
    (void)workspace; /* workspace size is 0 */
    const gs_params *p = executor->params;
    if (p == NULL) /* nothing to compute */
        return ACLNN_SUCCESS;
    return p->run(p);
}

/* A success: an executor that runs `params` (NULL: a no-op). */
static aclnnStatus give_executor(gs_params *params, uint64_t *workspace_size,
                                 aclOpExecutor **executor)
{
    aclOpExecutor *ex = emu_executor_new(GS_API_NAME, 0, run, free_params, params);
    if (ex == NULL) {
        free(params);
        emu_set_error(GS_API_NAME ": out of host memory for the executor");
        return ACLNN_ERR_INNER;
    }
    if (params != NULL) { /* the tensors the generic faults act on */
        ex->inputs[0] = params->grad_output;
        ex->inputs[1] = params->input;
        ex->inputs[2] = params->grid;
        ex->outputs[0] = params->want_dx ? params->input_grad : NULL;
        ex->outputs[1] = params->want_dgrid ? params->grid_grad : NULL;
    }
    *workspace_size = 0;
    *executor = ex;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *input, const aclTensor *grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray *outputMask, aclTensor *inputGrad, aclTensor *gridGrad,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    emu_clear_error();
    /* Derived: without somewhere to put the result no success is possible, so this comes
     * first, even before the vendor's null-mask success. */
    if (workspaceSize == NULL || executor == NULL) {
        emu_set_error(GS_API_NAME ": %s must not be a null pointer",
                      workspaceSize == NULL ? "workspaceSize" : "executor");
        return emu_fault_status(ACLNN_ERR_PARAM_NULLPTR);
    }
    /* vendor (facts §3): a null outputMask succeeds before any other check */
    if (outputMask == NULL && emu_profile_current()->null_output_mask == EMU_NULL_MASK_SUCCESS)
        return give_executor(NULL, workspaceSize, executor);

    bool nothing = false;
    const bool vendor = emu_profile_current()->contract != EMU_CONTRACT_DOC;
    aclnnStatus raw = (vendor ? gs_check_vendor : gs_check)(
        gradOutput, input, grid, interpolationMode, paddingMode, outputMask, inputGrad, gridGrad,
        &nothing);
    aclnnStatus st = emu_fault_status(raw);
    if (st != ACLNN_SUCCESS)
        return st;
    if (raw != ACLNN_SUCCESS || nothing) /* `status` fault turned an error into success */
        return give_executor(NULL, workspaceSize, executor);

    gs_params *p = malloc(sizeof *p);
    if (p == NULL) {
        emu_set_error(GS_API_NAME ": out of host memory");
        return ACLNN_ERR_INNER;
    }
    const bool *mask = outputMask->values;
    *p = (gs_params){
        .grad_output = gradOutput,
        .input = input,
        .grid = grid,
        .input_grad = inputGrad,
        .grid_grad = gridGrad,
        .interpolation = (int)interpolationMode,
        .padding = (int)paddingMode,
        .align_corners = alignCorners,
        .want_dx = outputMask->size > 0 && mask[0],
        .want_dgrid = outputMask->size > 1 && mask[1],
    };
    gs_choose_path(p);
    return give_executor(p, workspaceSize, executor);
}

/* The emulated aclnnToyScaleBackward: the checks in the contract's order (null pointers, dtypes,
 * shapes, scale), every status through emu_fault_status; the run computes scale · gradOutput in
 * FP32 and rounds once to the output's dtype. */
#include <math.h>
#include <stdlib.h>

#include "aclnnop/aclnn_toy_scale_backward.h"
#include "emu.h"

#define API "aclnnToyScaleBackward"

typedef struct {
    aclTensor grad_output, grad_input;
    double scale;
} toy_params;

static aclnnStatus run(aclOpExecutor *ex, void *workspace)
{
    (void)workspace;
    const toy_params *p = ex->params;
    int64_t n = emu_tensor_numel(&p->grad_input);
    for (int64_t k = 0; k < n; k++)
        emu_store(&p->grad_input, k, (float)emu_load(&p->grad_output, k) * (float)p->scale);
    return ACLNN_SUCCESS;
}

static aclnnStatus run_nothing(aclOpExecutor *ex, void *workspace)
{
    (void)ex;
    (void)workspace;
    return ACLNN_SUCCESS;
}

static bool dtype_ok(aclDataType dt)
{
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
}

static aclnnStatus check(const aclTensor *go, double scale, const aclTensor *gi)
{
    if (go == NULL || gi == NULL) {
        emu_set_error("%s is a null pointer", go == NULL ? "gradOutput" : "gradInput");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (!dtype_ok(go->dtype) || go->dtype != gi->dtype) {
        emu_set_error("gradOutput and gradInput must have one dtype of FLOAT, FLOAT16, BF16");
        return ACLNN_ERR_PARAM_INVALID;
    }
    bool same = go->ndim == gi->ndim;
    for (uint64_t i = 0; same && i < go->ndim; i++)
        same = go->dims[i] == gi->dims[i] && go->dims[i] >= 0;
    if (!same) {
        emu_set_error("gradInput must have gradOutput's shape");
        return ACLNN_ERR_PARAM_INVALID;
    }
    int e;
    if (!isfinite(scale) || frexp(scale, &e) != 0.5 || e - 1 < -8 || e - 1 > 8) {
        emu_set_error("scale %g is not a power of two in [2^-8, 2^8]", scale);
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnToyScaleBackwardGetWorkspaceSize(const aclTensor *gradOutput, double scale,
                                                  aclTensor *gradInput, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor)
{
    if (workspaceSize == NULL || executor == NULL) {
        emu_set_error("workspaceSize and executor must not be null pointers");
        return emu_fault_status(ACLNN_ERR_PARAM_NULLPTR);
    }
    aclnnStatus checked = check(gradOutput, scale, gradInput);
    aclnnStatus st = emu_fault_status(checked);
    if (st != ACLNN_SUCCESS) return st;
    /* an error the status fault turned into a success computes nothing */
    toy_params *p = checked == ACLNN_SUCCESS ? calloc(1, sizeof *p) : NULL;
    aclOpExecutor *ex = p ? emu_executor_new(API, 0, run, free, p)
                      : checked == ACLNN_SUCCESS ? NULL
                                                 : emu_executor_new(API, 0, run_nothing, NULL, NULL);
    if (ex == NULL) {
        free(p);
        emu_set_error(API "GetWorkspaceSize: out of host memory");
        return ACLNN_ERR_INNER;
    }
    if (p) {
        *p = (toy_params){*gradOutput, *gradInput, scale};
        ex->inputs[0] = &p->grad_output;
        ex->outputs[0] = &p->grad_input;
    }
    *workspaceSize = 0;
    *executor = ex;
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnToyScaleBackward(void *workspace, uint64_t workspaceSize,
                                  aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_launch(API, workspace, workspaceSize, executor, stream);
}

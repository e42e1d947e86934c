// aclnnAvgPool2dBackward on at::avg_pool2d_backward (torch 1.13 CPU). No CANN parameter checks:
// torch's own checks decide; cubeMathType has no torch counterpart and is ignored.
#include <ATen/ops/avg_pool2d_backward.h>

#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "torch_adapter.h"

using namespace aclcts_torch;

namespace {

const char kApi[] = "aclnnAvgPool2dBackwardGetWorkspaceSize";
const char kOp[] = "aclnnAvgPool2dBackward";

// An aclIntArray as torch's IntArrayRef; NULL is allowed only where `optional` (stride: torch
// reads an empty stride as stride = kernel).
aclnnStatus int_array(const char *name, const aclIntArray *a, bool optional, at::IntArrayRef *out)
{
    if (!a) {
        if (optional) {
            *out = at::IntArrayRef();
            return ACLNN_SUCCESS;
        }
        emu_set_error("%s: %s is a null pointer", kApi, name);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (a->magic != EMU_MAGIC_INTARRAY) {
        emu_set_error("%s: %s is not a live aclIntArray", kApi, name);
        return ACLNN_ERR_PARAM_INVALID;
    }
    *out = at::IntArrayRef(a->values, a->size);
    return ACLNN_SUCCESS;
}

// torch 1.13's avg_pool2d_backward checks gradOutput's channels and plane against self but not
// its batch: with another batch it reads past gradOutput (SIGABRT or SIGSEGV, also called from
// Python; docs/torch-vs-cann.md). Such a call runs in a child.
bool batch_differs(const at::Tensor &grad_output, const at::Tensor &self)
{
    return grad_output.dim() != self.dim() ||
           (self.dim() == 4 && grad_output.size(0) != self.size(0));
}

} // namespace

aclnnStatus aclnnAvgPool2dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *kernelSize,
    const aclIntArray *stride, const aclIntArray *padding, bool ceilMode, bool countIncludePad,
    int64_t divisorOverride, int8_t /*cubeMathType*/, aclTensor *gradInput,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return torch_call(kApi, [&]() -> aclnnStatus {
        at::Tensor go, x;
        at::IntArrayRef k, s, p;
        aclnnStatus rc = torch_view(kApi, "gradOutput", gradOutput, &go);
        if (rc == ACLNN_SUCCESS)
            rc = torch_view(kApi, "self", self, &x);
        if (rc == ACLNN_SUCCESS)
            rc = int_array("kernelSize", kernelSize, false, &k);
        if (rc == ACLNN_SUCCESS)
            rc = int_array("stride", stride, true, &s);
        if (rc == ACLNN_SUCCESS)
            rc = int_array("padding", padding, false, &p);
        if (rc == ACLNN_SUCCESS && !gradInput) {
            emu_set_error("%s: gradInput is a null pointer", kApi);
            rc = ACLNN_ERR_PARAM_NULLPTR;
        }
        if (rc == ACLNN_SUCCESS)
            rc = torch_check_out_pointers(kApi, workspaceSize, executor);
        if (rc != ACLNN_SUCCESS)
            return rc;
        c10::optional<int64_t> divisor;
        if (divisorOverride != 0)
            divisor = divisorOverride;
        at::Tensor results[2];
        rc = torch_compute(kApi, "at::avg_pool2d_backward", batch_differs(go, x),
                           [&]() -> std::array<at::Tensor, 2> {
            return {at::avg_pool2d_backward(go, x, k, s, p, ceilMode, countIncludePad, divisor),
                    at::Tensor()};
        }, results);
        if (rc != ACLNN_SUCCESS)
            return rc;
        const char *const names[2] = {"gradInput", nullptr};
        aclTensor *const outputs[2] = {gradInput, nullptr};
        const aclTensor *const inputs[4] = {gradOutput, self, nullptr, nullptr};
        rc = torch_deferred_executor(kApi, kOp, names, results, outputs, inputs, executor);
        if (rc == ACLNN_SUCCESS)
            *workspaceSize = 0;
        return rc;
    });
}

aclnnStatus aclnnAvgPool2dBackward(void *workspace, uint64_t workspaceSize,
                                   aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_launch(kOp, workspace, workspaceSize, executor, stream);
}

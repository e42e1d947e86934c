// aclnnGridSampler2DBackward on at::grid_sampler_2d_backward (torch 1.13 CPU). No CANN parameter
// checks: torch's own checks decide; modes are passed through unchanged.
#include <array>

#include <ATen/ops/grid_sampler_2d_backward.h>

#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "torch_adapter.h"

using namespace aclcts_torch;

namespace {

const char kApi[] = "aclnnGridSampler2DBackwardGetWorkspaceSize";
const char kOp[] = "aclnnGridSampler2DBackward";

// outputMask as torch's bool[2]: a missing entry is false, entries past the second ignored.
aclnnStatus output_mask(const aclBoolArray *a, std::array<bool, 2> *mask)
{
    if (!a) {
        emu_set_error("%s: outputMask is a null pointer", kApi);
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    if (a->magic != EMU_MAGIC_BOOLARRAY) {
        emu_set_error("%s: outputMask is not a live aclBoolArray", kApi);
        return ACLNN_ERR_PARAM_INVALID;
    }
    for (size_t i = 0; i < 2; i++)
        (*mask)[i] = i < a->size && a->values[i];
    return ACLNN_SUCCESS;
}

// Whether torch's kernel may compute a NaN coordinate, on which torch 1.13's CPU kernel crashes
// (bilinear under border or reflection, pytorch/pytorch#24823; kernels/torch/crash_probe.py): a
// grid value that is not finite, or one so far outside [-1, 1] (beyond 2^20) that its
// unnormalized coordinate may overflow to inf, which reflection turns into NaN.
bool may_meet_nan_coordinate(const at::Tensor &grid)
{
    if (grid.numel() == 0)
        return false;
    double largest = grid.to(at::kDouble).abs().max().item<double>(); // NaN when one is NaN
    return !(largest <= 0x1p20);
}

} // namespace

aclnnStatus aclnnGridSampler2DBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *input, const aclTensor *grid,
    int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
    const aclBoolArray *outputMask, aclTensor *inputGrad, aclTensor *gridGrad,
    uint64_t *workspaceSize, aclOpExecutor **executor)
{
    return torch_call(kApi, [&]() -> aclnnStatus {
        at::Tensor go, x, g;
        std::array<bool, 2> mask{};
        aclnnStatus rc = torch_view(kApi, "gradOutput", gradOutput, &go);
        if (rc == ACLNN_SUCCESS)
            rc = torch_view(kApi, "input", input, &x);
        if (rc == ACLNN_SUCCESS)
            rc = torch_view(kApi, "grid", grid, &g);
        if (rc == ACLNN_SUCCESS)
            rc = output_mask(outputMask, &mask);
        if (rc == ACLNN_SUCCESS && (!inputGrad || !gridGrad)) {
            emu_set_error("%s: %s is a null pointer", kApi, !inputGrad ? "inputGrad" : "gridGrad");
            rc = ACLNN_ERR_PARAM_NULLPTR;
        }
        if (rc == ACLNN_SUCCESS)
            rc = torch_check_out_pointers(kApi, workspaceSize, executor);
        if (rc != ACLNN_SUCCESS)
            return rc;
        at::Tensor results[2];
        rc = torch_compute(kApi, "at::grid_sampler_2d_backward", may_meet_nan_coordinate(g),
                           [&]() -> std::array<at::Tensor, 2> {
            std::tuple<at::Tensor, at::Tensor> r = at::grid_sampler_2d_backward(
                go, x, g, interpolationMode, paddingMode, alignCorners, mask);
            // An unselected output is undefined here: that output is untouched.
            return {mask[0] ? std::get<0>(r) : at::Tensor(),
                    mask[1] ? std::get<1>(r) : at::Tensor()};
        }, results);
        if (rc != ACLNN_SUCCESS)
            return rc;
        const char *const names[2] = {"inputGrad", "gridGrad"};
        aclTensor *const outputs[2] = {inputGrad, gridGrad};
        const aclTensor *const inputs[4] = {gradOutput, input, grid, nullptr};
        rc = torch_deferred_executor(kApi, kOp, names, results, outputs, inputs, executor);
        if (rc == ACLNN_SUCCESS)
            *workspaceSize = 0;
        return rc;
    });
}

aclnnStatus aclnnGridSampler2DBackward(void *workspace, uint64_t workspaceSize,
                                       aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_launch(kOp, workspace, workspaceSize, executor, stream);
}

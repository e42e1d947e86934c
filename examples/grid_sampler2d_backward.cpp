// aclnnGridSampler2DBackward from C++: bilinear sampling of a 2x2 input at three grid points with
// alignCorners = true and zero padding, both gradients asked for (outputMask = {true, true}).
// Build against any toolkit tree (a real install or aclcts's build/ascend-emu):
//   g++ -std=c++11 grid_sampler2d_backward.cpp -I$ASCEND_HOME_PATH/include
//       -L$ASCEND_HOME_PATH/lib64 -Wl,-rpath,$ASCEND_HOME_PATH/lib64 -lascendcl -lnnopbase -lopapi
//   (one command line)
// Prints every inputGrad and gridGrad value beside the hand-derived one (PyTorch float64 agrees);
// exits 1 on a difference.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

namespace {

// input (1,1,2,2) = [1 2; 3 4]; grid (1,1,3,2) holds three (x, y) points; gradOutput (1,1,1,3).
// With alignCorners, pixel coordinate = (v + 1) / 2 * (size - 1) = (v + 1) / 2 here, and one
// pixel is 1/2 of a normalised unit, so d(sample)/dx = 1/2 * d(sample)/d(pixel x).
const std::vector<float> kInput = {1, 2, 3, 4};
const std::vector<float> kGrid = {0, 0, 0.5f, -0.5f, 1.5f, 0};
const std::vector<float> kGradOutput = {1, 2, 4};

// Point A (0, 0) -> pixel (0.5, 0.5): the four corners weigh 1/4 each; g = 1.
// Point B (0.5, -0.5) -> pixel (0.75, 0.25): weights (0,0) 0.25*0.75 = 0.1875,
//   (0,1) 0.75*0.75 = 0.5625, (1,0) 0.25*0.25 = 0.0625, (1,1) 0.75*0.25 = 0.1875; g = 2.
// Point C (1.5, 0) -> pixel (1.25, 0.5): its right corners lie outside (zero padding), so only
//   (0,1) and (1,1) get weight (2 - 1.25) * 0.5 = 0.375 each; g = 4.
// inputGrad = sum of weight * g per element:
//   (0,0) 0.25 + 2*0.1875 = 0.625          (0,1) 0.25 + 2*0.5625 + 4*0.375 = 2.875
//   (1,0) 0.25 + 2*0.0625 = 0.375          (1,1) 0.25 + 2*0.1875 + 4*0.375 = 2.125
const std::vector<float> kWantInputGrad = {0.625f, 2.875f, 0.375f, 2.125f};

// gridGrad = g * d(sample)/d(x, y). Inside the input the sample is 1 + px + 2*py, so A and B
// have per-pixel slopes (1, 2): (0.5, 1) per unit, times g: A (0.5, 1), B (1, 2).
// At C the sample is (2 - px) * (2 + 2*py) with the outside corners counted as 0:
//   d/dpx = -(2 + 2*0.5) = -3, d/dpy = (2 - 1.25) * 2 = 1.5 -> per unit (-1.5, 0.75), times 4.
const std::vector<float> kWantGridGrad = {0.5f, 1, 1, 2, -6, 3};

bool Ok(aclError rc, const char *what)
{
    if (rc != ACL_SUCCESS)
        std::fprintf(stderr, "%s failed: %d (%s)\n", what, static_cast<int>(rc),
                     aclGetRecentErrMsg());
    return rc == ACL_SUCCESS;
}

// A contiguous ND float tensor on the device, initialised from host.
struct DeviceTensor {
    void *dev = nullptr;
    aclTensor *tensor = nullptr;

    DeviceTensor(const std::vector<int64_t> &shape, const std::vector<float> &host)
    {
        std::vector<int64_t> strides(shape.size(), 1);
        for (size_t i = shape.size() - 1; i-- > 0;)
            strides[i] = strides[i + 1] * shape[i + 1];
        size_t bytes = host.size() * sizeof(float);
        if (Ok(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc") &&
            Ok(aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE),
               "aclrtMemcpy"))
            tensor = aclCreateTensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                                     ACL_FORMAT_ND, shape.data(), shape.size(), dev);
    }
    ~DeviceTensor()
    {
        if (tensor)
            aclDestroyTensor(tensor);
        if (dev)
            aclrtFree(dev);
    }
    DeviceTensor(const DeviceTensor &) = delete;
    DeviceTensor &operator=(const DeviceTensor &) = delete;

    std::vector<float> Read(size_t n) const
    {
        std::vector<float> host(n);
        size_t bytes = n * sizeof(float);
        if (!Ok(aclrtMemcpy(host.data(), bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST),
                "aclrtMemcpy"))
            host.assign(n, -1e30f);
        return host;
    }
};

bool Compare(const char *name, const std::vector<float> &got, const std::vector<float> &want)
{
    bool same = true;
    for (size_t i = 0; i < want.size(); i++) {
        std::printf("%s[%zu] = %g (expected %g)\n", name, i, got[i], want[i]);
        same = same && got[i] == want[i];
    }
    return same;
}

bool Run(aclrtStream stream)
{
    DeviceTensor gradOutput({1, 1, 1, 3}, kGradOutput), input({1, 1, 2, 2}, kInput),
        grid({1, 1, 3, 2}, kGrid);
    DeviceTensor inputGrad({1, 1, 2, 2}, std::vector<float>(4, 0)),
        gridGrad({1, 1, 3, 2}, std::vector<float>(6, 0));
    const bool mask[2] = {true, true};
    aclBoolArray *outputMask = aclCreateBoolArray(mask, 2);
    if (!gradOutput.tensor || !input.tensor || !grid.tensor || !inputGrad.tensor ||
        !gridGrad.tensor || !outputMask)
        return false;

    uint64_t workspaceSize = 0;
    aclOpExecutor *executor = nullptr;
    const int64_t bilinear = 0, zeros = 0;
    aclnnStatus st = aclnnGridSampler2DBackwardGetWorkspaceSize(
        gradOutput.tensor, input.tensor, grid.tensor, bilinear, zeros, /*alignCorners=*/true,
        outputMask, inputGrad.tensor, gridGrad.tensor, &workspaceSize, &executor);
    aclDestroyBoolArray(outputMask);
    if (!Ok(st, "aclnnGridSampler2DBackwardGetWorkspaceSize"))
        return false;
    void *workspace = nullptr;
    if (workspaceSize > 0 &&
        !Ok(aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc"))
        return false;
    bool ok = Ok(aclnnGridSampler2DBackward(workspace, workspaceSize, executor, stream),
                 "aclnnGridSampler2DBackward") &&
              Ok(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
    if (workspace)
        aclrtFree(workspace);
    if (!ok)
        return false;
    bool a = Compare("inputGrad", inputGrad.Read(4), kWantInputGrad);
    bool b = Compare("gridGrad", gridGrad.Read(6), kWantGridGrad);
    return a && b;
}

}  // namespace

int main()
{
    aclrtStream stream = nullptr;
    if (!Ok(aclInit(nullptr), "aclInit") || !Ok(aclrtSetDevice(0), "aclrtSetDevice") ||
        !Ok(aclrtCreateStream(&stream), "aclrtCreateStream"))
        return 1;
    bool ok = Run(stream);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    std::puts(ok ? "grid_sampler2d_backward example: ok"
                 : "grid_sampler2d_backward example: MISMATCH");
    return ok ? 0 : 1;
}

/* aclnnAvgPool2dBackward from C: the two-phase call a CANN program makes, on a 3x3 input with a
 * 2x2 window, stride 2 and padding 1, once counting the padding in the divisor and once not.
 * Build against any toolkit tree (a real install or aclcts's build/ascend-emu):
 *   cc -std=c11 avgpool2d_backward.c -I$ASCEND_HOME_PATH/include -L$ASCEND_HOME_PATH/lib64 \
 *      -Wl,-rpath,$ASCEND_HOME_PATH/lib64 -lascendcl -lnnopbase -lopapi
 * Prints every gradInput value beside the hand-derived one (PyTorch float64 agrees); exits 1 on
 * a difference. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"

#define N_IN 9  /* self and gradInput: 1 x 1 x 3 x 3 */
#define N_OUT 4 /* gradOutput: 1 x 1 x 2 x 2 */

/* Forward output size per axis (docs/operators.md §4): floor((3 + 2*1 - 2) / 2) + 1 = 2.
 * Windows in input rows (and likewise columns), before clipping: oh=0 covers -1..0, oh=1
 * covers 1..2. Clipped to the input: window (0,0) holds input (0,0); (0,1) holds row 0,
 * columns 1-2; (1,0) rows 1-2, column 0; (1,1) rows 1-2, columns 1-2.
 * gradOutput = [1 2; 3 4]; each window adds g/div to every input element it holds. */
static const float grad_output[N_OUT] = {1, 2, 3, 4};

/* countIncludePad = true: div = the window with its padding = 2*2 = 4 for every window.
 *   row 0: 1/4, 2/4, 2/4;  rows 1-2: 3/4, 4/4, 4/4 */
static const float want_include_pad[N_IN] = {0.25f, 0.5f, 0.5f, 0.75f, 1, 1, 0.75f, 1, 1};
/* countIncludePad = false: div = the clipped window's size: 1, 2, 2, 4.
 *   row 0: 1/1, 2/2, 2/2;  rows 1-2: 3/2, 4/4, 4/4 */
static const float want_exclude_pad[N_IN] = {1, 1, 1, 1.5f, 1, 1, 1.5f, 1, 1};

#define CHECK(call)                                                                         \
    do {                                                                                    \
        long long rc_ = (long long)(call);                                                  \
        if (rc_ != 0) {                                                                     \
            fprintf(stderr, "%s failed: %lld (%s)\n", #call, rc_, aclGetRecentErrMsg());   \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

/* A contiguous NCHW float tensor over fresh device memory holding host[0..n). */
static aclTensor *nchw_tensor(const int64_t shape[4], const float *host, size_t n, void **dev)
{
    const int64_t strides[4] = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
    size_t bytes = n * sizeof(float);
    if (aclrtMalloc(dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemcpy(*dev, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        return NULL;
    return aclCreateTensor(shape, 4, ACL_FLOAT, strides, 0, ACL_FORMAT_NCHW, shape, 4, *dev);
}

/* Runs the operator once and compares gradInput with want; 0 when all nine agree. */
static int run(aclrtStream stream, bool count_include_pad, const float want[N_IN])
{
    const int64_t in_shape[4] = {1, 1, 3, 3}, out_shape[4] = {1, 1, 2, 2};
    const int64_t two[2] = {2, 2}, one[2] = {1, 1};
    const float zeros[N_IN] = {0};
    void *go_dev, *self_dev, *gi_dev, *workspace = NULL;
    aclTensor *grad_out = nchw_tensor(out_shape, grad_output, N_OUT, &go_dev);
    aclTensor *self = nchw_tensor(in_shape, zeros, N_IN, &self_dev); /* values unused */
    aclTensor *grad_in = nchw_tensor(in_shape, zeros, N_IN, &gi_dev);
    aclIntArray *kernel = aclCreateIntArray(two, 2), *stride = aclCreateIntArray(two, 2);
    aclIntArray *padding = aclCreateIntArray(one, 2);
    if (!grad_out || !self || !grad_in || !kernel || !stride || !padding) {
        fprintf(stderr, "tensor or array creation failed\n");
        return 1;
    }
    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    /* ceilMode false, divisorOverride 0 (none), cubeMathType 1 (ALLOW_FP32_DOWN_PRECISION: the
     * value every product accepts for FLOAT; these values are exact in FP16 and HF32 too). */
    CHECK(aclnnAvgPool2dBackwardGetWorkspaceSize(grad_out, self, kernel, stride, padding, false,
                                                 count_include_pad, 0, 1, grad_in,
                                                 &workspace_size, &executor));
    if (workspace_size > 0)
        CHECK(aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(aclnnAvgPool2dBackward(workspace, workspace_size, executor, stream));
    CHECK(aclrtSynchronizeStream(stream));
    float got[N_IN];
    CHECK(aclrtMemcpy(got, sizeof got, gi_dev, sizeof got, ACL_MEMCPY_DEVICE_TO_HOST));

    int bad = 0;
    for (int i = 0; i < N_IN; i++) {
        printf("countIncludePad=%d gradInput[%d] = %g (expected %g)\n", count_include_pad, i,
               got[i], want[i]);
        bad |= got[i] != want[i];
    }
    aclDestroyTensor(grad_out);
    aclDestroyTensor(self);
    aclDestroyTensor(grad_in);
    aclDestroyIntArray(kernel);
    aclDestroyIntArray(stride);
    aclDestroyIntArray(padding);
    aclrtFree(go_dev);
    aclrtFree(self_dev);
    aclrtFree(gi_dev);
    if (workspace)
        aclrtFree(workspace);
    return bad;
}

int main(void)
{
    aclrtStream stream;
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    CHECK(aclrtCreateStream(&stream));
    int bad = run(stream, true, want_include_pad) | run(stream, false, want_exclude_pad);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    puts(bad ? "avgpool2d_backward example: MISMATCH" : "avgpool2d_backward example: ok");
    return bad;
}

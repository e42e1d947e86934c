/* aclnnGridSampler2DBackward: the second phase (validation, run and generic faults are the
 * common emu_executor_launch). */
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "grid_sampler2d_backward.h"

aclnnStatus aclnnGridSampler2DBackward(void *workspace, uint64_t workspaceSize,
                                       aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_launch(GS_API_NAME, workspace, workspaceSize, executor, stream);
}

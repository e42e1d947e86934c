/* aclnnAvgPool2dBackward: the common second phase (executor, workspace and stream checks,
 * generic faults) around the run chosen in the first phase. */
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "avgpool2d_backward.h"

aclnnStatus aclnnAvgPool2dBackward(void *workspace, uint64_t workspaceSize,
                                   aclOpExecutor *executor, aclrtStream stream)
{
    return emu_executor_launch("aclnnAvgPool2dBackward", workspace, workspaceSize, executor,
                               stream);
}

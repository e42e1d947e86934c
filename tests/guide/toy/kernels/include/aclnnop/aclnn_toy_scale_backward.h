/* aclnnToyScaleBackward: a throwaway operator of docs/adding-an-operator.md: gradInput =
 * scale · gradOutput, scale a power of two in [2^-8, 2^8]. */
#ifndef ACLNNOP_ACLNN_TOY_SCALE_BACKWARD_H_
#define ACLNNOP_ACLNN_TOY_SCALE_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnToyScaleBackwardGetWorkspaceSize(const aclTensor *gradOutput,
                                                            double scale, aclTensor *gradInput,
                                                            uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnToyScaleBackward(void *workspace, uint64_t workspaceSize,
                                            aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif

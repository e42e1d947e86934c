/* aclnnInit / aclnnFinalize (hicann/opbase include/nnopbase/aclnn/aclnn_base.h); the status
 * codes come from aclnn/opdev/op_errno.h, included here as the harness and the documents'
 * examples expect them. */
#ifndef ACLNN_ACLNN_BASE_H_
#define ACLNN_ACLNN_BASE_H_

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Optional in a program that called aclInit; the emulation accepts both orders. */
ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char *configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize(void);

#ifdef __cplusplus
}
#endif
#endif

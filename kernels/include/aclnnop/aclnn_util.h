/* Shared by the operator headers (hicann/opbase include/aclnnop/aclnn_util.h): the visibility
 * of the aclnn entry points. */
#ifndef ACLNNOP_ACLNN_UTIL_H_
#define ACLNNOP_ACLNN_UTIL_H_

#if defined(__GNUC__)
#define ACLNN_API __attribute__((visibility("default")))
#else
#define ACLNN_API
#endif

#endif

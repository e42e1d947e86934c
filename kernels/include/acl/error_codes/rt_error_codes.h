/* Runtime error codes of the CANN runtime (hicann/runtime include/external/acl/error_codes/
 * rt_error_codes.h): the names and values the emulation returns or a client may test. */
#ifndef ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define ACL_ERROR_CODES_RT_ERROR_CODES_H_

#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_SYSPARAMOPT_NOT_SET 107021
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_MEMORY_FREE 207002

#endif

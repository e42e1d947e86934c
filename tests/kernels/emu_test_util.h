/* Helpers for tests of the emulated device, written against the public CANN interface only
 * (plus emu.h where a test names internals). */
#ifndef ACLCTS_TESTS_EMU_TEST_UTIL_H_
#define ACLCTS_TESTS_EMU_TEST_UTIL_H_

#include <stdint.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"

/* (Re)initialises the runtime for product `soc` (NULL = default): sets ACLCTS_SOC, finalizes a
 * previous init, aclInit, aclrtSetDevice(0), and creates the stream returned. Fails the test on
 * error. */
aclrtStream emu_test_init(const char *soc);
void emu_test_fini(void);

/* A device tensor of `dtype` holding `host` (converted from double exactly as the device would
 * store it), contiguous row-major with the given dims. The device buffer goes to *dev (free it
 * with aclrtFree). */
aclTensor *emu_test_tensor(const double *host, const int64_t *dims, int ndim, aclDataType dtype,
                           aclFormat format, void **dev);
/* Same with explicit strides/offset (elements); the buffer holds `storage_elems` elements, all
 * first set to `fill`, then the view's elements set from host (row-major over the view). */
aclTensor *emu_test_tensor_view(const double *host, const int64_t *dims, int ndim,
                                const int64_t *strides, int64_t offset, int64_t storage_elems,
                                double fill, aclDataType dtype, aclFormat format, void **dev);
/* Reads a view back into host doubles (row-major over the view). */
void emu_test_read(const aclTensor *t, double *host);
/* Element count of dims. */
int64_t emu_test_numel(const int64_t *dims, int ndim);

#endif

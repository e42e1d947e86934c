/* aclnnAvgPool2dBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), the descriptor and its coverage
 * model. */
#ifndef ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_

#include "op_driver.h"
#include "reference_avgpool2d_backward.h"

/* The reference's slots and indices: the status query carries the case's tensors and
 * parameters as they are. */
enum {
    AVG_GRAD_OUTPUT = REF_AVGPOOL_GRAD_OUTPUT, AVG_SELF = REF_AVGPOOL_SELF,
    AVG_GRAD_INPUT = REF_AVGPOOL_GRAD_INPUT, AVG_NTENSORS
};
enum {
    AVG_KERNEL_SIZE = REF_AVGPOOL_KERNEL_SIZE, AVG_STRIDE = REF_AVGPOOL_STRIDE,
    AVG_PADDING = REF_AVGPOOL_PADDING, AVG_CEIL_MODE = REF_AVGPOOL_CEIL_MODE,
    AVG_COUNT_INCLUDE_PAD = REF_AVGPOOL_COUNT_INCLUDE_PAD,
    AVG_DIVISOR_OVERRIDE = REF_AVGPOOL_DIVISOR_OVERRIDE,
    AVG_CUBE_MATH_TYPE = REF_AVGPOOL_CUBE_MATH_TYPE, AVG_NPARAMS = REF_AVGPOOL_NPARAMS
};

extern const cts_op_driver cts_op_avgpool2d_backward;

/* Coverage levels (coverage.c). */
extern const cov_model avgpool2d_backward_coverage;

#endif

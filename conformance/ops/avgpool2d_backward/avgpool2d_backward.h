/* aclnnAvgPool2dBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), the descriptor and its coverage
 * model. */
#ifndef ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_

#include "op_driver.h"

enum { AVG_GRAD_OUTPUT, AVG_SELF, AVG_GRAD_INPUT, AVG_NTENSORS };
enum {
    AVG_KERNEL_SIZE, AVG_STRIDE, AVG_PADDING, AVG_CEIL_MODE, AVG_COUNT_INCLUDE_PAD,
    AVG_DIVISOR_OVERRIDE, AVG_CUBE_MATH_TYPE, AVG_NPARAMS
};

extern const cts_op_driver cts_op_avgpool2d_backward;

/* Coverage levels (coverage.c). */
extern const cov_model avgpool2d_backward_coverage;

#endif

/* aclnnGridSampler2DBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), the descriptor and its coverage
 * model. */
#ifndef ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_

#include "op_driver.h"

enum { GRID_GRAD_OUTPUT, GRID_INPUT, GRID_GRID, GRID_INPUT_GRAD, GRID_GRID_GRAD, GRID_NTENSORS };
enum {
    GRID_INTERPOLATION_MODE, GRID_PADDING_MODE, GRID_ALIGN_CORNERS, GRID_OUTPUT_MASK,
    GRID_NPARAMS
};

extern const cts_op_driver cts_op_grid_sampler2d_backward;

/* Coverage levels (coverage.c). */
extern const cov_model grid_sampler2d_backward_coverage;

#endif

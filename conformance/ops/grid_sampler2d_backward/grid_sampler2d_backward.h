/* aclnnGridSampler2DBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), the descriptor and its coverage
 * model. */
#ifndef ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_

#include "op_driver.h"
#include "reference_grid_sampler2d_backward.h"

/* The reference's slots and indices: the status query carries the case's tensors and
 * parameters as they are. */
enum {
    GRID_GRAD_OUTPUT = REF_GRID_GRAD_OUTPUT, GRID_INPUT = REF_GRID_INPUT,
    GRID_GRID = REF_GRID_GRID, GRID_INPUT_GRAD = REF_GRID_INPUT_GRAD,
    GRID_GRID_GRAD = REF_GRID_GRID_GRAD, GRID_NTENSORS
};
enum {
    GRID_INTERPOLATION_MODE = REF_GRID_INTERPOLATION_MODE,
    GRID_PADDING_MODE = REF_GRID_PADDING_MODE, GRID_ALIGN_CORNERS = REF_GRID_ALIGN_CORNERS,
    GRID_OUTPUT_MASK = REF_GRID_OUTPUT_MASK, GRID_NPARAMS = REF_GRID_NPARAMS
};

extern const cts_op_driver cts_op_grid_sampler2d_backward;

/* Coverage levels (coverage.c). */
extern const cov_model grid_sampler2d_backward_coverage;

#endif

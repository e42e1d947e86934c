/* aclnnGridSampler2DBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), and the reference parameters of a
 * case. */
#ifndef ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_GRID_SAMPLER2D_BACKWARD_H_

#include "op_driver.h"

enum { GRID_GRAD_OUTPUT, GRID_INPUT, GRID_GRID, GRID_INPUT_GRAD, GRID_GRID_GRAD, GRID_NTENSORS };
enum {
    GRID_INTERPOLATION_MODE, GRID_PADDING_MODE, GRID_ALIGN_CORNERS, GRID_OUTPUT_MASK,
    GRID_NPARAMS
};

extern const cts_op_driver cts_op_grid_sampler2d_backward;

/* The reference's geometry and parameters of a case (reference.c). */
void grid_sampler2d_backward_ref_params(const cts_case *c, ref_grid_params *p);
void grid_sampler2d_backward_status_query(const cts_case *c, ref_status_query *q);
ref_path grid_sampler2d_backward_path(const cts_case *c);
bool grid_sampler2d_backward_output_computed(const cts_case *c, int slot);
int grid_sampler2d_backward_reference(const cts_case *c, const ref_path *path,
                                      double *const in[], ref_output out[]);
/* Coverage levels (coverage.c). */
extern const cov_model grid_sampler2d_backward_coverage;

#endif

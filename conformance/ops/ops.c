/* The operators aclcts knows: one line per driver (op_driver.h). */
#include "op_driver.h"

#include "avgpool2d_backward/avgpool2d_backward.h"
#include "grid_sampler2d_backward/grid_sampler2d_backward.h"

const cts_op_driver *const cts_ops[] = {
    &cts_op_avgpool2d_backward,
    &cts_op_grid_sampler2d_backward,
};
const int cts_nops = sizeof cts_ops / sizeof cts_ops[0];

/* The operators aclcts knows: one line per driver (op_driver.h), X(<op>) naming the descriptor
 * cts_op_<op> its folder defines. */
#include "op_driver.h"

#define CTS_OPERATORS(X) \
    X(avgpool2d_backward) \
    X(grid_sampler2d_backward) \
    /* one line per operator, above this one */

#define CTS_OP_DECLARE_(op) extern const cts_op_driver cts_op_##op;
CTS_OPERATORS(CTS_OP_DECLARE_)

#define CTS_OP_ENTRY_(op) &cts_op_##op,
const cts_op_driver *const cts_ops[] = {CTS_OPERATORS(CTS_OP_ENTRY_)};
const int cts_nops = sizeof cts_ops / sizeof cts_ops[0];

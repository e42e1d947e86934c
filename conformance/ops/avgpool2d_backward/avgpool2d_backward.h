/* aclnnAvgPool2dBackward as the harness sees it: tensor slots and parameter indices of its
 * cases (the order of the descriptor's tables, driver.c), and the reference parameters of a
 * case. */
#ifndef ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_AVGPOOL2D_BACKWARD_H_

#include "op_driver.h"

enum { AVG_GRAD_OUTPUT, AVG_SELF, AVG_GRAD_INPUT, AVG_NTENSORS };
enum {
    AVG_KERNEL_SIZE, AVG_STRIDE, AVG_PADDING, AVG_CEIL_MODE, AVG_COUNT_INCLUDE_PAD,
    AVG_DIVISOR_OVERRIDE, AVG_CUBE_MATH_TYPE, AVG_NPARAMS
};

extern const cts_op_driver cts_op_avgpool2d_backward;

/* The reference's geometry and parameters of a case (reference.c). */
void avgpool2d_backward_ref_params(const cts_case *c, ref_avgpool_params *p);
void avgpool2d_backward_status_query(const cts_case *c, ref_status_query *q);
/* The case's path: the documents' rule, or under a vendor contract the vendor's lowering. */
ref_path avgpool2d_backward_path(const cts_case *c);
/* The documents' rule (docs/contract.md "Path") whatever the case's contract: the coverage
 * model's path factor. */
ref_path avgpool2d_backward_documented_path(const cts_case *c);
bool avgpool2d_backward_output_computed(const cts_case *c, int slot);
int avgpool2d_backward_reference(const cts_case *c, const ref_path *path, double *const in[],
                                 ref_output out[]);
/* Coverage levels (coverage.c). */
extern const cov_model avgpool2d_backward_coverage;

#endif

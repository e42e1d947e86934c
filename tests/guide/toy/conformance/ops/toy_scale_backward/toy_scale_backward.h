/* aclnnToyScaleBackward as the harness sees it (docs/adding-an-operator.md): tensor slots and
 * parameter indices, the reference's. */
#ifndef ACLCTS_CONFORMANCE_OPS_TOY_SCALE_BACKWARD_H_
#define ACLCTS_CONFORMANCE_OPS_TOY_SCALE_BACKWARD_H_

#include "op_driver.h"
#include "reference_toy_scale_backward.h"

enum { TOY_GRAD_OUTPUT = REF_TOY_GRAD_OUTPUT, TOY_GRAD_INPUT = REF_TOY_GRAD_INPUT, TOY_NTENSORS };
enum { TOY_SCALE = REF_TOY_SCALE, TOY_NPARAMS = REF_TOY_NPARAMS };

extern const cov_model toy_scale_backward_coverage;

#endif

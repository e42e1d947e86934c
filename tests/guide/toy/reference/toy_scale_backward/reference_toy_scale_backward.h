/* The reference's aclnnToyScaleBackward (docs/adding-an-operator.md): slots and parameter
 * indices of its status query, in the harness's order. */
#ifndef ACLCTS_REFERENCE_TOY_SCALE_BACKWARD_H_
#define ACLCTS_REFERENCE_TOY_SCALE_BACKWARD_H_

#include "reference.h"

enum { REF_TOY_GRAD_OUTPUT, REF_TOY_GRAD_INPUT };
enum { REF_TOY_SCALE, REF_TOY_NPARAMS }; /* scale: a double */

#endif

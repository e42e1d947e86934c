/* The coverage model of the contract: per operator (its driver's cov_model, op_driver.h) the
 * factors that decide which code path a device takes (dtype, view kind, rank, channel class,
 * determinism, numeric path, numerics parameters, modes, output masks, early returns), the
 * levels of each, and which pairs of levels no legal case can combine, each with the reason.
 * `aclcts coverage` counts the pairs the selected cases hit; tools/gen-covering writes pairwise
 * covering arrays of the same factors into suites/. */
#ifndef ACLCTS_CONFORMANCE_COVERAGE_H_
#define ACLCTS_CONFORMANCE_COVERAGE_H_

#include <stdbool.h>
#include <stdint.h>

#include "suite/suite.h"

const cov_model *cov_model_of(const cts_op_driver *op);

/* Levels a case hits, one bit set per level, per factor (0: the factor does not apply, e.g. a
 * numeric factor of a call that returns an error, or an error-only dtype). */
void cov_case_levels(const cts_case *c, const cov_model *m, uint32_t levels[COV_MAX_FACTORS]);

/* Why no legal case can hit level la of factor fa together with level lb of factor fb, or NULL
 * when some can. */
const char *cov_impossible(const cov_model *m, int fa, int la, int fb, int lb);

#endif

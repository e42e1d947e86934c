/* The coverage model of the contract: per operator (its driver's cov_model, op_driver.h) the
 * factors that decide which code path a device takes (dtype, view kind, rank, channel class,
 * determinism, numeric path, numerics parameters, modes, output masks, early returns), the
 * levels of each, and which pairs of levels no legal case can combine, each with the reason.
 * `aclcts coverage` counts the pairs the selected cases hit; tools/gen-covering writes pairwise
 * covering arrays of the same factors into suites/. */
#ifndef ACLCTS_CONFORMANCE_COVERAGE_H_
#define ACLCTS_CONFORMANCE_COVERAGE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "suite/suite.h"

const cov_model *cov_model_of(const cts_op_driver *op);

/* Levels a case hits, one bit set per level, per factor (0: the factor does not apply, e.g. a
 * numeric factor of a call that returns an error, or an error-only dtype). */
void cov_case_levels(const cts_case *c, const cov_model *m, uint32_t levels[COV_MAX_FACTORS]);

/* Why no legal case can hit level la of factor fa together with level lb of factor fb, or NULL
 * when some can. */
const char *cov_impossible(const cov_model *m, int fa, int la, int fb, int lb);

/* The view classes (COV_VC_*) each tensor of case c exercises, one bit per class, per tensor
 * slot: only a call that computes exercises them, an output only when the call computes it.
 * A padded stride at dim d: d's stride is larger than the extent of the dims with smaller
 * strides (only dims longer than 1 count); broadcast: a stride 0; permuted: the layout's dim
 * has the smallest (largest when outermost) stride. */
void cov_case_views(const cts_case *c, const cov_model *m, uint32_t classes[CTS_MAX_TENSORS]);

/* The name of view class k of tensor slot t ("pad-n", "offset", "channels-last"). */
const char *cov_view_class_name(const cov_model *m, int t, int k, char *buf, size_t len);

/* Why no legal case can exercise view class k of tensor t, or NULL when some can. */
const char *cov_view_impossible(const cts_op_driver *op, int t, int k);

#endif

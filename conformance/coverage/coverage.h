/* The coverage model of the contract: per operator the factors that decide which code path a
 * device takes (dtype, view kind, rank, channel class, determinism, numeric path, cubeMathType,
 * modes, outputMask, early returns), the levels of each, and which pairs of levels no legal case
 * can combine, each with the reason. `aclcts coverage` counts the pairs the selected cases hit;
 * tools/gen-covering writes pairwise covering arrays of the same factors into suites/. */
#ifndef ACLCTS_CONFORMANCE_COVERAGE_H_
#define ACLCTS_CONFORMANCE_COVERAGE_H_

#include <stdbool.h>
#include <stdint.h>

#include "suite/suite.h"

#define COV_MAX_FACTORS 10
#define COV_MAX_LEVELS 8

typedef struct {
    const char *name;
    const char *levels[COV_MAX_LEVELS];
    int nlevels;
    bool numeric; /* only meaningful when the call computes (outcome "computes") */
} cov_factor;

typedef struct {
    ref_op op;
    const cov_factor *factors;
    int nfactors;
} cov_model;

const cov_model *cov_model_of(ref_op op);

/* Levels a case hits, one bit set per level, per factor (0: the factor does not apply, e.g. a
 * numeric factor of a call that returns an error, or an error-only dtype). */
void cov_case_levels(const cts_case *c, const cov_model *m, uint32_t levels[COV_MAX_FACTORS]);

/* Why no legal case can hit level la of factor fa together with level lb of factor fb, or NULL
 * when some can. */
const char *cov_impossible(const cov_model *m, int fa, int la, int fb, int lb);

#endif

/* The reference side of one case: the status query, the operator parameters, the computation
 * path and the exact answers, all built from the case (private to the runner and dump). */
#ifndef ACLCTS_CONFORMANCE_RUN_REFERENCE_H_
#define ACLCTS_CONFORMANCE_RUN_REFERENCE_H_

#include <stdbool.h>

#include "case.h"
#include "reference.h"

ref_status_query cts_status_query(const cts_case *c);
void cts_avgpool_params(const cts_case *c, ref_avgpool_params *p);
void cts_grid_params(const cts_case *c, ref_grid_params *p);
ref_path cts_case_path(const cts_case *c);
/* The path the case's outputs are judged under: its own, or under the documented-path policy
 * the one that allows only accumulation error around the documented operands' exact value. */
ref_path cts_judge_path(const cts_case *c, const ref_path *path);
/* Whether a successful call must write output slot `slot` (grid sampler: its outputMask entry;
 * a missing entry is false). */
bool cts_output_computed(const cts_case *c, int slot);
/* Exact answers for the computed outputs from the input values the device saw (in[slot],
 * logical row-major). out[slot] is filled for computed outputs. 0, or -1 (bad parameters). */
int cts_reference_outputs(const cts_case *c, const ref_path *path, double *const in[],
                          ref_output out[]);

#endif

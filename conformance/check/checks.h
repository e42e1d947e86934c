/* The checks of one case (DESIGN "Checks and tolerances"). Each returns true when it holds;
 * on failure it records the check name and a message a person can act on in the verdict, the
 * first failure of a case winning (cts_verdict_fail). */
#ifndef ACLCTS_CONFORMANCE_CHECKS_H_
#define ACLCTS_CONFORMANCE_CHECKS_H_

#include <stdbool.h>
#include <stdint.h>

#include "case.h"
#include "dev_tensor.h"
#include "verdict.h"

/* Record status s with check name and message unless a failure is already recorded. */
void cts_verdict_fail(cts_verdict *v, cts_status s, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Status: got == expected; a mismatch the case's waiver lists becomes WAIVED with its reason. */
bool cts_check_status(const cts_case *c, int32_t expected, int32_t got, const char *reason,
                      const char *errmsg, cts_verdict *v);
/* On an error status aclGetRecentErrMsg must say something. */
bool cts_check_errmsg(int32_t got, const char *errmsg, cts_verdict *v);
/* Whole buffers (guards, storage) byte-identical to their pre-call poison: outputs of a failed
 * or empty call, and outputs the call was told not to compute. why: "status 161002" ... */
bool cts_check_poison(const cts_dev_tensor *d, const char *why, cts_verdict *v);
/* The storage of an input is what was sent. */
bool cts_check_input_unchanged(const cts_dev_tensor *d, cts_verdict *v);
/* Guard zones intact, and for outputs every storage element outside the view still poison. */
bool cts_check_guards(const cts_dev_tensor *d, cts_verdict *v);

/* One output to judge numerically. */
typedef struct {
    const char *name;
    ref_dtype dtype;
    int rank;
    const int64_t *dims;
    int64_t numel;
    const double *got;      /* numel, logical row-major */
    const ref_output *ref;  /* the reference's answers, or NULL (expected values only) */
} cts_judged_output;

/* Numeric tolerance of every element under the case's policy; fills the verdict's worst-error
 * summary (nelems, worst_ulp, worst_bound_units, worst_rel, worst element) and adds every
 * element to the audit statistics v->el (when o->ref is given). */
bool cts_check_tolerance(const cts_tolerance *tol, const ref_path *path,
                         const cts_judged_output *o, cts_verdict *v);
/* A suite's `unjudged: N`: at most N elements over the case's outputs left unjudged by the
 * reference (v->el.skipped); max < 0 accepts any number. */
bool cts_check_unjudged(int64_t max, cts_verdict *v);
/* The error map of a failing case: bound units over the plane (last two dims) of o holding
 * element k, block maxima coded into g (verdict.h). */
void cts_error_grid_fill(const cts_judged_output *o, const ref_path *path, int64_t k,
                         cts_error_grid *g);
/* The suite's given constants (cyclic list) judged like exact values under the same policy. */
bool cts_check_expected_values(const cts_tolerance *tol, const ref_path *path,
                               const cts_judged_output *o, const cts_expected_values *e,
                               cts_verdict *v);
/* Determinism: the view of output d in a later run (label: "run 3", "1 thread") is bitwise
 * identical to run 1's. */
bool cts_check_identical(const cts_dev_tensor *first, const cts_dev_tensor *later,
                         const char *label, cts_verdict *v);
/* Largest ULP distance between the two runs' views of one output. */
double cts_spread_ulp(const cts_dev_tensor *first, const cts_dev_tensor *later);

#endif

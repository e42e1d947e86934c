/* Per-element judgement of one device value against the reference's answer, under a case's
 * tolerance policy (DESIGN "Checks and tolerances", facts §5). */
#ifndef ACLCTS_CONFORMANCE_TOLERANCE_H_
#define ACLCTS_CONFORMANCE_TOLERANCE_H_

#include <math.h>
#include <stdbool.h>

#include "suite/suite.h"
#include "reference.h"

typedef struct {
    double ulp;          /* ULPs of the output dtype from the correctly rounded value */
    double bound_units;  /* |got − exact| / ref_bound */
    double rel;          /* |got − exact| / |exact| (0/0 = 0) */
    double policy_units; /* error / the policy's limit: > 1 fails (share: the element's rule) */
    double exact;        /* the exact value judged against (nearest double) */
    double err;          /* |got − exact| (finite values) */
    double rounded;      /* the correctly rounded value in the output dtype */
    bool ok;             /* within the policy's per-element rule */
    bool class_mismatch; /* NaN/Inf where the exact value is not of that class, or vice versa */
    bool skipped;        /* REF_FLAG_UNCHECKABLE: too many legal values; not judged */
} cts_elem_err;

/* Fill policy parameters left at zero from their names: torch-default (facts §5 per dtype),
 * ascend-thousandth / ascend-ten-thousandth (rel, 99.9 %, small-value threshold). */
cts_tolerance cts_tolerance_resolved(const cts_tolerance *t, ref_dtype dt);

/* What a judgement of an output's elements rests on besides the values: the output's dtype, its
 * computation path and ref_bound's constants for the two, worked out once per output. */
typedef struct {
    ref_dtype dt;
    ref_path path;
    ref_bound_plan bound;
} cts_judge_basis;
void cts_judge_basis_init(cts_judge_basis *b, ref_dtype dt, const ref_path *path);

/* err / limit: 0 for no error, infinite against no allowance. */
static inline double cts_tol_ratio(double err, double limit)
{
    if (err == 0) return 0;
    return limit > 0 ? err / limit : INFINITY;
}

/* The error of a finite element in units of the policy's limit: > 1 fails. */
static inline double cts_policy_units(const cts_tolerance *tol, const cts_elem_err *e, double got)
{
    double units, hi = fabs(e->exact);
    switch (tol->kind) {
    case CTS_TOL_ULP:
        units = tol->ulps > 0 ? e->ulp / tol->ulps : (e->ulp > 0 ? INFINITY : 0);
        break;
    case CTS_TOL_ALLCLOSE: units = cts_tol_ratio(e->err, tol->atol + tol->rtol * hi); break;
    case CTS_TOL_SHARE:
        /* Below the small-value threshold the error is measured against the threshold
         * (absolute error), so the rule is continuous at the threshold. */
        units = cts_tol_ratio(e->err, tol->rel * fmax(hi, tol->small_threshold));
        break;
    default: units = e->bound_units; break;
    }
    /* The correctly rounded value is legal under every policy. */
    return got == e->rounded ? 0 : units;
}

/* cts_judge_value where v->hi and got are finite, into *e: inline, for the judge's loop, which
 * writes the fields in place (a returned struct was copied through a 16-byte load that stalled
 * store forwarding). */
static inline void cts_judge_finite_into(cts_elem_err *e, const cts_tolerance *tol,
                                         const cts_judge_basis *b, double got, const ref_value *v)
{
    *e = (cts_elem_err){0};
    e->exact = v->hi;
    e->err = fabs((got - v->hi) - v->lo);
    e->rounded = ref_round_value(v, b->dt);
    e->ulp = ref_ulp_distance(got, e->rounded, b->dt);
    e->bound_units = cts_tol_ratio(e->err, ref_bound_planned(&b->bound, v));
    e->rel = cts_tol_ratio(e->err, fabs(v->hi));
    e->policy_units = cts_policy_units(tol, e, got);
    e->ok = e->policy_units <= 1;
}

/* cts_judge_finite_into, returned. */
static inline cts_elem_err cts_judge_finite(const cts_tolerance *tol, const cts_judge_basis *b,
                                            double got, const ref_value *v)
{
    cts_elem_err e;
    cts_judge_finite_into(&e, tol, b, got, v);
    return e;
}

/* Judge got against one legal value v. */
cts_elem_err cts_judge_value(const cts_tolerance *tol, const cts_judge_basis *b, double got,
                             const ref_value *v);

/* Judge got against element k of out: against every legal alternative when the reference marks
 * it ambiguous, keeping the best; non-finite exact values need the same class; elements the
 * reference marks uncheckable are skipped (ok, zero errors, `skipped`). */
cts_elem_err cts_judge_element(const cts_tolerance *tol, const cts_judge_basis *b, double got,
                               const ref_output *out, int64_t k);

/* Whether policy tol accepts the element judged as e (by any policy) when the judgement does not
 * depend on the policy: an element the reference does not mark ambiguous (its errors are the same
 * under every policy; only which alternative is best depends on it). Lets one judgement serve
 * several policies (the audit's named standards); inline, for the judge's loop. */
static inline bool cts_policy_accepts(const cts_tolerance *tol, const cts_elem_err *e, double got)
{
    if (e->skipped || !isfinite(e->exact) || !isfinite(got)) return e->ok; /* class rules */
    return cts_policy_units(tol, e, got) <= 1;
}

#endif

/* Tolerance policies per element (tolerance.h). */
#include "tolerance.h"

#include <math.h>
#include <string.h>

cts_tolerance cts_tolerance_resolved(const cts_tolerance *t, ref_dtype dt)
{
    cts_tolerance r = *t;
    const char *name = t->name ? t->name : "";
    if (r.kind == CTS_TOL_ALLCLOSE && r.rtol == 0 && r.atol == 0 &&
        strcmp(name, "torch-default") == 0) {
        /* PyTorch assert_close defaults (facts §5). */
        switch (dt) {
        case REF_DT_FLOAT16: r.rtol = 1e-3; r.atol = 1e-5; break;
        case REF_DT_BF16: r.rtol = 1.6e-2; r.atol = 1e-5; break;
        case REF_DT_DOUBLE: r.rtol = 1e-7; r.atol = 1e-7; break;
        default: r.rtol = 1.3e-6; r.atol = 1e-5; break;
        }
    }
    if (r.kind == CTS_TOL_SHARE) {
        bool ten = strcmp(name, "ascend-ten-thousandth") == 0;
        if (r.rel == 0) r.rel = ten ? 1e-4 : 1e-3;
        if (r.min_share == 0) r.min_share = ten ? 0.9999 : 0.999;
        if (r.small_threshold == 0) /* facts §5 */
            r.small_threshold = dt == REF_DT_FLOAT16 ? 0x1p-10
                              : dt == REF_DT_BF16    ? 0x1p-8
                                                     : 0x1p-20;
    }
    return r;
}

/* Same non-finite class: both NaN, or the same infinity. */
static bool same_class(double a, double b)
{
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return a == b;
}

void cts_judge_basis_init(cts_judge_basis *b, ref_dtype dt, const ref_path *path)
{
    b->dt = dt;
    b->path = *path;
    ref_bound_plan_init(&b->bound, dt, path);
}

cts_elem_err cts_judge_value(const cts_tolerance *tol, const cts_judge_basis *b, double got,
                             const ref_value *v)
{
    ref_dtype dt = b->dt;
    cts_elem_err e = {0};
    e.exact = v->hi;
    if (!isfinite(v->hi) || !isfinite(got)) {
        double cr = e.rounded = ref_round_value(v, dt);
        /* A finite exact value may legally round to infinity in a narrow dtype. An exact NaN
         * comes from inf − inf or 0·inf among the expanded terms; an algebraically equal
         * formula (e.g. PyTorch's (ne − nw)·s·g for dgrid) meets ±inf instead, so any
         * non-finite result is legal there. An exact infinity stays that infinity. */
        e.ok = same_class(got, v->hi) || same_class(got, cr) || (isnan(v->hi) && !isfinite(got));
        /* nor need it round there: a device's value within its error may pass the dtype's
         * range (FP16, exact 65504, an FP32 sum of large terms ending 16 above it) */
        if (!e.ok && isinf(got) && isfinite(v->hi))
            e.ok = ref_bound_reaches_inf(dt, v->hi, v->lo, ref_bound_planned(&b->bound, v), got);
        e.class_mismatch = !e.ok;
        double inf = e.ok ? 0 : INFINITY;
        e.ulp = e.bound_units = e.rel = e.policy_units = inf;
        return e;
    }
    return cts_judge_finite(tol, b, got, v);
}

bool cts_interval(const ref_output *out, int64_t k, double *lo, double *hi, ref_value *wide)
{
    if (!out->flags || !(out->flags[k] & REF_FLAG_INTERVAL) || !out->ival ||
        !isfinite(out->v[k].hi))
        return false;
    double v = out->v[k].hi;
    *lo = nextafter(v + out->ival[2 * k], -INFINITY);
    *hi = nextafter(v + out->ival[2 * k + 1], INFINITY);
    *wide = out->v[k];
    wide->hi = fabs(*lo) > fabs(*hi) ? *lo : *hi;
    wide->lo = 0;
    return true;
}

/* Worse of two judgements for "best alternative" selection: failing, then larger units. */
static bool better(const cts_elem_err *a, const cts_elem_err *b)
{
    if (a->ok != b->ok) return a->ok;
    return a->policy_units < b->policy_units;
}

cts_elem_err cts_judge_element(const cts_tolerance *tol, const cts_judge_basis *b, double got,
                               const ref_output *out, int64_t k)
{
    if (out->flags && (out->flags[k] & REF_FLAG_UNCHECKABLE)) {
        cts_elem_err skip = {.exact = out->v[k].hi, .ok = true, .skipped = true};
        return skip;
    }
    double lo, hi;
    ref_value wide;
    cts_elem_err best;
    if (cts_interval(out, k, &lo, &hi, &wide) && !isnan(got)) {
        /* the legal exact values fill [lo, hi]: judge against the one nearest to got, within
         * the bound of the interval's end of larger magnitude (Σ|terms| covers every
         * contribution) */
        ref_value nearest = wide;
        nearest.hi = fmin(fmax(got, lo), hi);
        nearest.lo = 0;
        best = cts_judge_value(tol, b, got, &nearest);
        if (isfinite(got)) {
            best.bound_units = cts_tol_ratio(best.err, ref_bound_planned(&b->bound, &wide));
            best.policy_units = cts_policy_units(tol, &best, got);
            best.ok = best.policy_units <= 1;
        }
    } else {
        best = cts_judge_value(tol, b, got, &out->v[k]);
    }
    /* An operand that overflows the path's narrower operand format, or an intermediate that
     * leaves the working format's range (reference flags), makes a non-finite result legal:
     * the device computes on the rounded operand, or overflows on the way. */
    if (!best.ok && !isfinite(got) && out->flags &&
        (out->flags[k] & (REF_FLAG_OPERAND_OVERFLOW | REF_FLAG_RANGE))) {
        best.ok = true;
        best.class_mismatch = false;
        best.ulp = best.bound_units = best.rel = best.policy_units = 0;
    }
    bool ambiguous = out->flags && (out->flags[k] & REF_FLAG_AMBIGUOUS) && out->alt_first &&
                     out->alt_first[k] >= 0;
    if (!ambiguous) return best;
    for (int32_t i = 0; i < out->alt_count[k]; i++) {
        cts_elem_err e = cts_judge_value(tol, b, got, &out->alts[out->alt_first[k] + i]);
        if (better(&e, &best)) best = e;
    }
    return best;
}

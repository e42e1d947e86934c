/* The vendor's precision standards applied to one output, each as its source states it (the files
 * of standards/ cite them): the thresholds come from the standard's data, the formulas
 * are the methods'. Where a document leaves a case open aclcts reads it one way, said here and
 * in docs/standards.md: a non-finite device value or golden counts as exact when both have the
 * same class (NaN, +inf, -inf) and as an infinite error otherwise. */
#include "standard.h"

#include <math.h>
#include <string.h>

#include "reference.h"

static const char *const metric_names[][CTS_STD_METRICS + 1] = {
    {"bound_units", NULL},
    {"MERE", "MARE", NULL},
    {"small_value_err_ratio", "rmse_ratio", "max_rel_err_ratio", "mean_rel_err_ratio",
     "error_balance_ratio", NULL},
    {"mean_ulp", "ulp_err_proportion", "proportion_ratio", NULL},
    {"matched_ratio", "cap_use", NULL}};

const char *const *cts_std_metric_names(cts_std_method m) { return metric_names[m]; }

/* Significand bits and smallest normal exponent of each output dtype. */
static const int mant[CTS_STD_NDT] = {10, 7, 23, 52, 10};
static const int emin[CTS_STD_NDT] = {-14, -126, -126, -1022, -126};

double cts_std_ulp(int dt, double x)
{
    int e = x == 0 || !isfinite(x) ? emin[dt] : ilogb(x);
    return ldexp(1.0, (e < emin[dt] ? emin[dt] : e) - mant[dt]);
}

/* |a - g|, 0 for two non-finite values of one class, inf for non-finite values of two. */
static double abs_err(double a, double g)
{
    if (isfinite(a) && isfinite(g)) return fabs(a - g);
    bool same = (isnan(a) && isnan(g)) || (!isnan(a) && !isnan(g) && a == g);
    return same ? 0 : INFINITY;
}

static double param(const cts_standard *s, int dt, const char *name)
{
    double v = NAN;
    cts_std_param_of(s, dt, name, &v);
    return v;
}

static void set_elem(signed char *elem, double *em, int64_t k, int ok, double metric)
{
    if (elem) elem[k] = (signed char)ok;
    if (em) em[k] = metric;
}

static void judge_bound(const cts_std_input *in, cts_std_verdict *v, signed char *elem,
                        double *em)
{
    double worst = 0;
    for (int64_t k = 0; k < in->n; k++) {
        if (!in->judged[k]) continue;
        double u = in->bound_units[k];
        if (!(u <= worst)) worst = u; /* NaN counts as inf */
        set_elem(elem, em, k, u <= 1, u);
    }
    v->pass = worst <= 1;
    v->margin = worst;
    v->m[0] = worst;
    v->nm = 1;
}

/* ATK single_bm: MERE < t and MARE < factor x t, relative errors over |golden| + eps. */
static void judge_relative(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v,
                           signed char *elem, double *em)
{
    double t = param(s, in->dt, "threshold"), eps = cts_std_rule(s, "denominator_eps", 0);
    double factor = cts_std_rule(s, "max_factor", 10), sum = 0, max = 0;
    int64_t n = 0;
    for (int64_t k = 0; k < in->n; k++) {
        if (!in->judged[k]) continue;
        double r = abs_err(in->got[k], in->golden[k]);
        if (r > 0) r /= isfinite(in->golden[k]) ? fabs(in->golden[k]) + eps : 1;
        sum += r;
        max = r > max ? r : max;
        n++;
        set_elem(elem, em, k, r < factor * t, r);
    }
    v->m[0] = n ? sum / (double)n : 0;
    v->m[1] = max;
    v->nm = 2;
    v->pass = v->m[0] < t && v->m[1] < factor * t;
    v->margin = fmax(v->m[0] / t, v->m[1] / (factor * t));
}

/* msprobe's metrics of one device's values against the golden (algorithm.py). */
typedef struct {
    double small_err_ratio, rmse, max_rel, mean_rel, eb;
} bm_metrics;

/* The golden as the checker holds it beside the device's array: its raised-precision result
 * (FLOAT32 for FLOAT16 and BFLOAT16, FLOAT64 for FLOAT32) cast to the device array's numpy
 * dtype (FLOAT16; FLOAT32, BFLOAT16 being compared as FLOAT32): algorithm.py's error balance
 * and finite mask take bench_output.astype(device_output.dtype). */
static double golden_as_device(int dt, double g)
{
    return ref_round_to(g, dt == CTS_STD_F16 ? REF_DT_FLOAT16 : REF_DT_FLOAT);
}

static bm_metrics bm_measure(const cts_standard *s, const cts_std_input *in, const double *x)
{
    double sv = param(s, in->dt, "small_value"), atol = param(s, in->dt, "small_value_atol");
    double eps = param(s, in->dt, "eps"), sq = 0, rel_sum = 0, rel_max = 0;
    int64_t n = 0, nsmall = 0, nsmall_err = 0, nmasked = 0, nrel = 0, above = 0, below = 0;
    for (int64_t k = 0; k < in->n; k++) {
        if (!in->judged[k]) continue;
        double a = x[k], g = in->golden[k], e = fabs(a - g), gd = golden_as_device(in->dt, g);
        n++;
        above += a > gd;
        below += a < gd;
        if (!isfinite(a) || !isfinite(gd)) { /* masked out of every metric */
            nmasked++;
        } else if (fabs(g) <= sv) {
            nsmall++;
            nsmall_err += e > atol;
            nmasked++;
        } else {
            double r = e / (fabs(g) + eps);
            sq += e * e;
            rel_sum += r;
            rel_max = r > rel_max ? r : rel_max;
            nrel++;
        }
    }
    bm_metrics m = {0};
    m.small_err_ratio = nsmall ? (double)nsmall_err / (double)nsmall : 0;
    double mse = n ? sq / (double)n : 0;
    m.rmse = sqrt(mse * ((double)n / ((double)(n - nmasked) + 0.0001) + 0.0001));
    m.max_rel = rel_max;
    m.mean_rel = nrel ? rel_sum / (double)nrel : 0;
    m.eb = n ? fabs((double)(above - below)) / (double)n : 0;
    return m;
}

/* msprobe's benchmark method: each metric's ratio |device| / max(|benchmark|, min_err of the
 * dtype) at most its limit; a metric without a limit (the error balance, which the checker
 * reports but leaves out of its verdict) is shown, not judged. */
static void judge_benchmark(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v)
{
    static const char *const lim[CTS_STD_METRICS] = {
        "limits.small_value_err_ratio", "limits.rmse", "limits.max_rel_err",
        "limits.mean_rel_err", "limits.error_balance"};
    if (!in->bench) {
        v->judged = false;
        v->na = CTS_NA_NO_BENCH;
        return;
    }
    bm_metrics d = bm_measure(s, in, in->got), b = bm_measure(s, in, in->bench);
    double dv[] = {d.small_err_ratio, d.rmse, d.max_rel, d.mean_rel, d.eb};
    double bv[] = {b.small_err_ratio, b.rmse, b.max_rel, b.mean_rel, b.eb};
    double min_err = param(s, in->dt, "min_err");
    v->pass = true;
    v->margin = 0;
    for (int i = 0; i < CTS_STD_METRICS; i++) {
        double l = cts_std_rule(s, lim[i], NAN);
        v->m[i] = fabs(dv[i]) / fmax(fabs(bv[i]), min_err);
        if (isnan(l)) continue;
        v->pass &= v->m[i] <= l;
        v->margin = fmax(v->margin, v->m[i] / l);
    }
    v->nm = CTS_STD_METRICS;
}

/* msprobe's ULP error of x against g in IEEE arithmetic, as its checker computes it: |x - g|
 * x 2^(mantissa bits - eb); a non-finite golden gives NaN, a non-finite device value against a
 * finite golden inf or NaN (algorithm.py get_ulp_err). */
static double ulp_err(const cts_standard *s, int dt, double x, double g)
{
    double e = fabs(x - g);
    if (!isfinite(g)) return NAN;
    if (e == 0 || !isfinite(e)) return e;
    double eb = g == 0 ? 0 : floor(log2(fabs(g)));
    eb = fmax(eb, param(s, dt, "min_eb"));
    return e * ldexp(1.0, (int)(param(s, dt, "mantissa_bits") - eb));
}

/* The share of elements whose ULP error is above the threshold (a NaN error is not: numpy's
 * comparison is false) and the mean ULP error over every element (NaN or inf when one is). */
static double ulp_proportion(const cts_standard *s, const cts_std_input *in, const double *x,
                             double *mean, signed char *elem, double *em)
{
    double thr = param(s, in->dt, "ulp_threshold"), sum = 0;
    int64_t n = 0, over = 0;
    for (int64_t k = 0; k < in->n; k++) {
        if (!in->judged[k]) continue;
        double u = ulp_err(s, in->dt, x[k], in->golden[k]);
        sum += u;
        over += u > thr;
        n++;
        set_elem(elem, em, k, isnan(u) ? -1 : u <= thr, u);
    }
    *mean = n ? sum / (double)n : 0;
    return n ? (double)over / (double)n : 0;
}

/* msprobe's inf/NaN consistency of the device's and the benchmark's mean ULP error
 * (compare_utils.py check_inf_or_nan): both NaN, or both the same infinity. */
static bool means_consistent(double m, double bm)
{
    if (isfinite(m) && isfinite(bm)) return true;
    return (isnan(m) && isnan(bm)) || (isinf(m) && isinf(bm) && m == bm);
}

/* msprobe's ULP method, judged (api_precision_compare.py) only from both rows, the device's
 * and the benchmark's: without a benchmark output it is not judged. A mean ULP error that is
 * inf or NaN must be so on the benchmark too (else ERROR); then it passes when the proportion
 * beyond the threshold is small, or (FLOAT32) the mean ULP error is, or the proportion's ratio
 * to the benchmark's is below the limit. */
static void judge_ulp(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v,
                      signed char *elem, double *em)
{
    if (!in->bench) {
        v->judged = false;
        v->na = CTS_NA_NO_BENCH;
        return;
    }
    double mean, bmean, mean_lim = param(s, in->dt, "mean_ulp");
    double p = ulp_proportion(s, in, in->got, &mean, elem, em);
    double plim = param(s, in->dt, "max_proportion"), rlim = cts_std_rule(s, "proportion_ratio", 1);
    double bp = ulp_proportion(s, in, in->bench, &bmean, NULL, NULL);
    v->m[0] = mean;
    v->m[1] = p;
    v->m[2] = p / fmax(bp, param(s, in->dt, "min_err"));
    v->nm = 3;
    v->margin = fmin(p / plim, v->m[2] / rlim);
    if (!isnan(mean_lim)) v->margin = fmin(v->margin, isnan(mean) ? INFINITY : mean / mean_lim);
    v->pass = p < plim || (!isnan(mean_lim) && mean < mean_lim) || v->m[2] < rlim;
    if (!means_consistent(mean, bmean)) {
        v->pass = false;
        v->margin = INFINITY;
    }
}

/* The mixed-tolerance standard: a share of elements within atol + rtol |golden|, and every
 * element within the larger of the absolute limit and cap_ulps ULP of its golden. */
static void judge_mixed(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v,
                        signed char *elem, double *em)
{
    double rtol = param(s, in->dt, "rtol"), atol = param(s, in->dt, "atol");
    double lim = param(s, in->dt, "max_abs"), caps = cts_std_rule(s, "cap_ulps", 32);
    double need = cts_std_rule(s, "matched_ratio", 1), cap_use = 0;
    int64_t n = 0, ok = 0;
    for (int64_t k = 0; k < in->n; k++) {
        if (!in->judged[k]) continue;
        double g = in->golden[k], e = abs_err(in->got[k], g);
        double allow = isfinite(g) ? atol + rtol * fabs(g) : 0;
        double cap = fmax(lim, caps * cts_std_ulp(in->dt, g));
        int pass = e <= allow;
        n++;
        ok += pass;
        cap_use = fmax(cap_use, e / cap);
        if (isnan(e)) cap_use = INFINITY;
        set_elem(elem, em, k, pass, allow > 0 ? e / allow : (e > 0 ? INFINITY : 0));
    }
    v->m[0] = n ? (double)ok / (double)n : 1;
    v->m[1] = cap_use;
    v->nm = 2;
    v->pass = v->m[0] >= need && cap_use <= 1;
    v->margin = fmax(need < 1 ? (1 - v->m[0]) / (1 - need) : (v->m[0] < 1 ? INFINITY : 0),
                     cap_use);
}

void cts_std_judge(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v,
                   signed char *elem, double *elem_metric)
{
    memset(v, 0, sizeof *v);
    if (elem) memset(elem, -1, (size_t)in->n);
    int64_t nj = 0;
    for (int64_t k = 0; k < in->n; k++) nj += in->judged[k] != 0;
    v->judged = nj > 0 && in->dt >= 0 && s->dt[in->dt].set;
    v->na = CTS_NA_NO_RULE;
    if (!v->judged) return;
    switch (s->method) {
    case CTS_STD_BOUND: judge_bound(in, v, elem, elem_metric); break;
    case CTS_STD_RELATIVE: judge_relative(s, in, v, elem, elem_metric); break;
    case CTS_STD_BENCHMARK: judge_benchmark(s, in, v); break;
    case CTS_STD_ULP: judge_ulp(s, in, v, elem, elem_metric); break;
    case CTS_STD_MIXED: judge_mixed(s, in, v, elem, elem_metric); break;
    }
}

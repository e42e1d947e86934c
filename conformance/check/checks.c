/* The checks of one case (check.h). */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tolerance.h"

void cts_verdict_fail(cts_verdict *v, cts_status s, const char *check, const char *fmt, ...)
{
    if (v->check[0]) return;
    v->status = s;
    snprintf(v->check, sizeof v->check, "%s", check);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->message, sizeof v->message, fmt, ap);
    va_end(ap);
}

bool cts_check_status(const cts_case *c, int32_t expected, int32_t got, const char *reason,
                      const char *errmsg, cts_verdict *v)
{
    if (got == expected) return true;
    for (int i = 0; c->waiver && i < c->nwaiver_status; i++)
        if (c->waiver_status[i] == got) {
            cts_verdict_fail(v, CTS_WAIVED, "status",
                             "waived: status %d instead of %d (%s); waiver: %s", got, expected,
                             reason, c->waiver);
            return false;
        }
    cts_verdict_fail(v, CTS_FAIL, "status",
                     "status %d, expected %d: %s; device message: \"%s\"", got, expected, reason,
                     errmsg && *errmsg ? errmsg : "");
    return false;
}

bool cts_check_errmsg(int32_t got, const char *errmsg, cts_verdict *v)
{
    if (got == 0 || (errmsg && *errmsg)) return true;
    cts_verdict_fail(v, CTS_FAIL, "errmsg",
                     "status %d but aclGetRecentErrMsg is empty: an error must say why", got);
    return false;
}

/* Where byte i of a buffer lies: "guard before", "guard after" or the element holding it. */
static const char *where(const cts_dev_tensor *d, size_t i, char *buf, size_t size)
{
    size_t data_end = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    if (i < CTS_GUARD_BYTES)
        snprintf(buf, size, "guard zone before the data, %zu bytes before it", CTS_GUARD_BYTES - i);
    else if (i >= data_end)
        snprintf(buf, size, "guard zone after the data, %zu bytes after it", i - data_end);
    else {
        int64_t pos = (int64_t)((i - CTS_GUARD_BYTES) / d->esize);
        for (int64_t k = 0; k < d->numel; k++)
            if (cts_dev_tensor_pos(d, k) == pos) {
                char idx[96];
                snprintf(buf, size, "element %s (storage element %lld)",
                         cts_multi_index(d->t->rank, d->t->dims, k, idx, sizeof idx),
                         (long long)pos);
                return buf;
            }
        snprintf(buf, size, "storage element %lld, outside the view", (long long)pos);
    }
    return buf;
}

/* First differing byte in [from, to), or -1; counts the differing bytes. */
static long long first_diff(const cts_dev_tensor *d, size_t from, size_t to, size_t *count)
{
    long long first = -1;
    *count = 0;
    for (size_t i = from; i < to; i++)
        if (d->back[i] != d->sent[i]) {
            if (first < 0) first = (long long)i;
            (*count)++;
        }
    return first;
}

bool cts_check_poison(const cts_dev_tensor *d, const char *why, cts_verdict *v)
{
    size_t n;
    long long i = first_diff(d, 0, d->bytes, &n);
    if (i < 0) return true;
    char at[160];
    cts_verdict_fail(v, CTS_FAIL, "poison",
                     "%s was written although %s: %zu bytes differ from the pre-call poison, "
                     "first at %s (byte 0x%02x, poison 0x%02x)",
                     d->t->name, why, n, where(d, (size_t)i, at, sizeof at), d->back[i],
                     d->sent[i]);
    return false;
}

bool cts_check_input_unchanged(const cts_dev_tensor *d, cts_verdict *v)
{
    size_t n;
    size_t from = CTS_GUARD_BYTES, to = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    long long i = first_diff(d, from, to, &n);
    if (i < 0) return true;
    char at[160];
    size_t e = ((size_t)i - from) / d->esize * d->esize + from;
    cts_verdict_fail(v, CTS_FAIL, "inputs",
                     "input %s was modified by the call: %zu bytes changed, first at %s "
                     "(sent %.9g, now %.9g)",
                     d->t->name, n, where(d, (size_t)i, at, sizeof at),
                     cts_decode(d->t->dtype, d->sent + e), cts_decode(d->t->dtype, d->back + e));
    return false;
}

bool cts_check_guards(const cts_dev_tensor *d, cts_verdict *v)
{
    size_t n1, n2, data_end = CTS_GUARD_BYTES + (size_t)d->storage * d->esize;
    long long i = first_diff(d, 0, CTS_GUARD_BYTES, &n1);
    long long j = first_diff(d, data_end, d->bytes, &n2);
    char at[160];
    if (i >= 0 || j >= 0) {
        long long k = i >= 0 ? i : j;
        cts_verdict_fail(v, CTS_FAIL, "guards",
                         "write outside %s: %zu guard bytes damaged, first in the %s",
                         d->t->name, n1 + n2, where(d, (size_t)k, at, sizeof at));
        return false;
    }
    if (!d->t->is_output || d->storage == 0) return true;
    /* Storage elements the view does not cover (strided outputs) must keep their poison. */
    unsigned char *in_view = calloc((size_t)d->storage, 1);
    if (!in_view) return true;
    for (int64_t k = 0; k < d->numel; k++) in_view[cts_dev_tensor_pos(d, k)] = 1;
    bool ok = true;
    for (int64_t p = 0; p < d->storage && ok; p++) {
        size_t b = CTS_GUARD_BYTES + (size_t)p * d->esize;
        if (!in_view[p] && memcmp(d->back + b, d->sent + b, d->esize) != 0) {
            cts_verdict_fail(v, CTS_FAIL, "guards",
                             "write outside the view of %s: %s no longer holds its poison",
                             d->t->name, where(d, b, at, sizeof at));
            ok = false;
        }
    }
    free(in_view);
    return ok;
}

static const char *policy_name(const cts_tolerance *t)
{
    if (t->name && *t->name) return t->name;
    switch (t->kind) {
    case CTS_TOL_ULP: return "ulp";
    case CTS_TOL_ALLCLOSE: return "allclose";
    case CTS_TOL_SHARE: return "share";
    default: return "bound";
    }
}

/* Judge every element of o against values(k); shared by tolerance and expected values. */
typedef struct {
    int64_t bad, worst, skipped;
    cts_elem_err worst_err;
    double worst_ulp, worst_bound, worst_rel;
    bool class_mismatch;
    int64_t mismatch_at;
} judge_summary;

/* The named standards the audit counts, resolved for dtype dt (cts_tolerance_resolved). */
static void audit_standards(ref_dtype dt, cts_tolerance std[CTS_STAT_STANDARDS])
{
    static const cts_tolerance named[CTS_STAT_STANDARDS] = {
        {.kind = CTS_TOL_SHARE, .name = "ascend-thousandth"},
        {.kind = CTS_TOL_SHARE, .name = "ascend-ten-thousandth"},
        {.kind = CTS_TOL_ALLCLOSE, .name = "torch-default"}};
    for (int i = 0; i < CTS_STAT_STANDARDS; i++) std[i] = cts_tolerance_resolved(&named[i], dt);
}

static const cts_tolerance bound_policy = {.kind = CTS_TOL_BOUND, .name = "bound"};

/* Adds element k, judged as r under the case's policy, to the audit statistics: its errors and
 * the standards accepting it come from r unless the reference offers alternatives, whose best
 * depends on the policy (then judged again: errors under `bound`, each standard under itself,
 * as a separate audit would). */
static void stats_add(cts_elem_stats *st, const cts_tolerance std[CTS_STAT_STANDARDS],
                      const ref_path *path, const cts_judged_output *o, int64_t k,
                      const cts_elem_err *r)
{
    if (r->skipped) {
        st->skipped++;
        return;
    }
    const ref_output *ref = o->ref;
    bool ambiguous = ref->flags && (ref->flags[k] & REF_FLAG_AMBIGUOUS) && ref->alt_first &&
                     ref->alt_first[k] >= 0;
    bool meets[CTS_STAT_STANDARDS];
    cts_elem_err b = *r;
    if (ambiguous) b = cts_judge_element(&bound_policy, o->dtype, path, o->got[k], ref, k);
    for (int i = 0; i < CTS_STAT_STANDARDS; i++)
        meets[i] = ambiguous ? cts_judge_element(&std[i], o->dtype, path, o->got[k], ref, k).ok
                             : cts_policy_accepts(&std[i], r, o->got[k]);
    double err[CTS_STAT_METRICS] = {b.ulp, b.bound_units, b.rel};
    cts_elem_stats_add(st, err, meets);
}

/* st: the audit statistics to add every element to (the tolerance check), or NULL. */
static void judge_all(const cts_tolerance *tol, const ref_path *path, const cts_judged_output *o,
                      const cts_expected_values *e, judge_summary *s, cts_elem_stats *st)
{
    cts_tolerance std[CTS_STAT_STANDARDS];
    if (st) audit_standards(o->dtype, std);
    memset(s, 0, sizeof *s);
    s->worst = -1;
    s->mismatch_at = -1;
    for (int64_t k = 0; k < o->numel; k++) {
        cts_elem_err r;
        if (e) {
            ref_value val = {0};
            if (o->ref) val = o->ref->v[k];
            else { val.sum_abs = fabs(e->values[0]); val.nterms = 1; val.nops = 1; }
            val.hi = e->values[(size_t)k % e->nvalues];
            val.lo = 0;
            if (!o->ref) val.sum_abs = fabs(val.hi);
            r = cts_judge_value(tol, o->dtype, path, o->got[k], &val);
        } else {
            r = cts_judge_element(tol, o->dtype, path, o->got[k], o->ref, k);
            if (st) stats_add(st, std, path, o, k, &r);
        }
        if (!r.ok) s->bad++;
        if (r.skipped) s->skipped++;
        if (r.class_mismatch && !s->class_mismatch) {
            s->class_mismatch = true;
            s->mismatch_at = k;
        }
        s->worst_ulp = fmax(s->worst_ulp, r.ulp);
        s->worst_bound = fmax(s->worst_bound, r.bound_units);
        s->worst_rel = fmax(s->worst_rel, r.rel);
        if (s->worst < 0 || r.policy_units > s->worst_err.policy_units) {
            s->worst = k;
            s->worst_err = r;
        }
    }
}

static void fail_message(const char *check, const cts_tolerance *tol, const ref_path *path,
                         const cts_judged_output *o, const judge_summary *s, int64_t k,
                         const cts_elem_err *r, const char *head, cts_verdict *v)
{
    char idx[96];
    cts_verdict_fail(v, CTS_FAIL, check,
                     "%s%s%s: got %.9g, exact %.17g, error %.4g ULP of %s = %.4g bound units "
                     "(policy %s, path %s); %lld of %lld elements out of tolerance",
                     head, o->name,
                     cts_multi_index(o->rank, o->dims, k, idx, sizeof idx), o->got[k], r->exact,
                     r->ulp, ref_dtype_name(o->dtype), r->bound_units, policy_name(tol),
                     path && path->name ? path->name : "?", (long long)s->bad,
                     (long long)o->numel);
}

/* Appends "N of M elements of OUTPUT not judged (why)" to a passing verdict's message. */
static void note_unjudged(cts_verdict *v, int64_t n, const cts_judged_output *o)
{
    size_t len = strlen(v->message);
    snprintf(v->message + len, sizeof v->message - len,
             "%s%lld of %lld elements of %s not judged: their legal values include a "
             "non-finite or overflowing contribution of a grid point whose branch is unknown, "
             "so no finite interval bounds them (REF_FLAG_UNCHECKABLE)",
             len ? "; " : "", (long long)n, (long long)o->numel, o->name);
}

bool cts_check_unjudged(int64_t max, cts_verdict *v)
{
    if (max < 0 || v->el.skipped <= max) return true;
    cts_verdict_fail(v, CTS_FAIL, "unjudged",
                     "%lld elements left unjudged by the reference, the suite allows %lld "
                     "(unjudged: %lld)",
                     (long long)v->el.skipped, (long long)max, (long long)max);
    return false;
}

bool cts_check_tolerance(const cts_tolerance *tol_in, const ref_path *path,
                         const cts_judged_output *o, cts_verdict *v)
{
    cts_tolerance tol = cts_tolerance_resolved(tol_in, o->dtype);
    judge_summary s;
    judge_all(&tol, path, o, NULL, &s, o->ref ? &v->el : NULL);
    /* Across outputs the worst element is the one of the output with the largest error in
     * bound units; within an output, the one furthest outside the policy. */
    bool worse = !v->worst_output[0] || s.worst_bound > v->worst_bound_units;
    v->nelems += o->numel;
    v->worst_ulp = fmax(v->worst_ulp, s.worst_ulp);
    v->worst_bound_units = fmax(v->worst_bound_units, s.worst_bound);
    v->worst_rel = fmax(v->worst_rel, s.worst_rel);
    if (s.worst >= 0 && worse) {
        snprintf(v->worst_output, sizeof v->worst_output, "%s", o->name);
        v->worst_index = s.worst;
        v->worst_got = o->got[s.worst];
        v->worst_exact = s.worst_err.exact;
    }
    if (s.class_mismatch) {
        cts_elem_err r = cts_judge_element(&tol, o->dtype, path, o->got[s.mismatch_at], o->ref,
                                           s.mismatch_at);
        fail_message("tolerance", &tol, path, o, &s, s.mismatch_at, &r,
                     "non-finite class differs at ", v);
        return false;
    }
    if (tol.kind == CTS_TOL_SHARE) {
        double share = o->numel ? 1.0 - (double)s.bad / (double)o->numel : 1.0;
        if (share >= tol.min_share) return true;
        char head[160];
        snprintf(head, sizeof head,
                 "only %.4f %% of elements within relative error %g (need %.4f %%); worst ",
                 100 * share, tol.rel, 100 * tol.min_share);
        fail_message("tolerance", &tol, path, o, &s, s.worst, &s.worst_err, head, v);
        return false;
    }
    if (s.bad == 0) {
        if (s.skipped && !v->check[0]) /* one note per output, after any earlier one */
            note_unjudged(v, s.skipped, o);
        return true;
    }
    fail_message("tolerance", &tol, path, o, &s, s.worst, &s.worst_err, "", v);
    return false;
}

bool cts_check_expected_values(const cts_tolerance *tol_in, const ref_path *path,
                               const cts_judged_output *o, const cts_expected_values *e,
                               cts_verdict *v)
{
    if (!e->any || e->nvalues == 0 || o->numel == 0) return true;
    cts_tolerance tol = cts_tolerance_resolved(tol_in, o->dtype);
    judge_summary s;
    judge_all(&tol, path, o, e, &s, NULL);
    bool ok = tol.kind == CTS_TOL_SHARE && !s.class_mismatch
                  ? 1.0 - (double)s.bad / (double)o->numel >= tol.min_share
                  : s.bad == 0;
    if (ok) return true;
    fail_message("expected-values", &tol, path, o, &s, s.worst, &s.worst_err,
                 "differs from the suite's expected value at ", v);
    return false;
}

void cts_error_grid_fill(const cts_judged_output *o, const ref_path *path, int64_t k,
                         cts_error_grid *g)
{
    /* the plane over the last two dims; grid_grad (N, Ho, Wo, 2) shows x and y side by side */
    int r = o->rank;
    int64_t h = r >= 2 ? o->dims[r - 2] : 1, w = r >= 1 ? o->dims[r - 1] : 1;
    if (!strcmp(o->name, "grid_grad") && r == 4) {
        h = o->dims[1];
        w = o->dims[2] * 2;
    }
    memset(g, 0, sizeof *g);
    if (h * w <= 0 || !o->ref || k < 0 || k >= o->numel) return;
    int64_t bh = (h + CTS_GRID_MAX - 1) / CTS_GRID_MAX, bw = (w + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    snprintf(g->output, sizeof g->output, "%s", o->name);
    g->h = h;
    g->w = w;
    g->plane = k / (h * w);
    g->rows = (int32_t)((h + bh - 1) / bh);
    g->cols = (int32_t)((w + bw - 1) / bw);
    double *block = calloc((size_t)g->rows * (size_t)g->cols, sizeof *block);
    if (!block) {
        g->rows = g->cols = 0;
        return;
    }
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++) {
            int64_t e = g->plane * h * w + y * w + x;
            cts_elem_err j = cts_judge_element(&bound_policy, o->dtype, path, o->got[e], o->ref, e);
            double u = j.skipped ? 0 : j.bound_units;
            double *m = &block[(y / bh) * g->cols + x / bw];
            if (isnan(u) || u > *m) *m = u; /* block maximum, as the report draws it */
            if (isnan(u) || u > g->worst) g->worst = u;
        }
    for (int32_t i = 0; i < g->rows * g->cols; i++) g->code[i] = cts_grid_code(block[i]);
    free(block);
}

bool cts_check_identical(const cts_dev_tensor *first, const cts_dev_tensor *later,
                         const char *label, cts_verdict *v)
{
    const unsigned char *a = first->back + CTS_GUARD_BYTES, *b = later->back + CTS_GUARD_BYTES;
    int64_t differ = 0, k0 = -1;
    for (int64_t k = 0; k < first->numel; k++) {
        size_t p = (size_t)cts_dev_tensor_pos(first, k) * first->esize;
        if (memcmp(a + p, b + p, first->esize) != 0 && differ++ == 0) k0 = k;
    }
    if (differ == 0) return true;
    size_t p = (size_t)cts_dev_tensor_pos(first, k0) * first->esize;
    double x = cts_decode(first->t->dtype, a + p), y = cts_decode(first->t->dtype, b + p);
    char idx[96];
    cts_verdict_fail(v, CTS_FAIL, "determinism",
                     "deterministic computation asked but %s differs between run 1 and %s at "
                     "%lld of %lld elements, first %s: %.9g vs %.9g (%.4g ULP)",
                     first->t->name, label, (long long)differ, (long long)first->numel,
                     cts_multi_index(first->t->rank, first->t->dims, k0, idx, sizeof idx), x, y,
                     ref_ulp_distance(y, x, first->t->dtype));
    return false;
}

double cts_spread_ulp(const cts_dev_tensor *first, const cts_dev_tensor *later)
{
    double worst = 0;
    const unsigned char *a = first->back + CTS_GUARD_BYTES, *b = later->back + CTS_GUARD_BYTES;
    for (int64_t k = 0; k < first->numel; k++) {
        size_t p = (size_t)cts_dev_tensor_pos(first, k) * first->esize;
        if (memcmp(a + p, b + p, first->esize) == 0) continue;
        double x = cts_decode(first->t->dtype, a + p), y = cts_decode(first->t->dtype, b + p);
        worst = fmax(worst, ref_ulp_distance(y, x, first->t->dtype));
    }
    return worst;
}

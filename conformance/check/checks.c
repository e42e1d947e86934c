/* The checks of one case (check.h): its status and message, and each output's judgement; the
 * checks of the device images are image_checks.c's. */
#include "check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_internal.h"
#include "judge_batch.h"
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
            char w[512];
            cts_waiver_describe(c, w, sizeof w);
            cts_verdict_fail(v, CTS_WAIVED, "status",
                             "waived: status %d instead of %d (%s); waiver: %s", got, expected,
                             reason, w);
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

/* ---- streaming judgement (check.h) ---- */

typedef struct {
    int64_t bad, worst, skipped;
    cts_elem_err worst_err;
    double worst_ulp, worst_bound, worst_rel;
    bool class_mismatch;
    int64_t mismatch_at;
    cts_elem_err mismatch_err;
    double worst_got, mismatch_got; /* the device's values there */
} judge_summary;

/* Where an element goes in the error map: its plane's row and column, block and place in the
 * block; k -1: none (the next element seeks its plane). */
typedef struct {
    int64_t k, y, x, by, bx, yin, xin, bh, bw;
} map_pos;

/* The state of one output's judgement: summaries, audit statistics and the error map of the
 * plane holding its worst element (block maxima of the plane being judged). Bounded: it keeps
 * no per-element data. */
struct cts_output_judge {
    cts_tolerance tol;             /* resolved for the output's dtype */
    cts_judge_basis basis;         /* dtype, path and ref_bound's constants */
    cts_judged_output o;           /* got: the whole output, or NULL (each chunk brings its
                                      own); ref unused */
    bool tolerance;                /* judge the tolerance (else expected values only) */
    const cts_expected_values *e;  /* or NULL */
    cts_elem_stats *st;            /* audit statistics, or NULL */
    cts_tolerance std[CTS_STAT_STANDARDS];
    judge_summary tol_s, exp_s;
    int64_t map_h, map_w, map_plane;
    double block[CTS_GRID_MAX * CTS_GRID_MAX], block_worst;
    int32_t rows, cols;            /* blocks of a plane (map_blocks of map_h x map_w) */
    map_pos at;                    /* where element k goes, -1 none */
    cts_error_grid map;            /* the map of the worst element's plane once complete */
    cts_judge_batch batch;         /* plain elements waiting for the batched pass */
};

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

/* Adds element k (chunk element i), judged as r under the case's policy, to the audit
 * statistics: its errors and the standards accepting it come from r unless the reference offers
 * alternatives, whose best depends on the policy (then judged again: errors under `bound`, each
 * standard under itself, as a separate audit would). Returns its error in bound units under
 * `bound` (0 when skipped), what the error map draws. */
static double stats_add(cts_output_judge *j, const ref_output *ref, int64_t i, double got,
                        const cts_elem_err *r)
{
    if (r->skipped) {
        j->st->skipped++;
        return 0;
    }
    bool ambiguous = ref->flags && (ref->flags[i] & REF_FLAG_AMBIGUOUS) && ref->alt_first &&
                     ref->alt_first[i] >= 0;
    bool meets[CTS_STAT_STANDARDS];
    /* A pointer, not a copy of r: copying the struct just built stalled store forwarding
     * (perf: 17 % of judge_one's samples on avg-pool FP16 id204). */
    cts_elem_err alt;
    const cts_elem_err *b = r;
    if (ambiguous) {
        alt = cts_judge_element(&bound_policy, &j->basis, got, ref, i);
        b = &alt;
    }
    for (int s = 0; s < CTS_STAT_STANDARDS; s++)
        meets[s] = ambiguous ? cts_judge_element(&j->std[s], &j->basis, got, ref, i).ok
                             : cts_policy_accepts(&j->std[s], r, got);
    double err[CTS_STAT_METRICS] = {b->ulp, b->bound_units, b->rel};
    elem_stats_add(j->st, err, meets);
    return b->bound_units;
}

/* ---- ambiguous elements: each legal value judged once for every policy ---- */

/* Whether element i's judgements under several policies can share one judgement of each legal
 * value (alternatives listed; no interval, not unjudged): cts_judge_element's judgements under
 * two policies differ only in each value's policy units, and so in which value is best. */
static bool shared_alternatives(const ref_output *ref, int64_t i)
{
    return ref->flags && (ref->flags[i] & REF_FLAG_AMBIGUOUS) && ref->alt_first &&
           ref->alt_first[i] >= 0 && ref->alt_count[i] <= REF_MAX_ALTS &&
           !(ref->flags[i] & (REF_FLAG_INTERVAL | REF_FLAG_UNCHECKABLE));
}

typedef struct {
    int n;
    cts_elem_err e[REF_MAX_ALTS + 1]; /* the primary value, then the alternatives */
} legal_values;

/* Each legal value of element i judged (under `bound`), as cts_judge_element judges them. */
static void legal_values_of(const cts_judge_basis *b, double got, const ref_output *ref,
                            int64_t i, legal_values *l)
{
    cts_elem_err *p = &l->e[0];
    *p = cts_judge_value(&bound_policy, b, got, &ref->v[i]);
    bool range = ref->flags[i] & (REF_FLAG_OPERAND_OVERFLOW | REF_FLAG_RANGE);
    if (!p->ok && !isfinite(got) && range) {
        p->ok = true; /* as cts_judge_element: a non-finite result is legal there */
        p->class_mismatch = false;
        p->ulp = p->bound_units = p->rel = p->policy_units = 0;
    }
    l->n = 1;
    for (int32_t a = 0; a < ref->alt_count[i]; a++)
        l->e[l->n++] = cts_judge_value(&bound_policy, b, got, &ref->alts[ref->alt_first[i] + a]);
}

/* The best legal value under tol, as cts_judge_element picks it: each value's policy units under
 * tol (a non-finite value's judgement is the class rule's, the same under every policy). */
static cts_elem_err best_legal(const cts_tolerance *tol, const legal_values *l, double got)
{
    cts_elem_err best;
    for (int a = 0; a < l->n; a++) {
        cts_elem_err e = l->e[a];
        if (isfinite(e.exact) && isfinite(got)) {
            e.policy_units = cts_policy_units(tol, &e, got);
            e.ok = e.policy_units <= 1;
        }
        /* tolerance.c better(): passing first, then fewer units */
        if (a == 0 || (e.ok != best.ok ? e.ok : e.policy_units < best.policy_units)) best = e;
    }
    return best;
}

/* stats_add for an element with shared alternatives. */
static double stats_add_legal(cts_output_judge *j, const legal_values *l, double got)
{
    cts_elem_err b = best_legal(&bound_policy, l, got);
    bool meets[CTS_STAT_STANDARDS];
    for (int s = 0; s < CTS_STAT_STANDARDS; s++) meets[s] = best_legal(&j->std[s], l, got).ok;
    double err[CTS_STAT_METRICS] = {b.ulp, b.bound_units, b.rel};
    elem_stats_add(j->st, err, meets);
    return b.bound_units;
}

static inline void summary_add(judge_summary *s, int64_t k, double got, const cts_elem_err *r)
{
    if (!r->ok) s->bad++;
    if (r->skipped) s->skipped++;
    if (r->class_mismatch && !s->class_mismatch) {
        s->class_mismatch = true;
        s->mismatch_at = k;
        s->mismatch_err = *r;
        s->mismatch_got = got;
    }
    s->worst_ulp = fmax(s->worst_ulp, r->ulp);
    s->worst_bound = fmax(s->worst_bound, r->bound_units);
    s->worst_rel = fmax(s->worst_rel, r->rel);
    if (s->worst < 0 || r->policy_units > s->worst_err.policy_units) {
        s->worst = k;
        s->worst_err = *r;
        s->worst_got = got;
    }
}

/* ---- the error map: block maxima of one plane ---- */

/* The plane of output o over its last two dims; an output of pairs (grid_grad (N, Ho, Wo, 2))
 * over the two before them, each pair side by side. */
static void map_plane(const cts_judged_output *o, int64_t *h, int64_t *w)
{
    int r = o->rank;
    *h = r >= 2 ? o->dims[r - 2] : 1;
    *w = r >= 1 ? o->dims[r - 1] : 1;
    if (o->pairs && r >= 3) {
        *h = o->dims[r - 3];
        *w = o->dims[r - 2] * o->dims[r - 1];
    }
}

/* Rows and columns of blocks of an h x w plane: at most CTS_GRID_MAX each. */
static void map_blocks(int64_t h, int64_t w, int32_t *rows, int32_t *cols)
{
    int64_t bh = (h + CTS_GRID_MAX - 1) / CTS_GRID_MAX, bw = (w + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    *rows = (int32_t)((h + bh - 1) / bh);
    *cols = (int32_t)((w + bw - 1) / bw);
}

static void map_start(cts_error_grid *g, const cts_judged_output *o, int64_t h, int64_t w,
                      int64_t plane)
{
    memset(g, 0, sizeof *g);
    snprintf(g->output, sizeof g->output, "%s", o->name);
    g->h = h;
    g->w = w;
    g->plane = plane;
    map_blocks(h, w, &g->rows, &g->cols);
}

/* Element e of g's plane with error u (bound units) into the block maxima. */
static void map_put(const cts_error_grid *g, double *block, double *worst, int64_t e, double u)
{
    int64_t bh = (g->h + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    int64_t bw = (g->w + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    int64_t y = e / g->w, x = e % g->w;
    double *m = &block[(y / bh) * g->cols + x / bw];
    if (isnan(u) || u > *m) *m = u; /* block maximum, as the report draws it */
    if (isnan(u) || u > *worst) *worst = u;
}

static void map_code(cts_error_grid *g, const double *block, double worst)
{
    g->worst = worst;
    for (int32_t i = 0; i < g->rows * g->cols; i++) g->code[i] = cts_grid_code(block[i]);
}

/* The plane being judged is complete: it becomes the map when it holds the worst element. */
static void map_finish_plane(cts_output_judge *j)
{
    int64_t hw = j->map_h * j->map_w;
    if (j->map_plane < 0 || j->tol_s.worst < 0 || j->tol_s.worst / hw != j->map_plane) return;
    map_start(&j->map, &j->o, j->map_h, j->map_w, j->map_plane);
    map_code(&j->map, j->block, j->block_worst);
}

/* Positions the map at element k: its plane (a new one starts cleared) and its row and column
 * (and their blocks). */
static void map_seek(cts_output_judge *j, int64_t k)
{
    int64_t hw = j->map_h * j->map_w;
    if (k / hw != j->map_plane) {
        map_finish_plane(j);
        j->map_plane = k / hw;
        memset(j->block, 0, (size_t)j->rows * (size_t)j->cols * sizeof *j->block);
        j->block_worst = 0;
    }
    int64_t e = k % hw, bh = (j->map_h + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    int64_t bw = (j->map_w + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    j->at.k = k;
    j->at.y = e / j->map_w;
    j->at.x = e % j->map_w;
    j->at.by = j->at.y / bh;
    j->at.yin = j->at.y % bh;
    j->at.bx = j->at.x / bw;
    j->at.xin = j->at.x % bw;
    j->at.bh = bh;
    j->at.bw = bw;
}

/* The map's position one element forward: its column and block, at a row's end the next row,
 * at the plane's end none (at.k -1: the next element seeks its plane). */
static inline void pos_step(map_pos *at, int64_t map_w, int64_t map_h)
{
    at->k++;
    if (++at->xin == at->bw) at->xin = 0, at->bx++;
    if (++at->x < map_w) return;
    at->x = at->xin = at->bx = 0;
    if (++at->yin == at->bh) at->yin = 0, at->by++;
    if (++at->y == map_h) at->k = -1; /* the plane is complete: seek the next */
}

/* The map's position d elements forward within its row (at->x + d < the map's width): what d
 * pos_steps give, without a step an element. */
static inline void pos_along(map_pos *at, int64_t d)
{
    at->k += d;
    at->x += d;
    at->xin += d;
    if (at->xin >= at->bw) at->bx += at->xin / at->bw, at->xin %= at->bw;
}

static inline void map_step(cts_output_judge *j)
{
    pos_step(&j->at, j->map_w, j->map_h);
}

/* Element k's error u (bound units) into the block maxima of its plane. Elements come in index
 * order, so the position moves on from the last element's over those the judge skipped (exact
 * ones: no error to put): at once within a row, a step an element across rows, by a seek from
 * k's index past 64 steps. */
static void map_add(cts_output_judge *j, int64_t k, double u)
{
    if (j->map_h * j->map_w <= 0 || !j->st) return;
    map_pos at = j->at; /* stepped in a local: in the judge's fields each step waited on the
                         * stores of the one before */
    for (int gap = 0; at.k >= 0 && at.k < k && gap < 64; gap++)
        if (at.x + (k - at.k) < j->map_w) pos_along(&at, k - at.k); /* k in this row */
        else pos_step(&at, j->map_w, j->map_h);
    j->at = at;
    if (k != j->at.k) map_seek(j, k);
    double *m = &j->block[j->at.by * j->cols + j->at.bx];
    if (isnan(u) || u > *m) *m = u; /* block maximum, as the report draws it */
    if (isnan(u) || u > j->block_worst) j->block_worst = u;
    map_step(j);
}

/* ---- one output judged chunk by chunk ---- */

cts_output_judge *cts_judge_begin(const cts_tolerance *tol, const ref_path *path,
                                  const cts_judged_output *o, bool tolerance,
                                  const cts_expected_values *e, cts_elem_stats *st)
{
    cts_output_judge *j = calloc(1, sizeof *j);
    if (!j) return NULL;
    j->tol = cts_tolerance_resolved(tol, o->dtype);
    cts_judge_basis_init(&j->basis, o->dtype, path);
    j->o = *o;
    j->o.ref = NULL;
    j->tolerance = tolerance;
    j->e = e && e->any && e->nvalues > 0 && o->numel > 0 ? e : NULL;
    j->st = tolerance ? st : NULL;
    if (j->st) audit_standards(o->dtype, j->std);
    j->tol_s.worst = j->exp_s.worst = -1;
    j->tol_s.mismatch_at = j->exp_s.mismatch_at = -1;
    j->map_plane = -1;
    j->at.k = -1;
    map_plane(o, &j->map_h, &j->map_w);
    if (j->map_h * j->map_w > 0) map_blocks(j->map_h, j->map_w, &j->rows, &j->cols);
    return j;
}

/* Element k judged against the suite's expected value (cyclic list), like an exact value with
 * the reference's Σ|terms| when there is one (ref: its chunk, element i). */
static cts_elem_err judge_expected(const cts_output_judge *j, const ref_output *ref, int64_t i,
                                   int64_t k, double got)
{
    const cts_expected_values *e = j->e;
    ref_value val = {0};
    if (ref) val = ref->v[i];
    else { val.nterms = 1; val.nops = 1; }
    val.hi = e->values[(size_t)k % e->nvalues];
    val.lo = 0;
    if (!ref) val.sum_abs = fabs(val.hi);
    return cts_judge_value(&j->tol, &j->basis, got, &val);
}

/* Whether x is a value of dt, as ref_round_to(x, dt) == x says for finite x (the narrow
 * dtypes from x's bits: cts_narrow_holds). */
static inline bool dtype_holds(double x, ref_dtype dt)
{
    if (dt == REF_DT_FLOAT16 || dt == REF_DT_BF16 || dt == REF_DT_FLOAT)
        return cts_narrow_holds(x, dt == REF_DT_FLOAT16 ? 2 : dt == REF_DT_BF16);
    return ref_round_to(x, dt) == x;
}

/* An element without reference flags whose finite result equals its exact value, a value the
 * dtype holds (the zeros of a sparse gradient, sums without rounding): no error under any
 * policy, what cts_judge_element finds without its rounding, ULP and bound work. */
static inline bool exact_plain(const ref_output *ref, int64_t i, double got, ref_dtype dt)
{
    const ref_value *v = &ref->v[i];
    return !(ref->flags && ref->flags[i]) && got == v->hi && v->lo == 0 && isfinite(got) &&
           (got == 0 || dtype_holds(got, dt));
}

/* Element i of a chunk into *r: cts_judge_element, inline for an element without reference
 * flags, with a finite exact value and a finite result (most of them), written in place. */
static void judge_element(const cts_output_judge *j, const ref_output *ref, int64_t i,
                          double got, cts_elem_err *r)
{
    const ref_value *v = &ref->v[i];
    if (exact_plain(ref, i, got, j->basis.dt))
        *r = (cts_elem_err){.exact = v->hi, .rounded = v->hi, .ok = true};
    else if ((ref->flags && ref->flags[i]) || !isfinite(v->hi) || !isfinite(got))
        *r = cts_judge_element(&j->tol, &j->basis, got, ref, i);
    else
        cts_judge_finite_into(r, &j->tol, &j->basis, got, v);
}

/* Element k (chunk element i) through every judgement: tolerance (cts_judge_element itself when
 * `each`), statistics, map, expected values. */
static void judge_one(cts_output_judge *j, const ref_output *ref, int64_t i, int64_t k,
                      double got, bool each)
{
    if (j->tolerance && ref && !each && shared_alternatives(ref, i)) {
        legal_values l;
        legal_values_of(&j->basis, got, ref, i, &l);
        cts_elem_err r = best_legal(&j->tol, &l, got);
        if (j->st) map_add(j, k, stats_add_legal(j, &l, got));
        summary_add(&j->tol_s, k, got, &r);
    } else if (j->tolerance && ref) {
        cts_elem_err r;
        if (each) r = cts_judge_element(&j->tol, &j->basis, got, ref, i);
        else judge_element(j, ref, i, got, &r);
        if (j->st) map_add(j, k, stats_add(j, ref, i, got, &r));
        summary_add(&j->tol_s, k, got, &r);
    }
    if (j->e) {
        cts_elem_err r = judge_expected(j, ref, i, k, got);
        summary_add(&j->exp_s, k, got, &r);
    }
}

/* Every element of a chunk (ch NULL: of the whole output, without a reference) by judge_one. */
static void judge_each(cts_output_judge *j, const ref_chunk *ch, const double *got, bool each)
{
    const ref_output *ref = ch ? ch->out : NULL;
    int64_t first = ch ? ch->first : 0, count = ch ? ch->out->numel : j->o.numel;
    for (int64_t i = 0; i < count; i++) judge_one(j, ref, i, first + i, got[i], each);
}

void cts_judge_chunk_each(cts_output_judge *j, const ref_chunk *ch, const double *got)
{
    judge_each(j, ch, got, true);
}

/* What exact elements add to the summary once another element is its worst: the maxima's
 * fmax with their zero errors (which only a NaN maximum notices). */
static void summary_zeros(judge_summary *s)
{
    s->worst_ulp = fmax(s->worst_ulp, 0);
    s->worst_bound = fmax(s->worst_bound, 0);
    s->worst_rel = fmax(s->worst_rel, 0);
}

/* fmax(a, x) where neither is -0 (errors are not): what the summary's maxima take. */
static inline double fmax_pos(double a, double x)
{
    return isnan(a) || x > a ? x : a;
}

/* Batch elements [e0, e1) into the map: map_add, inline while they follow one another (the map
 * is then at the element: no gap to step over, no plane to seek). */
static void batch_map(cts_output_judge *j, int64_t first, const cts_judge_batch *b, int e0, int e1)
{
    int64_t map_w = j->map_w, map_h = j->map_h, cols = j->cols;
    if (map_h * map_w <= 0) return;
    /* the position and the plane's largest error in locals (registers), not the judge's
     * fields: each element's step would otherwise wait on the one before's stores */
    map_pos at = j->at;
    double worst = j->block_worst;
    for (int e = e0; e < e1; e++) {
        int64_t k = first + b->at[e];
        double u = b->metric[1][e];
        if (k != at.k) {
            j->at = at, j->block_worst = worst;
            map_add(j, k, u);
            at = j->at, worst = j->block_worst;
            continue;
        }
        double *m = &j->block[at.by * cols + at.bx];
        if (isnan(u) || u > *m) *m = u; /* as map_add */
        if (isnan(u) || u > worst) worst = u;
        pos_step(&at, map_w, map_h);
    }
    j->at = at, j->block_worst = worst;
}

_Static_assert(CTS_STAT_METRICS == 3 && CTS_STAT_STANDARDS == 3, "batch_stats names each one");

/* Batch elements [e0, e1) into the audit statistics and the map, in index order (the sums are
 * rounded in that order; the maxima and counts come from t when no error is NaN). */
static void batch_stats(cts_output_judge *j, int64_t first, const cts_judge_batch *b, int e0,
                        int e1, const cts_batch_totals *t)
{
    cts_elem_stats *st = j->st;
    const double *u = b->metric[0], *bu = b->metric[1], *rel = b->metric[2];
    double s0 = st->sum[0], s1 = st->sum[1], s2 = st->sum[2];
    for (int e = e0; e < e1; e++) {
        s0 += u[e];
        s1 += bu[e];
        s2 += rel[e];
        st->hist[0][b->bin[0][e]]++;
        st->hist[1][b->bin[1][e]]++;
        st->hist[2][b->bin[2][e]]++;
    }
    st->sum[0] = s0, st->sum[1] = s1, st->sum[2] = s2;
    for (int m = 0; m < CTS_STAT_METRICS; m++) {
        if (t->nan == 0) { /* the largest, whatever the order (a NaN maximum stays) */
            if (t->max[m] > st->max[m]) st->max[m] = t->max[m];
            continue;
        }
        for (int e = e0; e < e1; e++) {
            double x = b->metric[m][e];
            if (x > st->max[m] || isnan(x)) st->max[m] = x;
        }
    }
    for (int s = 0; s < CTS_STAT_STANDARDS; s++) st->meets[s] += t->meets[s];
    st->n += e1 - e0;
    batch_map(j, first, b, e0, e1);
}

/* Batch elements [e0, e1) into the summary as summary_add would one by one: the worst element
 * is the first with the largest policy units above the current worst's, judged again whole
 * (the summary keeps its errors). */
static void batch_summary(cts_output_judge *j, const ref_output *ref, int64_t first,
                          const cts_judge_batch *b, int e0, int e1, const cts_batch_totals *t)
{
    judge_summary *s = &j->tol_s;
    double worst_units = s->worst_err.policy_units;
    int worst = -1;
    s->bad += (e1 - e0) - t->ok;
    if (t->nan == 0) {
        for (int m = 0; m < CTS_STAT_METRICS; m++) {
            double *w = m == 0 ? &s->worst_ulp : m == 1 ? &s->worst_bound : &s->worst_rel;
            *w = fmax_pos(*w, t->max[m]);
        }
        for (int e = e0; t->policy_max > worst_units && worst < 0 && e < e1; e++)
            if (b->policy_units[e] == t->policy_max) worst = e; /* the first largest */
    } else {
        for (int e = e0; e < e1; e++) {
            double pu = b->policy_units[e];
            s->worst_ulp = fmax_pos(s->worst_ulp, b->metric[0][e]);
            s->worst_bound = fmax_pos(s->worst_bound, b->metric[1][e]);
            s->worst_rel = fmax_pos(s->worst_rel, b->metric[2][e]);
            if (pu > worst_units) worst_units = pu, worst = e;
        }
    }
    if (worst < 0) return;
    int64_t i = b->at[worst];
    s->worst = first + i;
    s->worst_got = b->got[worst];
    cts_judge_finite_into(&s->worst_err, &j->tol, &j->basis, b->got[worst], &ref->v[i]);
}

/* Judges the batch's elements (cts_judge_batch) and adds them as judge_one would one by one.
 * A plane of the map is complete when its next one's first element reaches the map, and keeps
 * its block maxima if the worst element so far lies in it: the summary takes each plane's part
 * of the batch before the map sees the next. */
static void batch_flush(cts_output_judge *j, const ref_output *ref, int64_t first)
{
    cts_judge_batch *b = &j->batch;
    if (b->n == 0) return;
    cts_batch_judge(b, ref, &j->tol, j->st ? j->std : NULL, &j->basis);
    int64_t hw = j->st ? j->map_h * j->map_w : 0;
    for (int e0 = 0, e1; e0 < b->n; e0 = e1) {
        e1 = b->n;
        if (hw > 0) { /* the part in element e0's plane */
            int64_t end = ((first + b->at[e0]) / hw + 1) * hw - first;
            for (e1 = e0 + 1; e1 < b->n && b->at[e1] < end;) e1++;
        }
        cts_batch_totals t;
        cts_batch_totals_of(b, e0, e1, j->st != NULL, &t);
        if (j->st) batch_stats(j, first, b, e0, e1, &t);
        batch_summary(j, ref, first, b, e0, e1, &t);
    }
    b->n = 0;
}

/* Whether element i may join a batch: no reference flag, finite exact and device values */
static inline bool plain_element(const ref_output *ref, int64_t i, double got)
{
    return !(ref->flags && ref->flags[i]) && isfinite(ref->v[i].hi) && isfinite(got);
}

/* Element i judged after the ones before it: pushed to the batch where `batch` (a plain element
 * of a batched dtype, once the output has a worst element), else alone, the batch flushed
 * first so that the statistics see the elements in index order. */
static inline __attribute__((always_inline)) void
judge_next(cts_output_judge *j, const ref_output *ref, int64_t first, int64_t i, double got,
           bool batch)
{
    if (batch) {
        cts_batch_push(&j->batch, &ref->v[i], i, got);
        if (j->batch.n == CTS_BATCH) batch_flush(j, ref, first);
        return;
    }
    batch_flush(j, ref, first);
    judge_one(j, ref, i, first + i, got, false);
}

/* The end of a pass over a chunk: the batch's last elements judged, and the exact elements'
 * zero errors added once, in the maxima (which only a NaN maximum notices) and the statistics. */
static void pass_end(cts_output_judge *j, const ref_output *ref, int64_t first, int64_t exact)
{
    batch_flush(j, ref, first);
    if (exact) summary_zeros(&j->tol_s);
    if (j->st) cts_elem_stats_add_zeros(j->st, exact);
}

/* How far ahead the pass asks for the reference's values: every one 16 elements ahead, or with
 * plain_hi only those it will read, 48 ahead (id208: 16% of the elements; 16 there left the
 * pass waiting on a third of those loads, 48 and 96 cost the same). */
enum { AHEAD = 16, AHEAD_HINTED = 48 };

/* The tolerance of a chunk in one pass that counts the exact elements (exact_plain), judges the
 * other plain ones (no reference flags, finite values) in batches and the rest one by one, in
 * index order: exact elements change no sum, maximum, block maximum or worst element (once
 * there is one), so what they add to the statistics is a count, added once. The map skips
 * them: the next element judged seeks its place. With esize (a constant where inlined: 2 or 4)
 * each element's stored bytes in raw go into *hash first: its chain of multiplies, one a byte,
 * waits on nothing else and runs in the gaps of the pass's own work. Without `hinted` the pass
 * waits on the reference's values (64 bytes an element, a chunk most of L2, written by the
 * reference's threads on another core): they are prefetched. hinted: the chunk carries
 * plain_hi (4 bytes an element), and an element is exact where got equals it and the dtype
 * holds it (exact_plain's test: flags, lo and finiteness are folded into plain_hi's NaN), so
 * only the other elements' values are read. An exact element whose hi is no float (a DOUBLE
 * output's) has plain_hi NaN and is judged instead, to an error of 0: the same results. */
static inline __attribute__((always_inline)) void
tolerance_pass(cts_output_judge *j, const ref_output *ref, int64_t first, int64_t from,
               int64_t count, const double *got, const unsigned char *raw, int esize,
               bool hinted, uint64_t *hash)
{
    ref_dtype dt = j->basis.dt;
    bool batched = cts_batch_dtype(dt);
    int64_t exact = 0;
    uint64_t h = esize ? *hash : 0;
    const float *ph = ref->plain_hi;
    for (int64_t i = from; i < count; i++) {
        if (esize) h = cts_fnv1a(h, raw + i * esize, (size_t)esize);
        if (!hinted && i + AHEAD < count)
            __builtin_prefetch(&ref->v[i + AHEAD]);
        int64_t a = i + AHEAD_HINTED;
        if (hinted && a < count && !(got[a] == (double)ph[a]))
            __builtin_prefetch(&ref->v[a]);
        if (hinted && j->tol_s.worst >= 0 && got[i] == (double)ph[i] &&
            (got[i] == 0 || dtype_holds(got[i], dt))) {
            exact++;
            continue;
        }
        bool plain = j->tol_s.worst >= 0 && plain_element(ref, i, got[i]);
        if (!hinted && plain && exact_plain(ref, i, got[i], dt)) {
            exact++;
            continue;
        }
        judge_next(j, ref, first, i, got[i], plain && batched);
    }
    if (esize) *hash = h;
    pass_end(j, ref, first, exact);
}

/* Block [b, b + n) of a chunk of count elements, n = min(CTS_EXACT_BLOCK, count - b): the
 * elements that are not exact (cts_exact_mask's zeros) as bits in o, their reference values
 * asked for. Returns n. */
static int block_others(const ref_output *ref, const double *got, int64_t b, int64_t count,
                        ref_dtype dt, uint64_t *o)
{
    int n = (int)(count - b < CTS_EXACT_BLOCK ? count - b : CTS_EXACT_BLOCK);
    cts_exact_mask(got + b, ref->plain_hi + b, n, dt, o);
    for (int w = 0; w < (n + 63) / 64; w++) {
        o[w] = ~o[w] & (n - 64 * w >= 64 ? ~0ull : (1ull << (n - 64 * w)) - 1);
        for (uint64_t x = o[w]; x; x &= x - 1)
            __builtin_prefetch(&ref->v[b + 64 * w + __builtin_ctzll(x)]);
    }
    return n;
}

/* tolerance_pass's hinted form for a batched dtype, with no hash riding along: the exact
 * elements found CTS_EXACT_BLOCK at a time by cts_exact_mask (vector code) and counted, only
 * the others visited, in index order, the next block's reference values asked for while this
 * block's are judged. Before the output has a worst element the elements go through
 * tolerance_pass (an exact one is judged then), a batch at a time; flushing there changes
 * nothing (a batch adds its elements in index order). */
static void tolerance_blocks(cts_output_judge *j, const ref_output *ref, int64_t first,
                             int64_t count, const double *got)
{
    ref_dtype dt = j->basis.dt;
    int64_t b = 0, exact = 0;
    for (; b < count && j->tol_s.worst < 0; b += CTS_BATCH)
        tolerance_pass(j, ref, first, b, count - b < CTS_BATCH ? count : b + CTS_BATCH, got,
                       NULL, 0, true, NULL);
    uint64_t o[2][CTS_EXACT_BLOCK / 64];
    int cur = 0, n = b < count ? block_others(ref, got, b, count, dt, o[0]) : 0;
    for (; b < count; cur ^= 1) {
        int next = b + n < count ? block_others(ref, got, b + n, count, dt, o[cur ^ 1]) : 0;
        for (int w = 0; w < (n + 63) / 64; w++) {
            exact += (n - 64 * w < 64 ? n - 64 * w : 64) - __builtin_popcountll(o[cur][w]);
            for (uint64_t x = o[cur][w]; x; x &= x - 1) {
                int64_t i = b + 64 * w + __builtin_ctzll(x);
                judge_next(j, ref, first, i, got[i], plain_element(ref, i, got[i]));
            }
        }
        b += n;
        n = next;
    }
    pass_end(j, ref, first, exact);
}

static void judge_tolerance_chunk(cts_output_judge *j, const ref_output *ref, int64_t first,
                                  int64_t count, const double *got)
{
    if (ref->plain_hi && cts_batch_dtype(j->basis.dt)) tolerance_blocks(j, ref, first, count, got);
    else if (ref->plain_hi) tolerance_pass(j, ref, first, 0, count, got, NULL, 0, true, NULL);
    else tolerance_pass(j, ref, first, 0, count, got, NULL, 0, false, NULL);
}

/* tolerance_pass with the hash of 2- and 4-byte elements, else the hash first (where
 * cts_fnv1a_long needs no chain: 4-byte elements, four multiplies each in the pass's chain that
 * grid FP32's pass waited on, and tolerance_blocks; docs/performance.md, "Zen 5"). */
static void judge_tolerance_hashed(cts_output_judge *j, const ref_output *ref, int64_t first,
                                   int64_t count, const double *got, const unsigned char *raw,
                                   int esize, uint64_t *hash)
{
    bool hinted = ref->plain_hi != NULL, wide = cts_fnv1a_long_wide((size_t)(count * esize));
    bool chained4 = esize == 4 && !wide;
    if (hinted && cts_batch_dtype(j->basis.dt) && wide) {
        *hash = cts_fnv1a_long(*hash, raw, (size_t)(count * esize));
        tolerance_blocks(j, ref, first, count, got);
    } else if (esize == 2 && hinted) {
        tolerance_pass(j, ref, first, 0, count, got, raw, 2, true, hash);
    } else if (esize == 2) {
        tolerance_pass(j, ref, first, 0, count, got, raw, 2, false, hash);
    } else if (chained4 && hinted) {
        tolerance_pass(j, ref, first, 0, count, got, raw, 4, true, hash);
    } else if (chained4) {
        tolerance_pass(j, ref, first, 0, count, got, raw, 4, false, hash);
    } else {
        *hash = cts_fnv1a_long(*hash, raw, (size_t)(count * esize));
        judge_tolerance_chunk(j, ref, first, count, got);
    }
}

void cts_judge_chunk_got(cts_output_judge *j, const ref_chunk *ch, const double *got)
{
    if (j->tolerance && ch && !j->e)
        judge_tolerance_chunk(j, ch->out, ch->first, ch->out->numel, got);
    else
        judge_each(j, ch, got, false);
}

void cts_judge_chunk_hashed(cts_output_judge *j, const ref_chunk *ch, const double *got,
                            const unsigned char *raw, int esize, uint64_t *hash)
{
    if (j->tolerance && ch && !j->e) {
        judge_tolerance_hashed(j, ch->out, ch->first, ch->out->numel, got, raw, esize, hash);
        return;
    }
    *hash = cts_fnv1a_long(*hash, raw, (size_t)((ch ? ch->out->numel : j->o.numel) * esize));
    judge_each(j, ch, got, false);
}

void cts_judge_chunk(cts_output_judge *j, const ref_chunk *ch)
{
    cts_judge_chunk_got(j, ch, j->o.got + (ch ? ch->first : 0));
}

static void fail_message(const char *check, const cts_tolerance *tol, const ref_path *path,
                         const cts_judged_output *o, const judge_summary *s, int64_t k,
                         double got, const cts_elem_err *r, const char *head, cts_verdict *v)
{
    char idx[96];
    cts_verdict_fail(v, CTS_FAIL, check,
                     "%s%s%s: got %.9g, exact %.17g, error %.4g ULP of %s = %.4g bound units "
                     "(policy %s, path %s); %lld of %lld elements out of tolerance",
                     head, o->name,
                     cts_multi_index(o->rank, o->dims, k, idx, sizeof idx), got, r->exact,
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

/* The tolerance verdict of a judged output; fills the verdict's worst-error summary. */
static bool tolerance_end(cts_output_judge *j, cts_verdict *v, cts_error_grid *worst_map)
{
    const judge_summary *s = &j->tol_s;
    const cts_judged_output *o = &j->o;
    /* Across outputs the worst element is the one of the output with the largest error in
     * bound units; within an output, the one furthest outside the policy. */
    bool worse = !v->worst_output[0] || s->worst_bound > v->worst_bound_units;
    v->nelems += o->numel;
    v->worst_ulp = fmax(v->worst_ulp, s->worst_ulp);
    v->worst_bound_units = fmax(v->worst_bound_units, s->worst_bound);
    v->worst_rel = fmax(v->worst_rel, s->worst_rel);
    if (s->worst >= 0 && worse) {
        snprintf(v->worst_output, sizeof v->worst_output, "%s", o->name);
        v->worst_index = s->worst;
        v->worst_got = s->worst_got;
        v->worst_exact = s->worst_err.exact;
        if (worst_map) *worst_map = j->map;
    }
    if (s->class_mismatch) {
        fail_message("tolerance", &j->tol, &j->basis.path, o, s, s->mismatch_at, s->mismatch_got,
                     &s->mismatch_err, "non-finite class differs at ", v);
        return false;
    }
    if (j->tol.kind == CTS_TOL_SHARE) {
        double share = o->numel ? 1.0 - (double)s->bad / (double)o->numel : 1.0;
        if (share >= j->tol.min_share) return true;
        char head[160];
        snprintf(head, sizeof head,
                 "only %.4f %% of elements within relative error %g (need %.4f %%); worst ",
                 100 * share, j->tol.rel, 100 * j->tol.min_share);
        fail_message("tolerance", &j->tol, &j->basis.path, o, s, s->worst, s->worst_got,
                     &s->worst_err, head, v);
        return false;
    }
    if (s->bad == 0) {
        if (s->skipped && !v->check[0]) /* one note per output, after any earlier one */
            note_unjudged(v, s->skipped, o);
        return true;
    }
    fail_message("tolerance", &j->tol, &j->basis.path, o, s, s->worst, s->worst_got,
                 &s->worst_err, "", v);
    return false;
}

static bool expected_end(const cts_output_judge *j, cts_verdict *v)
{
    const judge_summary *s = &j->exp_s;
    bool ok = j->tol.kind == CTS_TOL_SHARE && !s->class_mismatch
                  ? 1.0 - (double)s->bad / (double)j->o.numel >= j->tol.min_share
                  : s->bad == 0;
    if (ok) return true;
    fail_message("expected-values", &j->tol, &j->basis.path, &j->o, s, s->worst, s->worst_got,
                 &s->worst_err, "differs from the suite's expected value at ", v);
    return false;
}

bool cts_judge_end(cts_output_judge *j, cts_verdict *v, cts_error_grid *worst_map)
{
    bool ok = true;
    if (j->tolerance) {
        map_finish_plane(j);
        ok = tolerance_end(j, v, worst_map) && ok;
    }
    if (j->e) ok = expected_end(j, v) && ok;
    free(j);
    return ok;
}

void cts_judge_abandon(cts_output_judge *j)
{
    free(j);
}

static ref_chunk whole(const cts_judged_output *o)
{
    return (ref_chunk){0, 0, o->ref};
}

bool cts_check_tolerance(const cts_tolerance *tol, const ref_path *path,
                         const cts_judged_output *o, cts_verdict *v)
{
    cts_output_judge *j = cts_judge_begin(tol, path, o, true, NULL, &v->el);
    if (!j) return cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "out of host memory"), false;
    ref_chunk ch = whole(o);
    cts_judge_chunk(j, &ch);
    return cts_judge_end(j, v, NULL);
}

bool cts_check_expected_values(const cts_tolerance *tol, const ref_path *path,
                               const cts_judged_output *o, const cts_expected_values *e,
                               cts_verdict *v)
{
    cts_output_judge *j = cts_judge_begin(tol, path, o, false, e, NULL);
    if (!j) return cts_verdict_fail(v, CTS_RESOURCE_ERROR, "memory", "out of host memory"), false;
    ref_chunk ch = whole(o);
    cts_judge_chunk(j, o->ref ? &ch : NULL);
    return cts_judge_end(j, v, NULL);
}

void cts_error_grid_fill(const cts_judged_output *o, const ref_path *path, int64_t k,
                         cts_error_grid *g)
{
    int64_t h, w;
    map_plane(o, &h, &w);
    memset(g, 0, sizeof *g);
    if (h * w <= 0 || !o->ref || k < 0 || k >= o->numel) return;
    map_start(g, o, h, w, k / (h * w));
    double *block = calloc((size_t)g->rows * (size_t)g->cols, sizeof *block), worst = 0;
    if (!block) {
        g->rows = g->cols = 0;
        return;
    }
    cts_judge_basis basis;
    cts_judge_basis_init(&basis, o->dtype, path);
    for (int64_t e = 0; e < h * w; e++) {
        int64_t at = g->plane * h * w + e;
        cts_elem_err r = cts_judge_element(&bound_policy, &basis, o->got[at], o->ref, at);
        map_put(g, block, &worst, e, r.skipped ? 0 : r.bound_units);
    }
    map_code(g, block, worst);
    free(block);
}

/* Every element of two runs' images of a plain view (its elements are its storage's bytes in
 * order) the same, told by one memcmp. */
static bool plain_and_equal(const cts_dev_tensor *d, const unsigned char *a, const unsigned char *b)
{
    return cts_dev_tensor_plain(d) && memcmp(a, b, (size_t)d->numel * d->esize) == 0;
}

bool cts_check_identical(const cts_dev_tensor *first, const cts_dev_tensor *later,
                         const char *label, cts_verdict *v)
{
    const unsigned char *a = first->back + CTS_GUARD_BYTES, *b = later->back + CTS_GUARD_BYTES;
    if (plain_and_equal(first, a, b)) return true;
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
    if (plain_and_equal(first, a, b)) return 0;
    for (int64_t k = 0; k < first->numel; k++) {
        size_t p = (size_t)cts_dev_tensor_pos(first, k) * first->esize;
        if (memcmp(a + p, b + p, first->esize) == 0) continue;
        double x = cts_decode(first->t->dtype, a + p), y = cts_decode(first->t->dtype, b + p);
        worst = fmax(worst, ref_ulp_distance(y, x, first->t->dtype));
    }
    return worst;
}

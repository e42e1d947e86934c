/* The standards' audit of a run from its --dump: per record with judged elements, each output's
 * device values, golden and per-element bound units are read back from DUMP/<id>/ (the files
 * and rules of docs/dump.md), every standard judges the output (standard_judge.c), and the
 * verdicts are summed per op x dtype x numerics key x product beside the bound's, with the
 * elements and cases where a standard and the bound disagree. */
#include "standard.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reference.h"

enum { F_AMBIG = 1, F_UNCHECK = 4, F_OVF = 8, F_RANGE = 16, F_INTERVAL = 32 };

/* The arrays of one output of a dump. */
typedef struct {
    double *got, *hi, *lo, *ref, *flags, *bound, *interval, *alts, *bench;
    int64_t n, nalts;
    size_t *alt_order;           /* rows of alts by element index */
} out_arrays;

static void arrays_free(out_arrays *o)
{
    double **p[] = {&o->got, &o->hi, &o->lo, &o->ref, &o->flags, &o->bound, &o->interval,
                    &o->alts, &o->bench};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++) free(*p[i]);
    free(o->alt_order);
    memset(o, 0, sizeof *o);
}

static int read_array(const char *dir, const char *prefix, const char *name, int64_t want,
                      double **out, int64_t *n, char *err, size_t errlen)
{
    char path[4200];
    int64_t m;
    snprintf(path, sizeof path, "%.4000s/%s%.64s.npy", dir, prefix, name);
    if (cts_npy_read(path, out, &m, err, errlen)) return -1;
    if (n) *n = m;
    if (want >= 0 && m != want) {
        /* through a buffer that holds it all: the caller's may be shorter (cut, not overrun) */
        char msg[1000];
        snprintf(msg, sizeof msg, "%.900s: %lld elements, expected %lld", path, (long long)m,
                 (long long)want);
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    return 0;
}

static const double *alts_base;
static int by_alt_index(const void *x, const void *y)
{
    double a = alts_base[*(const size_t *)x * 5], b = alts_base[*(const size_t *)y * 5];
    return (a > b) - (a < b);
}

static json_t *load_case_json(const char *path, json_error_t *je);

/* Whether the benchmark device's call of the case succeeded (its case.json: status 0): the
 * outputs of a refused call are whatever its buffers held and are no benchmark. */
static bool bench_ran(const char *bdir)
{
    char path[4200];
    json_error_t je;
    snprintf(path, sizeof path, "%s/case.json", bdir);
    json_t *c = load_case_json(path, &je);
    json_t *st = c ? json_object_get(c, "got_status") : NULL;
    bool ok = st && json_is_integer(st) && json_integer_value(st) == 0;
    json_decref(c);
    return ok;
}

static int read_output(const char *dir, const char *bench_dir, const char *name, out_arrays *o,
                       char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    int64_t n, k;
    if (read_array(dir, "", name, -1, &o->got, &n, err, errlen) ||
        read_array(dir, "exact_", name, n, &o->hi, NULL, err, errlen) ||
        read_array(dir, "exact_lo_", name, n, &o->lo, NULL, err, errlen) ||
        read_array(dir, "ref_", name, n, &o->ref, NULL, err, errlen) ||
        read_array(dir, "flags_", name, n, &o->flags, NULL, err, errlen) ||
        read_array(dir, "bound_", name, n, &o->bound, NULL, err, errlen) ||
        read_array(dir, "interval_", name, 2 * n, &o->interval, NULL, err, errlen) ||
        read_array(dir, "alts_", name, -1, &o->alts, &k, err, errlen))
        return -1;
    o->n = n;
    o->nalts = k / 5;
    o->alt_order = malloc(((size_t)o->nalts + 1) * sizeof *o->alt_order);
    if (!o->alt_order) return -1;
    for (int64_t i = 0; i < o->nalts; i++) o->alt_order[i] = (size_t)i;
    alts_base = o->alts;
    qsort(o->alt_order, (size_t)o->nalts, sizeof *o->alt_order, by_alt_index);
    char bdir[4096], berr[512];
    if (bench_dir) {
        snprintf(bdir, sizeof bdir, "%s/%s", bench_dir, strrchr(dir, '/') + 1);
        if (!bench_ran(bdir) ||
            read_array(bdir, "", name, n, &o->bench, NULL, berr, sizeof berr))
            o->bench = NULL;
    }
    return 0;
}

static bool same_class(double a, double b)
{
    return (isnan(a) && isnan(b)) || (!isnan(a) && !isnan(b) && a == b);
}

/* The reference's dtype of a standards' dtype (CTS_STD_*), for the output range. */
static ref_dtype ref_dtype_of(int dt)
{
    static const ref_dtype t[CTS_STD_NDT] = {REF_DT_FLOAT16, REF_DT_BF16, REF_DT_FLOAT,
                                             REF_DT_DOUBLE, REF_DT_FLOAT};
    return dt >= 0 && dt < CTS_STD_NDT ? t[dt] : REF_DT_FLOAT;
}

/* Bound units of got against one legal value (hi + lo within bound; rounded: its dtype
 * value), docs/dump.md rules 2, 5 and 6; dt the output's dtype (CTS_STD_*): a device value
 * within its error may pass that dtype's range, so +-inf is legal there (rule 5's last clause,
 * as the checks judge it). */
static double units_of(double got, double hi, double lo, double bound, double rounded, int flags,
                       int dt)
{
    if (got == rounded || (isnan(got) && isnan(rounded))) return 0;
    if (!isfinite(hi) || !isfinite(got)) {
        bool ok = same_class(got, hi) || same_class(got, rounded) ||
                  (isnan(hi) && !isfinite(got)) ||
                  (!isfinite(got) && (flags & (F_OVF | F_RANGE))) ||
                  ref_bound_reaches_inf(ref_dtype_of(dt), hi, lo, bound, got);
        return ok ? 0 : INFINITY;
    }
    double d = fabs((got - hi) - lo);
    return d == 0 ? 0 : bound > 0 ? d / bound : INFINITY;
}

/* Element k's bound units and its two goldens, of the legal value nearest the device's: g[0]
 * its exact value rounded to double, g[1] the reference's value correctly rounded to the output
 * dtype (of an interval element: its point nearest the device's, rounded). Which one a
 * standard compares with is its file's `golden` (docs/standards.md). */
static double element(const out_arrays *o, int64_t k, int dt, double g[2])
{
    double got = o->got[k];
    int fl = (int)o->flags[k];
    g[0] = o->hi[k];
    g[1] = o->ref[k];
    if ((fl & F_INTERVAL) && isfinite(got)) {
        double lo = o->interval[2 * k], hi = o->interval[2 * k + 1];
        g[0] = got < lo ? lo : got > hi ? hi : got;
        g[1] = ref_round_to(g[0], ref_dtype_of(dt));
        double d = fmax(fmax(lo - got, got - hi), 0);
        return d == 0 ? 0 : o->bound[k] > 0 ? d / o->bound[k] : INFINITY;
    }
    double best = units_of(got, o->hi[k], o->lo[k], o->bound[k], o->ref[k], fl, dt);
    if (!(fl & F_AMBIG)) return best;
    size_t lo = 0, hi = (size_t)o->nalts; /* first row of element k */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (o->alts[o->alt_order[mid] * 5] < (double)k) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < (size_t)o->nalts && o->alts[o->alt_order[lo] * 5] == (double)k; lo++) {
        const double *r = &o->alts[o->alt_order[lo] * 5];
        double u = units_of(got, r[1], r[2], r[3], r[4], fl, dt);
        if (u < best) {
            best = u;
            g[0] = r[1];
            g[1] = r[4];
        }
    }
    return best;
}

/* An element where a standard and the bound disagree; its case and output are the judged
 * output's. */
typedef struct {
    int64_t index;
    double got, golden, bound_units, metric;
} elem_example;

/* One output's verdicts under every standard, held until cts_std_audit_finish adds them in
 * case-id order: a streamed audit judges cases as they end, and its counts, examples and CSV
 * lines must be those of the id order. */
struct cts_std_judged {
    char op[32], dtype[16], numerics[64], product[24], case_id[256], output[16];
    size_t seq;                        /* the order judged: a case's outputs keep theirs */
    bool no_bench;
    cts_std_verdict v[CTS_STD_MAX], bv;
    char *csv[CTS_STD_MAX];            /* its lines of standards_outputs.csv */
    int64_t ndis[CTS_STD_MAX][2];      /* elements where standard s and the bound disagree */
    elem_example ex[CTS_STD_MAX][2][CTS_STD_EXAMPLES]; /* the first of them */
};

static cts_std_row *row_of(cts_std_audit *a, const cts_std_judged *j)
{
    for (size_t i = 0; i < a->nrows; i++) {
        cts_std_row *w = &a->rows[i];
        if (!strcmp(w->op, j->op) && !strcmp(w->dtype, j->dtype) &&
            !strcmp(w->numerics, j->numerics) && !strcmp(w->product, j->product))
            return w;
    }
    a->rows = cts_grow(a->rows, &a->cap, a->nrows, sizeof *a->rows);
    cts_std_row *w = &a->rows[a->nrows++];
    memset(w, 0, sizeof *w);
    snprintf(w->op, sizeof w->op, "%s", j->op);
    snprintf(w->dtype, sizeof w->dtype, "%s", j->dtype);
    snprintf(w->numerics, sizeof w->numerics, "%s", j->numerics);
    snprintf(w->product, sizeof w->product, "%s", j->product);
    for (int s = 0; s < CTS_STD_MAX; s++) w->worst_margin[s] = NAN;
    return w;
}

/* The count-th disagreement of its kind: kept when among the first CTS_STD_EXAMPLES. */
static void example(cts_std_example *ex, int64_t count, const char *id, const char *out,
                    const elem_example *e)
{
    if (count > CTS_STD_EXAMPLES) return;
    cts_std_example *x = &ex[count - 1];
    *x = (cts_std_example){.index = e->index, .got = e->got, .golden = e->golden,
                           .bound_units = e->bound_units, .metric = e->metric};
    snprintf(x->case_id, sizeof x->case_id, "%s", id);
    snprintf(x->output, sizeof x->output, "%s", out);
}

/* Standard s's verdict (j->v[s]) on the output j holds, its CSV line and the first elements
 * where it and the bound disagree. */
static void hold(cts_std_judged *j, int s, const cts_standard *std, const cts_std_input *in,
                 const signed char *elem, const double *em)
{
    const cts_std_verdict *v = &j->v[s];
    cts_std_row w;
    memset(&w, 0, sizeof w);
    snprintf(w.op, sizeof w.op, "%s", j->op);
    snprintf(w.dtype, sizeof w.dtype, "%s", j->dtype);
    snprintf(w.numerics, sizeof w.numerics, "%s", j->numerics);
    snprintf(w.product, sizeof w.product, "%s", j->product);
    size_t len = 0;
    FILE *m = open_memstream(&j->csv[s], &len);
    if (!m) abort();
    cts_std_output_csv(m, std, &w, j->case_id, j->output, v, j->bv.margin, in, elem, em);
    if (fclose(m) != 0) abort();
    for (int64_t k = 0; v->judged && k < in->n; k++) {
        if (!in->judged[k] || elem[k] < 0 || (elem[k] == 1) == (in->bound_units[k] <= 1))
            continue;
        int kind = elem[k] == 1 ? 0 : 1;
        if (j->ndis[s][kind]++ < CTS_STD_EXAMPLES)
            j->ex[s][kind][j->ndis[s][kind] - 1] =
                (elem_example){k, in->got[k], in->golden[k], in->bound_units[k], em[k]};
    }
}

/* One standard's verdict on one output added to its row and the disagreement counts. */
static void account(cts_std_audit *a, int s, cts_std_row *w, const cts_std_judged *j)
{
    const cts_std_verdict *v = &j->v[s], *bv = &j->bv;
    if (a->outputs_csv) fputs(j->csv[s], a->outputs_csv);
    if (!v->judged) {
        w->unjudged[s]++;
        w->na[s][v->na]++;
        a->na[s][v->na]++;
        return;
    }
    w->cases[s]++;
    w->pass[s] += v->pass;
    if (isnan(w->worst_margin[s]) || !(v->margin <= w->worst_margin[s])) {
        w->worst_margin[s] = v->margin;
        memcpy(w->worst_m[s], v->m, sizeof v->m);
        snprintf(w->worst_case[s], sizeof w->worst_case[s], "%s", j->case_id);
    }
    if (v->pass != bv->pass) {
        int kind = v->pass ? 0 : 1;
        elem_example c = {-1, NAN, NAN, bv->margin, v->margin};
        example(a->case_ex[s][kind], ++a->case_disagree[s][kind], j->case_id, j->output, &c);
    }
    for (int kind = 0; kind < 2; kind++) {
        int64_t held = j->ndis[s][kind] < CTS_STD_EXAMPLES ? j->ndis[s][kind] : CTS_STD_EXAMPLES;
        for (int64_t e = 0; e < held; e++)
            example(a->elem_ex[s][kind], ++a->elem_disagree[s][kind], j->case_id, j->output,
                    &j->ex[s][kind][e]);
        a->elem_disagree[s][kind] += j->ndis[s][kind] - held;
    }
}

/* The first of the standard's not_applicable entries that excuses this output, or -1. */
static int not_applicable(const cts_standard *s, int dt, const char *path, bool nonfinite_other)
{
    for (int i = 0; i < s->nna; i++) {
        const cts_std_na *x = &s->na[i];
        if ((x->kind == CTS_NA_DTYPE && x->dt == dt) ||
            (x->kind == CTS_NA_PATH && !strcmp(x->path, path) && (x->dt < 0 || x->dt == dt)) ||
            (x->kind == CTS_NA_NONFINITE && nonfinite_other))
            return i;
    }
    return -1;
}

/* A new held output of case r, zeroed but for its keys. */
static cts_std_judged *held_new(cts_std_audit *a, const cts_result *r, const char *out)
{
    a->judged = cts_grow(a->judged, &a->judged_cap, a->njudged, sizeof *a->judged);
    cts_std_judged *j = &a->judged[a->njudged];
    memset(j, 0, sizeof *j);
    j->seq = a->njudged++;
    snprintf(j->op, sizeof j->op, "%s", r->op);
    snprintf(j->dtype, sizeof j->dtype, "%s", r->dtype);
    snprintf(j->numerics, sizeof j->numerics, "%s", r->numerics);
    snprintf(j->product, sizeof j->product, "%s", r->product);
    snprintf(j->case_id, sizeof j->case_id, "%s", r->v.case_id);
    snprintf(j->output, sizeof j->output, "%s", out);
    return j;
}

static void held_free(cts_std_audit *a)
{
    for (size_t i = 0; i < a->njudged; i++)
        for (int s = 0; s < CTS_STD_MAX; s++) free(a->judged[i].csv[s]);
    free(a->judged);
    a->judged = NULL;
    a->njudged = a->judged_cap = 0;
}

static void judge_output(cts_std_audit *a, const cts_result *r, const out_arrays *o, int dt,
                         const char *out)
{
    size_t n1 = (size_t)o->n + 1;
    double *golden = malloc(2 * n1 * sizeof *golden), *golden_dt = golden + n1;
    double *units = malloc(n1 * sizeof *units), *em = malloc(n1 * sizeof *em);
    unsigned char *judged = malloc(n1);
    signed char *elem = malloc(n1);
    if (!golden || !units || !judged || !elem || !em) abort();
    for (int64_t k = 0; k < o->n; k++) {
        double g[2] = {o->hi[k], o->ref[k]};
        judged[k] = !((int)o->flags[k] & F_UNCHECK);
        units[k] = judged[k] ? element(o, k, dt, g) : 0;
        golden[k] = g[0];
        golden_dt[k] = g[1];
    }
    bool nonfinite_other = false; /* a legal non-finite value of another class than exact's */
    for (int64_t k = 0; k < o->n; k++)
        nonfinite_other |= judged[k] && units[k] <= 1 && !isfinite(o->got[k]) &&
                           !same_class(o->got[k], golden[k]);
    cts_std_input in = {o->n, o->got, golden, o->bench, units, judged, dt};
    cts_std_input in_dt = in;
    in_dt.golden = golden_dt;
    static const cts_standard bound_std = {.name = "aclcts", .method = CTS_STD_BOUND,
                                           .dt = {{.set = true}, {.set = true}, {.set = true},
                                                  {.set = true}}};
    cts_std_judged *j = held_new(a, r, out);
    cts_std_judge(&bound_std, &in, &j->bv, NULL, NULL);
    for (int s = 0; s < a->nstd; s++) {
        cts_std_verdict *v = &j->v[s];
        const cts_std_input *ins = a->std[s].golden_dtype ? &in_dt : &in;
        int na = not_applicable(&a->std[s], dt, r->v.path, nonfinite_other);
        if (na >= 0) {
            memset(v, 0, sizeof *v);
            v->na = na;
        } else {
            cts_std_judge(&a->std[s], ins, v, elem, em);
            /* a standard needed the benchmark's output, which is missing */
            j->no_bench |= !v->judged && v->na == CTS_NA_NO_BENCH;
        }
        hold(j, s, &a->std[s], ins, elem, em);
    }
    free(golden);
    free(units);
    free(judged);
    free(elem);
    free(em);
}

static int std_dtype_of(const char *name)
{
    static const struct { const char *n; int d; } t[] = {
        {"FLOAT16", CTS_STD_F16}, {"BF16", CTS_STD_BF16}, {"FLOAT", CTS_STD_F32},
        {"DOUBLE", CTS_STD_F64}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (name && !strcmp(name, t[i].n)) return t[i].d;
    return -1;
}

/* case.json, whose verdict may hold +-1e999 (infinite errors, docs/dump.md) that jansson
 * refuses: only its tensors are read here, so those numbers are blanked to 0 first. */
static json_t *load_case_json(const char *path, json_error_t *je)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    int ch;
    while (f && m && (ch = fgetc(f)) != EOF) fputc(ch, m);
    if (f) fclose(f);
    if (m) fclose(m);
    json_t *c = NULL;
    if (f && buf) {
        for (char *p = buf; (p = strstr(p, "1e999"));) memcpy(p, "0    ", 5);
        c = json_loads(buf, 0, je);
    }
    free(buf);
    return c;
}

/* Every computed output of one case's dump. */
static int audit_case(cts_std_audit *a, const cts_result *r, const char *dump_dir,
                      const char *bench_dir, FILE *err)
{
    char dir[4096], path[4200], e[1024];
    snprintf(dir, sizeof dir, "%s/%s", dump_dir, r->v.case_id);
    snprintf(path, sizeof path, "%s/case.json", dir);
    json_error_t je = {.text = "unreadable"};
    json_t *c = load_case_json(path, &je);
    if (!c) {
        a->nmissing++;
        fprintf(err, "aclcts: standards: %s: no dump (%s)\n", r->v.case_id, je.text);
        return -1;
    }
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(c, "tensors"), i, t) {
        const char *name = json_string_value(json_object_get(t, "name"));
        if (!json_object_get(t, "ref") || !name) continue;
        out_arrays o;
        if (read_output(dir, bench_dir, name, &o, e, sizeof e)) {
            fprintf(err, "aclcts: standards: %s\n", e);
            a->nmissing++;
        } else {
            judge_output(a, r, &o, std_dtype_of(json_string_value(json_object_get(t, "dtype"))),
                         name);
        }
        arrays_free(&o);
    }
    json_decref(c);
    return 0;
}

static int by_row(const void *x, const void *y)
{
    const cts_std_row *a = x, *b = y;
    int c = strcmp(a->op, b->op);
    if (!c) c = strcmp(a->dtype, b->dtype);
    if (!c) c = cts_numerics_cmp(a->numerics, b->numerics);
    return c ? c : strcmp(a->product, b->product);
}

static int by_case(const void *x, const void *y)
{
    const cts_std_judged *a = x, *b = y;
    int c = strcmp(a->case_id, b->case_id);
    return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

void cts_std_audit_case(cts_std_audit *a, const cts_result *r, const char *dump_dir,
                        const char *bench_dir, FILE *err)
{
    if (r->v.nelems > 0 && r->v.status != CTS_CRASH && r->v.status != CTS_TIMEOUT &&
        r->v.status != CTS_ERROR)
        audit_case(a, r, dump_dir, bench_dir, err);
}

void cts_std_audit_finish(cts_std_audit *a)
{
    a->bound = -1;
    for (int s = 0; s < a->nstd; s++)
        if (a->std[s].method == CTS_STD_BOUND) a->bound = s;
    if (a->njudged) /* judged is NULL when no case was */
        qsort(a->judged, a->njudged, sizeof *a->judged, by_case);
    for (size_t i = 0; i < a->njudged; i++) {
        cts_std_judged *j = &a->judged[i];
        cts_std_row *w = row_of(a, j);
        for (int s = 0; s < a->nstd; s++) account(a, s, w, j);
        a->noutputs++;
        a->nbench_missing += j->no_bench;
    }
    held_free(a);
    qsort(a->rows, a->nrows, sizeof *a->rows, by_row);
}

int cts_std_audit_run(cts_std_audit *a, const cts_result_list *res, const char *dump_dir,
                      const char *bench_dir, FILE *err)
{
    bool numbers = false; /* a run without judged numbers writes no dump */
    for (size_t i = 0; i < res->count; i++) numbers |= res->r[i].v.nelems > 0;
    if (numbers && access(dump_dir, R_OK | X_OK) != 0) {
        fprintf(err, "aclcts: error: standards: the dump %s: %s\n", dump_dir, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < res->count; i++)
        cts_std_audit_case(a, &res->r[i], dump_dir, bench_dir, err);
    cts_std_audit_finish(a);
    return 0;
}

void cts_std_audit_free(cts_std_audit *a)
{
    held_free(a);
    free(a->rows);
    a->rows = NULL;
    a->nrows = a->cap = 0;
}

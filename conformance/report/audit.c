/* The precision audit (report.h): the result records' element statistics gathered per row. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const cts_audit_bin_names[CTS_AUDIT_BINS] = {"0", "1", "2", "3-4", "5-8", "9-16",
                                                         "17-64", "65-256", ">256"};
const char *const cts_audit_standards[CTS_AUDIT_STANDARDS] = {
    "ascend-thousandth", "ascend-ten-thousandth", "torch-default"};

/* Coarse ULP bin of half-octave bin b (ULPs are integers: upper edges 2^(i/2) with
 * i = 0, 2, 4, 6, 8, 12, 16 bound 1, 2, 4, 8, 16, 64, 256). */
static int coarse_bin(int b)
{
    static const double upper[CTS_AUDIT_BINS - 1] = {0, 1, 2, 4, 8, 16, 64, 256};
    double x = cts_stat_bin_upper(b);
    for (int k = 0; k < CTS_AUDIT_BINS - 1; k++)
        if (x <= upper[k])
            return k;
    return CTS_AUDIT_BINS - 1;
}

int cts_audit_bound_bin(int stat_bin)
{
    if (stat_bin <= 0)
        return 0;
    if (stat_bin >= CTS_STAT_BINS - 1)
        return CTS_AUDIT_BOUND_BINS - 1; /* inf, NaN */
    double up = cts_stat_bin_upper(stat_bin);
    if (!(up < INFINITY))
        return CTS_AUDIT_BOUND_BINS - 2;
    int e;
    double m = frexp(up, &e);
    int octave = m == 0.5 ? e - 1 : e; /* up in (2^(octave-1), 2^octave] */
    if (octave <= -10)
        return 1;
    if (octave > 2)
        return CTS_AUDIT_BOUND_BINS - 2;
    return octave + CTS_AUDIT_BOUND_PASS_LAST;
}

int cts_audit_bound_bin_exp(int b)
{
    return b - CTS_AUDIT_BOUND_PASS_LAST;
}

/* The coverage entry of a result's op x dtype x numerics key x product. */
static cts_audit_cover *cover_for(cts_audit *a, const cts_result *r)
{
    for (size_t i = 0; i < a->ncovers; i++) {
        cts_audit_cover *c = &a->covers[i];
        if (!strcmp(c->op, r->op) && !strcmp(c->dtype, r->dtype) &&
            !strcmp(c->numerics, r->numerics) && !strcmp(c->product, r->product))
            return c;
    }
    a->covers = cts_grow(a->covers, &a->cover_cap, a->ncovers, sizeof *a->covers);
    cts_audit_cover *c = &a->covers[a->ncovers++];
    memset(c, 0, sizeof *c);
    snprintf(c->op, sizeof c->op, "%s", r->op);
    snprintf(c->dtype, sizeof c->dtype, "%s", r->dtype);
    snprintf(c->product, sizeof c->product, "%s", r->product);
    snprintf(c->numerics, sizeof c->numerics, "%s", r->numerics);
    return c;
}

int cts_audit_products(const cts_audit *a, const char *names[16], size_t numeric[16],
                       size_t error_status[16], size_t cases[16])
{
    int np = 0;
    for (size_t i = 0; i < a->ncovers; i++) {
        int k = 0;
        while (k < np && strcmp(names[k], a->covers[i].product))
            k++;
        if (k == np && np < 16)
            names[np++] = a->covers[i].product;
    }
    for (int i = 1; i < np; i++) /* name order: stable columns */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (int k = 0; k < np; k++) {
        numeric[k] = error_status[k] = cases[k] = 0;
        for (size_t i = 0; i < a->ncovers; i++)
            if (!strcmp(names[k], a->covers[i].product)) {
                numeric[k] += a->covers[i].nnumeric;
                error_status[k] += a->covers[i].nerror_status;
                cases[k] += a->covers[i].ncases;
            }
    }
    return np;
}

const char *cts_audit_gap_reason(const cts_audit *a, const cts_audit_row *row,
                                 const char *product)
{
    for (size_t i = 0; i < a->ncovers; i++) {
        const cts_audit_cover *c = &a->covers[i];
        if (strcmp(c->op, row->op) || strcmp(c->dtype, row->dtype) ||
            strcmp(c->numerics, row->numerics) || strcmp(c->product, product))
            continue;
        return c->nnumeric ? "other path" : c->nerror_status ? "error status" : "no numbers";
    }
    return "no case";
}

static cts_audit_row *row_for(cts_audit *a, const cts_result *r)
{
    for (size_t i = 0; i < a->nrows; i++) {
        cts_audit_row *w = &a->rows[i];
        if (!strcmp(w->op, r->op) && !strcmp(w->dtype, r->dtype) &&
            !strcmp(w->numerics, r->numerics) && !strcmp(w->path, r->v.path) &&
            !strcmp(w->product, r->product))
            return w;
    }
    a->rows = cts_grow(a->rows, &a->cap, a->nrows, sizeof *a->rows);
    cts_audit_row *w = &a->rows[a->nrows++];
    memset(w, 0, sizeof *w);
    snprintf(w->op, sizeof w->op, "%s", r->op);
    snprintf(w->dtype, sizeof w->dtype, "%s", r->dtype);
    snprintf(w->path, sizeof w->path, "%s", r->v.path[0] ? r->v.path : "?");
    snprintf(w->product, sizeof w->product, "%s", r->product);
    snprintf(w->numerics, sizeof w->numerics, "%s", r->numerics);
    return w;
}

/* The grid's block values spread over the full plane, so the picture is drawn (and labelled)
 * in element coordinates with the same blocks. */
static void keep_map(cts_audit_map *m, const cts_result *r)
{
    const cts_error_grid *g = &r->v.grid;
    memset(m, 0, sizeof *m);
    snprintf(m->case_id, sizeof m->case_id, "%s", r->v.case_id);
    snprintf(m->output, sizeof m->output, "%s", g->output);
    snprintf(m->status, sizeof m->status, "%s", cts_status_name(r->v.status));
    m->h = g->h;
    m->w = g->w;
    m->plane = g->plane;
    m->worst = g->worst;
    m->bound_units = malloc((size_t)(g->h * g->w) * sizeof(double));
    if (!m->bound_units)
        abort();
    int64_t bh = (g->h + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    int64_t bw = (g->w + CTS_GRID_MAX - 1) / CTS_GRID_MAX;
    for (int64_t y = 0; y < g->h; y++)
        for (int64_t x = 0; x < g->w; x++) {
            int64_t cell = (y / bh) * g->cols + x / bw;
            m->bound_units[y * g->w + x] =
                cell < (int64_t)g->rows * g->cols ? cts_grid_value(g->code[cell]) : NAN;
        }
}

void cts_audit_add_result(cts_audit *a, const cts_result *r)
{
    const cts_elem_stats *e = &r->v.el;
    cts_audit_cover *c = cover_for(a, r);
    c->ncases++;
    c->nerror_status += r->v.expected_status != 0;
    c->nnumeric += e->n > 0;
    if (e->n == 0 && e->skipped == 0) {
        /* judged elements (the worst-error summary) but no statistics: an older record */
        a->nerrors += r->v.nelems > 0;
        return;
    }
    cts_audit_row *w = row_for(a, r);
    a->ncases++;
    w->ncases++;
    w->n += e->n;
    w->skipped += e->skipped;
    for (int m = 0; m < CTS_STAT_METRICS; m++) {
        w->sum[m] += e->sum[m];
        if (e->max[m] > w->max[m] || isnan(e->max[m]))
            w->max[m] = e->max[m];
        for (int b = 0; b < CTS_STAT_BINS; b++)
            w->hist3[m][b] += e->hist[m][b];
    }
    for (int b = 0; b < CTS_STAT_BINS; b++)
        w->hist[coarse_bin(b)] += e->hist[CTS_METRIC_ULP][b];
    for (int k = 0; k < CTS_AUDIT_STANDARDS; k++)
        w->meets[k] += e->meets[k];
    if (!r->deterministic) {
        w->nnondet++;
        if (r->v.spread_ulp > w->spread_ulp)
            w->spread_ulp = r->v.spread_ulp;
    }
    if (r->v.status == CTS_FAIL && r->v.grid.rows > 0 && a->nmaps < CTS_AUDIT_MAX_MAPS)
        keep_map(&a->maps[a->nmaps++], r);
}

static int by_id(const void *x, const void *y)
{
    const cts_result *a = *(const cts_result *const *)x, *b = *(const cts_result *const *)y;
    return strcmp(a->v.case_id, b->v.case_id);
}

void cts_audit_results(cts_audit *a, const cts_result_list *results, FILE *err)
{
    const cts_result **order = malloc((results->count ? results->count : 1) * sizeof *order);
    if (!order)
        abort();
    for (size_t i = 0; i < results->count; i++)
        order[i] = &results->r[i];
    qsort(order, results->count, sizeof *order, by_id);
    size_t before = a->nerrors;
    for (size_t i = 0; i < results->count; i++)
        cts_audit_add_result(a, order[i]);
    if (a->nerrors > before)
        fprintf(err, "aclcts: warning: audit: %zu records have judged elements but no element "
                "statistics (written by an older aclcts); they are left out\n",
                a->nerrors - before);
    free(order);
    cts_audit_finish(a);
}

static int cmp_row(const void *x, const void *y)
{
    const cts_audit_row *a = x, *b = y;
    int c = strcmp(a->op, b->op);
    if (!c) c = strcmp(a->dtype, b->dtype);
    if (!c) c = cts_numerics_cmp(a->numerics, b->numerics);
    if (!c) c = strcmp(a->path, b->path);
    if (!c) c = strcmp(a->product, b->product);
    return c;
}

void cts_audit_finish(cts_audit *a)
{
    if (a->nrows) /* no rows: rows is NULL, which qsort must not get */
        qsort(a->rows, a->nrows, sizeof *a->rows, cmp_row);
}

void cts_audit_free(cts_audit *a)
{
    free(a->rows);
    free(a->covers);
    for (size_t i = 0; i < a->nmaps; i++)
        free(a->maps[i].bound_units);
    memset(a, 0, sizeof *a);
}

void cts_audit_row_stats(const cts_audit_row *row, cts_audit_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = row->n;
    double *out[CTS_STAT_METRICS][3] = {{&s->ulp_max, &s->ulp_mean, &s->ulp_p99},
                                        {&s->bound_max, &s->bound_mean, &s->bound_p99},
                                        {&s->rel_max, &s->rel_mean, &s->rel_p99}};
    for (int m = 0; m < CTS_STAT_METRICS; m++) {
        *out[m][0] = row->n ? row->max[m] : NAN;
        *out[m][1] = row->n ? row->sum[m] / (double)row->n : NAN;
        *out[m][2] = cts_stat_quantile(row->hist3[m], row->n, row->max[m], 0.99);
    }
    for (int k = 0; k < CTS_AUDIT_STANDARDS; k++)
        s->share[k] = s->n ? (double)row->meets[k] / (double)s->n : NAN;
}

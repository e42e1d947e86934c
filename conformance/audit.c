/* The precision audit (audit.h): judging dumped cases element by element and the statistics. */
#include "audit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_reference.h"
#include "suite_case.h"
#include "tolerance.h"

const char *const cts_audit_bin_names[CTS_AUDIT_BINS] = {"0", "1", "2", "3-4", "5-8", "9-16",
                                                         "17-64", "65-256", ">256"};
const char *const cts_audit_standards[CTS_AUDIT_STANDARDS] = {
    "ascend-thousandth", "ascend-ten-thousandth", "torch-default"};

static void push(cts_dvec *v, double x)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 1024;
        v->x = realloc(v->x, v->cap * sizeof *v->x);
        if (!v->x)
            abort();
    }
    v->x[v->n++] = x;
}

static int bin_of(double ulp)
{
    static const double upper[CTS_AUDIT_BINS - 1] = {0, 1, 2, 4, 8, 16, 64, 256};
    for (int b = 0; b < CTS_AUDIT_BINS - 1; b++)
        if (ulp <= upper[b])
            return b;
    return CTS_AUDIT_BINS - 1;
}

static cts_audit_row *row_for(cts_audit *a, const char *op, const char *dtype, int cmt,
                              const char *path, const char *product)
{
    for (size_t i = 0; i < a->nrows; i++) {
        cts_audit_row *r = &a->rows[i];
        if (!strcmp(r->op, op) && !strcmp(r->dtype, dtype) && r->cube_math_type == cmt &&
            !strcmp(r->path, path) && !strcmp(r->product, product))
            return r;
    }
    if (a->nrows == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->rows = realloc(a->rows, a->cap * sizeof *a->rows);
        if (!a->rows)
            abort();
    }
    cts_audit_row *r = &a->rows[a->nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    snprintf(r->dtype, sizeof r->dtype, "%s", dtype);
    snprintf(r->path, sizeof r->path, "%s", path);
    snprintf(r->product, sizeof r->product, "%s", product);
    r->cube_math_type = cmt;
    return r;
}

/* The plane (over the leading dims) holding element k: h x w image of bound units. */
static void keep_map(cts_audit_map *m, const cts_case *c, const cts_tensor *t,
                     const double *units, int64_t k, const char *status)
{
    int r = t->rank;
    int64_t h = r >= 2 ? t->dims[r - 2] : 1, w = r >= 1 ? t->dims[r - 1] : 1;
    if (!strcmp(t->name, "grid_grad") && r == 4) { /* (N, Ho, Wo, 2): x and y side by side */
        h = t->dims[1];
        w = t->dims[2] * 2;
    }
    free(m->bound_units);
    memset(m, 0, sizeof *m);
    snprintf(m->case_id, sizeof m->case_id, "%s", c->id);
    snprintf(m->output, sizeof m->output, "%s", t->name);
    snprintf(m->status, sizeof m->status, "%s", status);
    m->h = h;
    m->w = w;
    m->plane = h * w > 0 ? k / (h * w) : 0;
    m->worst = units[k];
    m->bound_units = malloc((size_t)(h * w > 0 ? h * w : 1) * sizeof(double));
    if (!m->bound_units)
        abort();
    memcpy(m->bound_units, units + m->plane * h * w, (size_t)(h * w) * sizeof(double));
}

static void judge_output(cts_audit *a, const cts_case *c, const cts_tensor *t,
                         const ref_path *path, const double *got, const ref_output *ref,
                         const cts_result *res)
{
    cts_audit_row *row = row_for(a, cts_op_id(c->op), cts_dtype_yaml_name(t->dtype),
                                 c->op == REF_OP_AVGPOOL2D_BACKWARD ? (int)c->cube_math_type : -1,
                                 path->name ? path->name : "?", ref_product_id(c->product));
    cts_tolerance bound = {.kind = CTS_TOL_BOUND, .name = "bound"};
    cts_tolerance std[CTS_AUDIT_STANDARDS] = {
        {.kind = CTS_TOL_SHARE, .name = "ascend-thousandth"},
        {.kind = CTS_TOL_SHARE, .name = "ascend-ten-thousandth"},
        {.kind = CTS_TOL_ALLCLOSE, .name = "torch-default"}};
    for (int s = 0; s < CTS_AUDIT_STANDARDS; s++)
        std[s] = cts_tolerance_resolved(&std[s], t->dtype);
    double *units = malloc((size_t)(ref->numel ? ref->numel : 1) * sizeof *units);
    if (!units)
        abort();
    int64_t worst_k = -1;
    for (int64_t k = 0; k < ref->numel; k++) {
        cts_elem_err e = cts_judge_element(&bound, t->dtype, path, got[k], ref, k);
        units[k] = e.skipped ? 0 : e.bound_units;
        if (e.skipped) {
            row->skipped++;
            continue;
        }
        push(&row->ulp, e.ulp);
        push(&row->bound, e.bound_units);
        push(&row->rel, e.rel);
        row->hist[bin_of(e.ulp)]++;
        for (int s = 0; s < CTS_AUDIT_STANDARDS; s++)
            row->meets[s] += cts_judge_element(&std[s], t->dtype, path, got[k], ref, k).ok;
        if (worst_k < 0 || !(units[k] <= units[worst_k]))
            worst_k = k;
    }
    const char *status = res ? cts_status_name(res->v.status) : "?";
    if (worst_k >= 0) {
        if (res && res->v.status == CTS_FAIL && a->nmaps < CTS_AUDIT_MAX_MAPS)
            keep_map(&a->maps[a->nmaps++], c, t, units, worst_k, status);
        if (!a->worst.bound_units || !(units[worst_k] <= a->worst.worst))
            keep_map(&a->worst, c, t, units, worst_k, status);
    }
    free(units);
}

int cts_audit_add_case(cts_audit *a, const char *root, const cts_case *c, const cts_result *r,
                       char *err, size_t errlen)
{
    if (r && (r->v.got_status != 0 || r->v.status == CTS_CRASH || r->v.status == CTS_TIMEOUT ||
              r->v.status == CTS_ERROR || r->v.status == CTS_NOT_SUPPORTED))
        return 0;
    char dir[1400], path[1600];
    snprintf(dir, sizeof dir, "%s/", root);
    size_t n = strlen(dir);
    for (const char *p = c->id; *p && n + 1 < sizeof dir; p++) /* as cts_dump_case names it */
        dir[n++] = *p == '/' ? '_' : *p;
    dir[n] = 0;
    cts_npy_array arr[CTS_MAX_TENSORS];
    double *in[CTS_MAX_TENSORS] = {0};
    ref_output out[CTS_MAX_TENSORS];
    memset(arr, 0, sizeof arr);
    memset(out, 0, sizeof out);
    int rc = 0;
    bool any = false;
    for (int i = 0; i < c->ntensors && rc == 0; i++) {
        const cts_tensor *t = &c->t[i];
        if (t->null || (t->is_output && !cts_output_computed(c, i)))
            continue;
        snprintf(path, sizeof path, "%s/%s.npy", dir, t->name);
        rc = cts_npy_read(path, &arr[i], err, errlen);
        in[i] = arr[i].data;
        any |= t->is_output && arr[i].numel > 0;
    }
    if (rc == 0 && any) {
        ref_path rp = cts_case_path(c);
        if (cts_reference_outputs(c, &rp, in, out) != 0) {
            snprintf(err, errlen, "%s: the reference rejects the parameters", c->id);
            rc = -1;
        }
        for (int i = 0; rc == 0 && i < c->ntensors; i++)
            if (c->t[i].is_output && arr[i].numel > 0 && out[i].numel == arr[i].numel)
                judge_output(a, c, &c->t[i], &rp, arr[i].data, &out[i], r);
        a->ncases += rc == 0;
    }
    for (int i = 0; i < CTS_MAX_TENSORS; i++) {
        cts_npy_array_free(&arr[i]);
        ref_output_free(&out[i]);
    }
    if (rc == 0 && any && r) {
        /* the run-to-run spread belongs to the case's rows; attribute it to every row touched */
        for (size_t i = 0; i < a->nrows; i++) {
            cts_audit_row *row = &a->rows[i];
            if (strcmp(row->product, ref_product_id(c->product)) || strcmp(row->op, cts_op_id(c->op)))
                continue;
            if (strcmp(row->path, r->v.path) || strcmp(row->dtype, r->dtype) ||
                row->cube_math_type != r->cube_math_type)
                continue;
            row->ncases++;
            if (!c->deterministic) {
                row->nnondet++;
                if (r->v.spread_ulp > row->spread_ulp)
                    row->spread_ulp = r->v.spread_ulp;
            }
        }
    }
    a->nerrors += rc != 0;
    return rc;
}

void cts_audit_results(cts_audit *a, const cts_case *const *cases, size_t ncases,
                       const cts_result_list *results, const char *dump_root, FILE *err)
{
    char msg[1600];
    for (size_t i = 0; i < results->count; i++)
        for (size_t k = 0; k < ncases; k++)
            if (!strcmp(cases[k]->id, results->r[i].v.case_id)) {
                if (cts_audit_add_case(a, dump_root, cases[k], &results->r[i], msg,
                                       sizeof msg) != 0)
                    fprintf(err, "aclcts: warning: audit: %s\n", msg);
                break;
            }
    cts_audit_finish(a);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int cmp_row(const void *x, const void *y)
{
    const cts_audit_row *a = x, *b = y;
    int c = strcmp(a->op, b->op);
    if (!c) c = strcmp(a->dtype, b->dtype);
    if (!c) c = (a->cube_math_type > b->cube_math_type) - (a->cube_math_type < b->cube_math_type);
    if (!c) c = strcmp(a->path, b->path);
    if (!c) c = strcmp(a->product, b->product);
    return c;
}

void cts_audit_finish(cts_audit *a)
{
    for (size_t i = 0; i < a->nrows; i++) {
        cts_dvec *v[3] = {&a->rows[i].ulp, &a->rows[i].bound, &a->rows[i].rel};
        for (int j = 0; j < 3; j++)
            qsort(v[j]->x, v[j]->n, sizeof(double), cmp_double);
    }
    qsort(a->rows, a->nrows, sizeof *a->rows, cmp_row);
}

void cts_audit_free(cts_audit *a)
{
    for (size_t i = 0; i < a->nrows; i++) {
        free(a->rows[i].ulp.x);
        free(a->rows[i].bound.x);
        free(a->rows[i].rel.x);
    }
    free(a->rows);
    for (size_t i = 0; i < a->nmaps; i++)
        free(a->maps[i].bound_units);
    free(a->worst.bound_units);
    memset(a, 0, sizeof *a);
}

double cts_quantile_sorted(const double *x, size_t n, double p)
{
    if (n == 0)
        return NAN;
    size_t rank = (size_t)ceil(p * (double)n);
    return x[rank > 0 ? rank - 1 : 0];
}

static double mean(const cts_dvec *v)
{
    double s = 0;
    for (size_t i = 0; i < v->n; i++)
        s += v->x[i];
    return v->n ? s / (double)v->n : NAN;
}

void cts_audit_row_stats(const cts_audit_row *row, cts_audit_stats *s)
{
    memset(s, 0, sizeof *s);
    s->n = (int64_t)row->ulp.n;
    const cts_dvec *v[3] = {&row->ulp, &row->bound, &row->rel};
    double *out[3][3] = {{&s->ulp_max, &s->ulp_mean, &s->ulp_p99},
                         {&s->bound_max, &s->bound_mean, &s->bound_p99},
                         {&s->rel_max, &s->rel_mean, &s->rel_p99}};
    for (int j = 0; j < 3; j++) {
        *out[j][0] = v[j]->n ? v[j]->x[v[j]->n - 1] : NAN;
        *out[j][1] = mean(v[j]);
        *out[j][2] = cts_quantile_sorted(v[j]->x, v[j]->n, 0.99);
    }
    for (int k = 0; k < CTS_AUDIT_STANDARDS; k++)
        s->share[k] = s->n ? (double)row->meets[k] / (double)s->n : NAN;
}

/* The audit tables (audit.h): Markdown with the products side by side, CSV one line per row. */
#include "audit.h"

#include <math.h>
#include <string.h>

enum { M_N, M_ULP_MAX, M_ULP_MEAN, M_ULP_P99, M_B_MAX, M_B_MEAN, M_B_P99, M_REL_MAX, M_REL_MEAN,
       M_REL_P99, M_SHARE0, M_SHARE1, M_SHARE2, M_SPREAD, M_COUNT };

static const char *const metric_names[M_COUNT] = {
    "elements", "ULP max", "ULP mean", "ULP p99", "bound max", "bound mean", "bound p99",
    "rel max", "rel mean", "rel p99", "% ascend-thousandth", "% ascend-ten-thousandth",
    "% torch-default", "spread ULP (non-det.)"};
static const char *const csv_names[M_COUNT] = {
    "elements", "ulp_max", "ulp_mean", "ulp_p99", "bound_max", "bound_mean", "bound_p99",
    "rel_max", "rel_mean", "rel_p99", "share_ascend_thousandth", "share_ascend_ten_thousandth",
    "share_torch_default", "spread_ulp"};

static double metric(const cts_audit_row *r, const cts_audit_stats *s, int m)
{
    switch (m) {
    case M_N: return (double)s->n;
    case M_ULP_MAX: return s->ulp_max;
    case M_ULP_MEAN: return s->ulp_mean;
    case M_ULP_P99: return s->ulp_p99;
    case M_B_MAX: return s->bound_max;
    case M_B_MEAN: return s->bound_mean;
    case M_B_P99: return s->bound_p99;
    case M_REL_MAX: return s->rel_max;
    case M_REL_MEAN: return s->rel_mean;
    case M_REL_P99: return s->rel_p99;
    case M_SHARE0: case M_SHARE1: case M_SHARE2: return 100 * s->share[m - M_SHARE0];
    default: return r->nnondet ? r->spread_ulp : NAN;
    }
}

static void fmt(char *buf, size_t len, int m, double x)
{
    if (isnan(x)) snprintf(buf, len, "-");
    else if (m == M_N) snprintf(buf, len, "%.0f", x);
    else if (m >= M_SHARE0 && m <= M_SHARE2) snprintf(buf, len, x == 100 ? "100" : "%.3f", x);
    else snprintf(buf, len, "%.4g", x);
}

static bool same_key(const cts_audit_row *a, const cts_audit_row *b)
{
    return !strcmp(a->op, b->op) && !strcmp(a->dtype, b->dtype) &&
           a->cube_math_type == b->cube_math_type && !strcmp(a->path, b->path);
}

static void cmt_text(char *buf, size_t len, int cmt)
{
    if (cmt < 0) snprintf(buf, len, "-");
    else snprintf(buf, len, "%d", cmt);
}

void cts_audit_write_markdown(FILE *f, const cts_audit *a)
{
    const char *products[16];
    int np = 0;
    for (size_t i = 0; i < a->nrows; i++) {
        int k = 0;
        while (k < np && strcmp(products[k], a->rows[i].product)) k++;
        if (k == np && np < 16) products[np++] = a->rows[i].product;
    }
    for (int i = 1; i < np; i++) /* products in name order: stable columns */
        for (int j = i; j > 0 && strcmp(products[j - 1], products[j]) > 0; j--) {
            const char *t = products[j]; products[j] = products[j - 1]; products[j - 1] = t;
        }
    fprintf(f, "| op | dtype | cubeMathType | path | metric |");
    for (int p = 0; p < np; p++) fprintf(f, " %s |", products[p]);
    fprintf(f, "\n|---|---|---|---|---|");
    for (int p = 0; p < np; p++) fprintf(f, "---:|");
    fputc('\n', f);
    for (size_t i = 0; i < a->nrows;) {
        size_t j = i;
        while (j < a->nrows && same_key(&a->rows[i], &a->rows[j])) j++;
        cts_audit_stats st[16];
        const cts_audit_row *col[16] = {0};
        for (size_t k = i; k < j; k++)
            for (int p = 0; p < np; p++)
                if (!strcmp(products[p], a->rows[k].product)) {
                    col[p] = &a->rows[k];
                    cts_audit_row_stats(col[p], &st[p]);
                }
        char cmt[16], buf[32];
        cmt_text(cmt, sizeof cmt, a->rows[i].cube_math_type);
        for (int m = 0; m < M_COUNT; m++) {
            fprintf(f, "| %s | %s | %s | %s | %s |", a->rows[i].op, a->rows[i].dtype, cmt,
                    a->rows[i].path, metric_names[m]);
            for (int p = 0; p < np; p++) {
                if (col[p]) fmt(buf, sizeof buf, m, metric(col[p], &st[p], m));
                else snprintf(buf, sizeof buf, " ");
                fprintf(f, " %s |", buf);
            }
            fputc('\n', f);
        }
        i = j;
    }
    fprintf(f, "\nULP: distance to the correctly rounded value in the output dtype. bound: "
               "|got - exact| in units of the `bound` tolerance (<= 1 passes). rel: |got - exact| "
               "/ |exact|. %% columns: share of elements each named standard accepts. Spread: "
               "largest ULP difference between repeated runs of cases not promised "
               "deterministic.\n");
}

void cts_audit_write_csv(FILE *f, const cts_audit *a)
{
    fprintf(f, "op,dtype,cube_math_type,path,product,cases,skipped");
    for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%s", csv_names[m]);
    for (int b = 0; b < CTS_AUDIT_BINS; b++) fprintf(f, ",hist_ulp_%s", cts_audit_bin_names[b]);
    fputc('\n', f);
    for (size_t i = 0; i < a->nrows; i++) {
        const cts_audit_row *r = &a->rows[i];
        cts_audit_stats s;
        cts_audit_row_stats(r, &s);
        fprintf(f, "%s,%s,%d,%s,%s,%zu,%lld", r->op, r->dtype, r->cube_math_type, r->path,
                r->product, r->ncases, (long long)r->skipped);
        for (int m = 0; m < M_COUNT; m++) {
            double x = metric(r, &s, m);
            if (m >= M_SHARE0 && m <= M_SHARE2) x /= 100; /* CSV: fractions */
            if (isnan(x)) fprintf(f, ",");
            else fprintf(f, ",%.17g", x);
        }
        for (int b = 0; b < CTS_AUDIT_BINS; b++) fprintf(f, ",%lld", (long long)r->hist[b]);
        fputc('\n', f);
    }
}

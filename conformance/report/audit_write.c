/* The audit tables (report.h): Markdown with the products side by side, CSV one line per row
 * with every metric. */
#include "report.h"

#include <math.h>
#include <string.h>

enum { M_N, M_ULP_MAX, M_ULP_MEAN, M_ULP_P99, M_B_MAX, M_B_MEAN, M_B_P99, M_REL_MAX, M_REL_MEAN,
       M_REL_P99, M_SHARE0, M_SHARE1, M_SHARE2, M_SPREAD, M_COUNT };

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

static bool same_key(const cts_audit_row *a, const cts_audit_row *b)
{
    return !strcmp(a->op, b->op) && !strcmp(a->dtype, b->dtype) &&
           !strcmp(a->numerics, b->numerics) && !strcmp(a->path, b->path);
}

/* The Markdown table's rows per op x dtype x numerics key x path. Means of ULP and relative
 * error are left out: a few elements whose exact value nearly cancels dominate them. */
enum { R_ELEMENTS, R_BOUND, R_ULP, R_REL, R_SHARES, R_SPREAD, R_COUNT };
static const char *const row_names[R_COUNT] = {
    "elements (cases)", "bound units max / p99 / mean", "ULP max / p99",
    "relative error max / p99", "% within thousandth / ten-thousandth / torch-default",
    "spread ULP (non-det. cases)"};

/* Footnotes for infinite statistics, one bit per metric. */
enum { NOTE_ULP = 1, NOTE_BOUND = 2, NOTE_REL = 4 };

/* Appends x to a cell: "-" for NaN (nothing to say), "inf*" (footnoted) for infinity. */
static void put_num(char *buf, size_t len, const char *sep, double x, unsigned note,
                    unsigned *notes)
{
    size_t l = strlen(buf);
    if (isnan(x)) snprintf(buf + l, len - l, "%s-", sep);
    else if (isinf(x)) snprintf(buf + l, len - l, "%sinf*", sep), *notes |= note;
    else snprintf(buf + l, len - l, "%s%.3g", sep, x);
}

/* The cell of one product for row kind k; false when it holds no number at all. */
static bool cell(int k, const cts_audit_row *r, const cts_audit_stats *s, char *buf, size_t len,
                 unsigned *notes)
{
    buf[0] = 0;
    switch (k) {
    case R_ELEMENTS: snprintf(buf, len, "%lld (%zu)", (long long)s->n, r->ncases); return true;
    case R_BOUND:
        put_num(buf, len, "", s->bound_max, NOTE_BOUND, notes);
        put_num(buf, len, " / ", s->bound_p99, NOTE_BOUND, notes);
        put_num(buf, len, " / ", s->bound_mean, NOTE_BOUND, notes);
        return !isnan(s->bound_max);
    case R_ULP:
        put_num(buf, len, "", s->ulp_max, NOTE_ULP, notes);
        put_num(buf, len, " / ", s->ulp_p99, NOTE_ULP, notes);
        return !isnan(s->ulp_max);
    case R_REL:
        put_num(buf, len, "", s->rel_max, NOTE_REL, notes);
        put_num(buf, len, " / ", s->rel_p99, NOTE_REL, notes);
        return !isnan(s->rel_max);
    case R_SHARES:
        for (int j = 0; j < CTS_AUDIT_STANDARDS; j++) {
            size_t l = strlen(buf);
            double x = 100 * s->share[j];
            snprintf(buf + l, len - l, j ? (x == 100 ? " / 100" : " / %.3f")
                                         : (x == 100 ? "100" : "%.3f"), x);
        }
        return true;
    default:
        if (!r->nnondet) { snprintf(buf, len, "-"); return false; }
        put_num(buf, len, "", r->spread_ulp, NOTE_ULP, notes);
        return true;
    }
}

/* Column headers: each product, and why when none of its cases compared numbers. */
static void header(FILE *f, const cts_audit *a, const char **products, int *np)
{
    size_t numeric[16], error_status[16], cases[16];
    *np = cts_audit_products(a, products, numeric, error_status, cases);
    fprintf(f, "| op | dtype | numerics | path | statistic |");
    for (int p = 0; p < *np; p++) {
        if (numeric[p]) fprintf(f, " %s |", products[p]);
        else if (error_status[p] == cases[p])
            fprintf(f, " %s: no case compares numbers (all %zu expect an error status) |",
                    products[p], cases[p]);
        else fprintf(f, " %s: no case compares numbers (%zu of %zu expect an error status, "
                        "the rest compute nothing) |", products[p], error_status[p], cases[p]);
    }
    fprintf(f, "\n|---|---|---|---|---|");
    for (int p = 0; p < *np; p++) fprintf(f, "---:|");
    fputc('\n', f);
}

void cts_audit_write_markdown(FILE *f, const cts_audit *a)
{
    const char *products[16];
    int np;
    unsigned notes = 0;
    header(f, a, products, &np);
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
        char cells[16][96];
        const char *cmt = a->rows[i].numerics[0] ? a->rows[i].numerics : "-";
        bool first = true; /* the key's cells only on its first line: a grouped table */
        for (int k = 0; k < R_COUNT; k++) {
            bool any = false;
            unsigned row_notes = 0;
            for (int p = 0; p < np; p++) {
                if (col[p]) any |= cell(k, col[p], &st[p], cells[p], sizeof cells[p], &row_notes);
                else snprintf(cells[p], sizeof cells[p], "(%s)",
                              cts_audit_gap_reason(a, &a->rows[i], products[p]));
            }
            if (!any) continue; /* a statistic no product has (e.g. spread when all det.) */
            notes |= row_notes;
            if (first)
                fprintf(f, "| %s | %s | %s | %s | %s |", a->rows[i].op, a->rows[i].dtype, cmt,
                        a->rows[i].path, row_names[k]);
            else
                fprintf(f, "| | | | | %s |", row_names[k]);
            first = false;
            for (int p = 0; p < np; p++) fprintf(f, " %s |", cells[p]);
            fputc('\n', f);
        }
        i = j;
    }
    fprintf(f, "\nbound units: |got - exact| over the element's allowed error under the `bound` "
               "tolerance (<= 1 passes; the pass criterion). ULP: distance to the correctly "
               "rounded value in the output dtype. relative error: |got - exact| / |exact|. "
               "p99 values are read from half-octave bins (at most 1.41 times the true one). "
               "Means of ULP and relative error are not shown: a few elements whose exact "
               "value nearly cancels dominate them. %%: share of elements each named standard "
               "accepts. Spread: largest ULP difference between repeated runs of cases not "
               "promised deterministic (shown only where there are such cases). A cell in "
               "parentheses has no numbers: (other path) the product computes this row on "
               "another path, (error status) its cases here expect an error code, (no case) "
               "the suites have none.\n");
    if (notes & NOTE_REL)
        fprintf(f, "\ninf* in relative error: some element's exact value is 0 and its output "
                   "is not, which has no finite relative error; ULP and bound units judge it.\n");
    if (notes & (NOTE_ULP | NOTE_BOUND))
        fprintf(f, "\ninf* in ULP or bound units: some element is non-finite where the exact "
                   "value is finite (or the reverse).\n");
}

void cts_audit_write_csv(FILE *f, const cts_audit *a)
{
    fprintf(f, "op,dtype,numerics,path,product,cases,skipped");
    for (int m = 0; m < M_COUNT; m++) fprintf(f, ",%s", csv_names[m]);
    for (int b = 0; b < CTS_AUDIT_BINS; b++) fprintf(f, ",hist_ulp_%s", cts_audit_bin_names[b]);
    fputc('\n', f);
    for (size_t i = 0; i < a->nrows; i++) {
        const cts_audit_row *r = &a->rows[i];
        cts_audit_stats s;
        cts_audit_row_stats(r, &s);
        fprintf(f, "%s,%s,%s,%s,%s,%zu,%lld", r->op, r->dtype, r->numerics, r->path,
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

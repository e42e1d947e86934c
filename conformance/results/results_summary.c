/* summary.md: counts per status for each op x dtype x numerics key x product, the worst error
 * seen in ULP and in units of the error bound, then the repro lines. The console summary: the
 * same per op x dtype x product, counts and worst bound units only, one line each. */
#include "results.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cts_tally_results(const cts_result *r, size_t n, cts_tally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < n; i++)
        if ((unsigned)r[i].v.status < CTS_STATUS_COUNT) {
            t->count[r[i].v.status]++;
            t->total++;
        }
}

int cts_tally_exit_code(const cts_tally *t)
{
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (t->count[s] && cts_status_fails((cts_status)s))
            return 1;
    return 0;
}

typedef struct {
    const cts_result *key;    /* first result of the row: op, dtype, numerics key, product */
    size_t count[CTS_STATUS_COUNT];
    double worst_ulp, worst_bound;
    bool judged;              /* some case of the row compared numbers */
} row;

/* Row order: op, dtype, numerics key (when rows are split by it), product. */
static int row_cmp(const cts_result *a, const cts_result *b, bool by_numerics)
{
    int c = strcmp(a->op, b->op);
    if (!c)
        c = strcmp(a->dtype, b->dtype);
    if (!c && by_numerics)
        c = cts_numerics_cmp(a->numerics, b->numerics);
    if (!c)
        c = strcmp(a->product, b->product);
    return c;
}

static int row_sort_numerics(const void *a, const void *b)
{
    return row_cmp(((const row *)a)->key, ((const row *)b)->key, true);
}

static int row_sort_flat(const void *a, const void *b)
{
    return row_cmp(((const row *)a)->key, ((const row *)b)->key, false);
}

/* max that lets NaN (an unjudgeable comparison) win, so it is visible */
static double worst(double acc, double x)
{
    return isnan(x) || isnan(acc) ? NAN : x > acc ? x : acc;
}

static void fmt_worst(char *buf, size_t len, bool judged, double x)
{
    if (!judged)
        snprintf(buf, len, "-");
    else if (isnan(x))
        snprintf(buf, len, "NaN");
    else if (x == 0)
        snprintf(buf, len, "0");
    else
        snprintf(buf, len, "%.3g", x);
}

/* The rows of the results (malloc'd, sorted): one per op x dtype [x numerics key] x product. */
static row *collect_rows(const cts_result *r, size_t n, bool by_numerics, size_t *nrows_out)
{
    row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t nrows = 0;
    if (!rows)
        abort();
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nrows && row_cmp(rows[k].key, &r[i], by_numerics) != 0)
            k++;
        if (k == nrows)
            rows[nrows++].key = &r[i];
        if ((unsigned)r[i].v.status < CTS_STATUS_COUNT)
            rows[k].count[r[i].v.status]++;
        /* Only judged numbers count: a case that did not run has no error to report. */
        if (r[i].v.nelems > 0) {
            rows[k].judged = true;
            rows[k].worst_ulp = worst(rows[k].worst_ulp, r[i].v.worst_ulp);
            rows[k].worst_bound = worst(rows[k].worst_bound, r[i].v.worst_bound_units);
        }
    }
    qsort(rows, nrows, sizeof *rows, by_numerics ? row_sort_numerics : row_sort_flat);
    *nrows_out = nrows;
    return rows;
}

/* The total per status, then each failing case with its repro line (at most max_repro; 0: all),
 * as cts_failing_case_print shows them; in Markdown inside a fence, so the page shows the lines
 * as they are and the file holds them as the console does. */
static void write_tail(FILE *f, const cts_result *r, size_t n, size_t max_repro, bool markdown)
{
    cts_tally t;
    cts_tally_results(r, n, &t);
    fprintf(f, "\n%zu cases:", t.total);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (t.count[s])
            fprintf(f, " %zu %s", t.count[s], cts_status_name((cts_status)s));
    fprintf(f, "\n");

    size_t shown = 0, failing = 0;
    for (size_t i = 0; i < n; i++)
        failing += cts_status_fails(r[i].v.status);
    if (!failing)
        return;
    fprintf(f, "\nFailing cases (each indented line reruns its case: paste it into a shell, or "
            "give it to aclcts repro '...'):\n\n%s", markdown ? "```\n" : "");
    for (size_t i = 0; i < n && (!max_repro || shown < max_repro); i++) {
        if (!cts_status_fails(r[i].v.status))
            continue;
        cts_failing_case_print(f, &r[i]);
        shown++;
    }
    if (shown < failing)
        fprintf(f, "... and %zu more (all in results.jsonl, field \"repro\")\n",
                failing - shown);
    if (markdown)
        fprintf(f, "```\n");
}

void cts_summary_write(FILE *f, const cts_result *r, size_t n, size_t max_repro)
{
    size_t nrows;
    row *rows = collect_rows(r, n, true, &nrows);

    fprintf(f, "| op | dtype | numerics | product |");
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, " %s |", cts_status_name((cts_status)s));
    fprintf(f, " worst ULP | worst bound units |\n|---|---|---|---|");
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "---:|");
    fprintf(f, "---:|---:|\n");
    for (size_t k = 0; k < nrows; k++) {
        const cts_result *key = rows[k].key;
        char ulp[32], bound[32];
        const char *cmt = key->numerics[0] ? key->numerics : "-";
        fmt_worst(ulp, sizeof ulp, rows[k].judged, rows[k].worst_ulp);
        fmt_worst(bound, sizeof bound, rows[k].judged, rows[k].worst_bound);
        fprintf(f, "| %s | %s | %s | %s |", key->op, key->dtype, cmt, key->product);
        for (int s = 0; s < CTS_STATUS_COUNT; s++)
            fprintf(f, " %zu |", rows[k].count[s]);
        fprintf(f, " %s | %s |\n", ulp, bound);
    }
    free(rows);
    write_tail(f, r, n, max_repro, true);
}

void cts_summary_console(FILE *f, const cts_result *r, size_t n, size_t max_repro)
{
    size_t nrows;
    row *rows = collect_rows(r, n, false, &nrows);
    fprintf(f, "%-23s %-10s %-12s %-30s %s\n", "op", "dtype", "product", "cases",
            "worst bound units");
    for (size_t k = 0; k < nrows; k++) {
        char counts[128] = "", bound[32];
        size_t len = 0;
        for (int s = 0; s < CTS_STATUS_COUNT; s++)
            if (rows[k].count[s] && len < sizeof counts)
                len += (size_t)snprintf(counts + len, sizeof counts - len, "%s%zu %s",
                                        len ? ", " : "", rows[k].count[s],
                                        cts_status_name((cts_status)s));
        fmt_worst(bound, sizeof bound, rows[k].judged, rows[k].worst_bound);
        const cts_result *key = rows[k].key;
        fprintf(f, "%-23s %-10s %-12s %-30s %s\n", key->op, key->dtype, key->product, counts,
                bound);
    }
    free(rows);
    fprintf(f, "(worst bound units: |got - exact| over the allowed error, <= 1 passes; - : no "
               "numbers compared. Per numerics key and in ULP: summary.md)\n");
    write_tail(f, r, n, max_repro, false);
}

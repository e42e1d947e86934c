/* summary.md and the console summary: counts per status for each op x dtype x cubeMathType x
 * product, the worst error seen in ULP and in units of the error bound, then the repro lines. */
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
    const cts_result *key;    /* first result of the row: op, dtype, cubeMathType, product */
    size_t count[CTS_STATUS_COUNT];
    double worst_ulp, worst_bound;
    bool judged;              /* some case of the row compared numbers */
} row;

static int row_cmp(const cts_result *a, const cts_result *b)
{
    int c = strcmp(a->op, b->op);
    if (!c)
        c = strcmp(a->dtype, b->dtype);
    if (!c)
        c = (a->cube_math_type > b->cube_math_type) - (a->cube_math_type < b->cube_math_type);
    if (!c)
        c = strcmp(a->product, b->product);
    return c;
}

static int row_sort(const void *a, const void *b)
{
    return row_cmp(((const row *)a)->key, ((const row *)b)->key);
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

void cts_summary_write(FILE *f, const cts_result *r, size_t n, size_t max_repro)
{
    row *rows = calloc(n ? n : 1, sizeof *rows);
    size_t nrows = 0;
    if (!rows)
        abort();
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < nrows && row_cmp(rows[k].key, &r[i]) != 0)
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
    qsort(rows, nrows, sizeof *rows, row_sort);

    fprintf(f, "| op | dtype | cubeMathType | product |");
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, " %s |", cts_status_name((cts_status)s));
    fprintf(f, " worst ULP | worst bound units |\n|---|---|---|---|");
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "---:|");
    fprintf(f, "---:|---:|\n");
    for (size_t k = 0; k < nrows; k++) {
        const cts_result *key = rows[k].key;
        char cmt[16], ulp[32], bound[32];
        snprintf(cmt, sizeof cmt, key->cube_math_type < 0 ? "-" : "%d", key->cube_math_type);
        fmt_worst(ulp, sizeof ulp, rows[k].judged, rows[k].worst_ulp);
        fmt_worst(bound, sizeof bound, rows[k].judged, rows[k].worst_bound);
        fprintf(f, "| %s | %s | %s | %s |", key->op, key->dtype, cmt, key->product);
        for (int s = 0; s < CTS_STATUS_COUNT; s++)
            fprintf(f, " %zu |", rows[k].count[s]);
        fprintf(f, " %s | %s |\n", ulp, bound);
    }
    free(rows);

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
    fprintf(f, "\nFailing cases (one line each reruns exactly that case):\n\n");
    for (size_t i = 0; i < n && (!max_repro || shown < max_repro); i++) {
        if (!cts_status_fails(r[i].v.status))
            continue;
        fprintf(f, "- %s %s [%s] %s\n  `%s`\n", cts_status_name(r[i].v.status), r[i].v.case_id,
                r[i].v.check, r[i].v.message, r[i].repro);
        shown++;
    }
    if (shown < failing)
        fprintf(f, "- ... and %zu more (all in results.jsonl, field \"repro\")\n",
                failing - shown);
}

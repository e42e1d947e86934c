/* The standards' audit as Markdown (audit.md, report.html) and CSV (standards.csv). */
#include "standard.h"

#include <math.h>
#include <string.h>

static const char *elem_metric_name(cts_std_method m)
{
    static const char *const n[] = {"bound units", "relative error", "-", "ULP error",
                                    "error / (atol + rtol |golden|)"};
    return n[m];
}

static void std_label(char *buf, size_t n, const cts_standard *s)
{
    snprintf(buf, n, "%s@%s", s->name, s->edition);
}

static void sources_md(FILE *f, const cts_std_audit *a)
{
    fputs("| standard | method | golden | what it judges | sources (repo:path@commit) |\n"
          "| --- | --- | --- | --- | --- |\n", f);
    for (int s = 0; s < a->nstd; s++) {
        const cts_standard *x = &a->std[s];
        char label[96];
        std_label(label, sizeof label, x);
        fprintf(f, "| %s | %s | %s | ", label, cts_std_method_name(x->method),
                x->method == CTS_STD_BOUND ? "(the exact value)"
                : x->golden_dtype          ? "dtype"
                                           : "exact");
        const char *const *m = cts_std_metric_names(x->method);
        for (int i = 0; m[i]; i++) fprintf(f, "%s%s", i ? ", " : "", m[i]);
        fputs(" | ", f);
        for (int i = 0; i < x->nsources; i++) fprintf(f, "%s`%s`", i ? "; " : "", x->sources[i]);
        fprintf(f, "; data: `%s` |\n", x->file);
    }
}

static void table_md(FILE *f, const cts_std_audit *a)
{
    fputs("\n| op | dtype | numerics | product |", f);
    for (int s = 0; s < a->nstd; s++) {
        char label[96];
        std_label(label, sizeof label, &a->std[s]);
        fprintf(f, " %s |", label);
    }
    fputs("\n| --- | --- | --- | --- |", f);
    for (int s = 0; s < a->nstd; s++) fputs(" --- |", f);
    fputc('\n', f);
    for (size_t i = 0; i < a->nrows; i++) {
        const cts_std_row *w = &a->rows[i];
        fprintf(f, "| %s | %s | %s | %s |", w->op, w->dtype, w->numerics[0] ? w->numerics : "-",
                w->product);
        for (int s = 0; s < a->nstd; s++) {
            if (!w->cases[s]) fputs(" -", f);
            else fprintf(f, " %s %zu/%zu, %.3g", w->pass[s] == w->cases[s] ? "PASS" : "FAIL",
                         w->pass[s], w->cases[s], w->worst_margin[s]);
            if (w->unjudged[s]) fprintf(f, "%snot applicable %zu", w->cases[s] ? "; " : " ",
                                        w->unjudged[s]);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
}

/* Why a standard did not judge an output, in one line. */
static const char *na_reason(const cts_standard *s, int k)
{
    if (k < s->nna) return s->na[k].reason;
    return k == CTS_NA_NO_BENCH ? "no benchmark output (the benchmark device refused or "
                                  "skipped the case)"
                                : "the standard's file gives no threshold for the dtype";
}

static void totals_md(FILE *f, const cts_std_audit *a)
{
    fputs("\n", f);
    for (int s = 0; s < a->nstd; s++) {
        size_t c = 0, p = 0, u = 0;
        for (size_t i = 0; i < a->nrows; i++) {
            c += a->rows[i].cases[s];
            p += a->rows[i].pass[s];
            u += a->rows[i].unjudged[s];
        }
        char label[96];
        std_label(label, sizeof label, &a->std[s]);
        fprintf(f, "- **%s**: %s, %zu of %zu outputs pass, %zu fail; %zu not applicable\n",
                label, p == c ? "PASS" : "FAIL", p, c, c - p, u);
        for (int k = 0; k < CTS_NA_KINDS; k++)
            if (a->na[s][k]) fprintf(f, "  - not applicable: %s (%zu outputs)\n",
                                     na_reason(&a->std[s], k), a->na[s][k]);
    }
}

static void examples_md(FILE *f, const cts_std_example *ex, int64_t n, bool elements,
                        const cts_standard *s)
{
    for (int64_t i = 0; i < n && i < CTS_STD_EXAMPLES; i++) {
        const cts_std_example *e = &ex[i];
        if (elements)
            fprintf(f, "  - `%s` %s[%lld]: got %.9g, golden %.9g, %.3g bound units, %s %.3g\n",
                    e->case_id, e->output, (long long)e->index, e->got, e->golden,
                    e->bound_units, elem_metric_name(s->method), e->metric);
        else
            fprintf(f, "  - `%s` %s: margin %.3g under %s, %.3g bound units\n", e->case_id,
                    e->output, e->metric, s->name, e->bound_units);
    }
}

static void disagreements_md(FILE *f, const cts_std_audit *a)
{
    for (int s = 0; s < a->nstd; s++) {
        const cts_standard *x = &a->std[s];
        if (x->method == CTS_STD_BOUND) continue;
        char label[96];
        std_label(label, sizeof label, x);
        fprintf(f, "\n### %s against the proven bound\n\n", label);
        fprintf(f, "- %lld outputs pass %s and exceed the bound; %lld fail it within the "
                "bound\n", (long long)a->case_disagree[s][0], x->name,
                (long long)a->case_disagree[s][1]);
        examples_md(f, a->case_ex[s][0], a->case_disagree[s][0], false, x);
        examples_md(f, a->case_ex[s][1], a->case_disagree[s][1], false, x);
        if (x->method == CTS_STD_BENCHMARK) {
            fputs("- no per-element criterion (its metrics are ratios over an output)\n", f);
            continue;
        }
        fprintf(f, "- %lld elements meet its per-element criterion and exceed the bound; "
                "%lld the reverse\n", (long long)a->elem_disagree[s][0],
                (long long)a->elem_disagree[s][1]);
        examples_md(f, a->elem_ex[s][0], a->elem_disagree[s][0], true, x);
        examples_md(f, a->elem_ex[s][1], a->elem_disagree[s][1], true, x);
    }
}

void cts_std_audit_markdown(FILE *f, const cts_std_audit *a)
{
    fputs("\n## Precision standards\n\n", f);
    sources_md(f, a);
    fputs("\nEach computed output of each case with judged elements, judged against the "
          "golden the standard's file names (dtype: the reference correctly rounded to the "
          "output dtype; exact: the exact value rounded to double; of several legal values the "
          "one nearest the device's)", f);
    if (a->bench_label) fprintf(f, "; the benchmark device's outputs from `%s`", a->bench_label);
    fprintf(f, ". A cell: PASS or FAIL, outputs passing / judged, the worst margin (the closest "
            "criterion's value over its limit: at most 1 passes), and the outputs the standard "
            "has no rule for (not applicable; why: below the table). %zu outputs judged",
            a->noutputs);
    if (a->nmissing) fprintf(f, ", %zu without a readable dump", a->nmissing);
    if (a->nbench_missing)
        fprintf(f, ", %zu without a benchmark output (the benchmark device refused or skipped "
                "the case)", a->nbench_missing);
    fputs(".\n", f);
    table_md(f, a);
    totals_md(f, a);
    disagreements_md(f, a);
}

/* Text inside a quoted CSV field (its quotes doubled). */
static void csv_text(FILE *f, const char *t)
{
    for (; *t; t++) {
        if (*t == '"') fputc('"', f);
        fputc(*t, f);
    }
}

/* The not_applicable cell: "N: reason" per why, ' | ' between, quoted for CSV. */
static void csv_reasons(FILE *f, const cts_standard *x, const size_t *na)
{
    fputs(",\"", f);
    for (int k = 0, first = 1; k < CTS_NA_KINDS; k++) {
        if (!na[k]) continue;
        fprintf(f, "%s%zu: ", first ? "" : " | ", na[k]);
        csv_text(f, na_reason(x, k));
        first = 0;
    }
    fputc('"', f);
}

void cts_std_outputs_csv_header(FILE *f)
{
    fputs("case,output,op,dtype,numerics,product,standard,edition,verdict,margin,metrics,"
          "bound_units,worst_element,worst_got,worst_golden,worst_bound_units,worst_metric,"
          "not_applicable\n", f);
}

/* The judged element with the largest per-element value of the standard (NaN counts as
 * largest), or -1: index,got,golden,bound units,value as CSV fields. */
static void worst_element_csv(FILE *f, const cts_std_input *in, const signed char *elem,
                              const double *em)
{
    int64_t worst = -1;
    for (int64_t k = 0; elem && em && k < in->n; k++)
        if (in->judged[k] && elem[k] >= 0 && (worst < 0 || !(em[k] <= em[worst]))) worst = k;
    if (worst < 0) {
        fputs(",,,,,", f);
        return;
    }
    fprintf(f, ",%lld,%.17g,%.17g,%.9g,%.9g", (long long)worst, in->got[worst],
            in->golden[worst], in->bound_units[worst], em[worst]);
}

void cts_std_output_csv(FILE *f, const cts_standard *s, const cts_std_row *w, const char *id,
                        const char *out, const cts_std_verdict *v, double bound_units,
                        const cts_std_input *in, const signed char *elem, const double *em)
{
    fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%s,", id, out, w->op, w->dtype, w->numerics, w->product,
            s->name, s->edition, !v->judged ? "n/a" : v->pass ? "PASS" : "FAIL");
    if (v->judged) fprintf(f, "%.9g", v->margin);
    fputc(',', f);
    const char *const *m = cts_std_metric_names(s->method);
    for (int k = 0; v->judged && k < v->nm && m[k]; k++)
        fprintf(f, "%s%s=%.9g", k ? ";" : "", m[k], v->m[k]);
    fprintf(f, ",%.9g", bound_units);
    worst_element_csv(f, in, v->judged ? elem : NULL, em);
    fputs(",\"", f);
    if (!v->judged) csv_text(f, na_reason(s, v->na));
    fputs("\"\n", f);
}

void cts_std_audit_csv(FILE *f, const cts_std_audit *a)
{
    fputs("op,dtype,numerics,product,standard,edition,method,outputs,pass,fail,not_judged,"
          "worst_margin,worst_case,worst_metrics,not_applicable\n", f);
    for (size_t i = 0; i < a->nrows; i++) {
        const cts_std_row *w = &a->rows[i];
        for (int s = 0; s < a->nstd; s++) {
            const cts_standard *x = &a->std[s];
            fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%zu,%zu,%zu,%zu,%.17g,%s,", w->op, w->dtype,
                    w->numerics, w->product, x->name, x->edition, cts_std_method_name(x->method),
                    w->cases[s], w->pass[s], w->cases[s] - w->pass[s], w->unjudged[s],
                    w->worst_margin[s], w->worst_case[s]);
            const char *const *m = cts_std_metric_names(x->method);
            for (int k = 0; m[k] && w->cases[s]; k++)
                fprintf(f, "%s%s=%.9g", k ? ";" : "", m[k], w->worst_m[s][k]);
            csv_reasons(f, x, w->na[s]);
            fputc('\n', f);
        }
    }
}

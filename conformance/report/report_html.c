/* report.html (report.h). */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "svg.h"

static const char style[] =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}"
    "h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0;font-size:12px}"
    "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}th{background:#f0f0f0}"
    "td{white-space:nowrap}td.msg{white-space:normal;min-width:30em}"
    "td.n{text-align:right}code,pre{font-family:monospace;font-size:12px}"
    "pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;word-break:break-all}"
    ".verdict{display:inline-block;padding:8px 16px;font-size:24px;font-weight:bold;color:#fff}"
    ".ok{background:#2e7d32}.bad{background:#c62828}.info{background:#1565c0}"
    ".fig{display:inline-block;vertical-align:top;margin:6px}"
    ".group h3{margin:18px 0 0 0}.group small{color:#777;font-weight:normal}"
    ".note{font-size:12px;color:#555;max-width:420px}";

static void esc(FILE *f, const char *s) { cts_xml_escape(f, s ? s : ""); }

/* n bytes of s, escaped. */
static void esc_n(FILE *f, const char *s, size_t n)
{
    char buf[512];
    while (n > 0) {
        size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
        memcpy(buf, s, k);
        buf[k] = 0;
        esc(f, buf);
        s += k;
        n -= k;
    }
}

/* Markdown's inline marks of the writers' text: `code`, **bold**, and "\|" (a pipe inside
 * a table cell); an unclosed mark is text. Everything else escaped. */
static void inline_md(FILE *f, const char *s)
{
    while (*s) {
        const char *close = NULL;
        size_t mark = 0;
        if (*s == '`') close = strchr(s + 1, '`'), mark = 1;
        else if (!strncmp(s, "**", 2)) close = strstr(s + 2, "**"), mark = 2;
        if (close) {
            fputs(mark == 1 ? "<code>" : "<b>", f);
            esc_n(f, s + mark, (size_t)(close - s) - mark);
            fputs(mark == 1 ? "</code>" : "</b>", f);
            s = close + mark;
            continue;
        }
        size_t n = s[0] == '\\' && s[1] == '|' ? 1 : 0; /* drop the backslash */
        esc_n(f, s + n, 1);
        s += n + 1;
    }
}

/* One markdown table row: cells between '|' (header row when th); "\|" is a pipe inside a
 * cell. */
static void md_row(FILE *f, const char *line, bool th)
{
    fputs("<tr>", f);
    const char *p = line + 1;
    while (*p && *p != '\n') {
        const char *e = strchr(p, '|');
        while (e && e > p && e[-1] == '\\') e = strchr(e + 1, '|');
        if (!e) break;
        char cell[4096];
        size_t n = (size_t)(e - p) < sizeof cell - 1 ? (size_t)(e - p) : sizeof cell - 1;
        memcpy(cell, p, n);
        cell[n] = 0;
        char *c = cell;
        while (*c == ' ') c++;
        for (char *t = c + strlen(c); t > c && t[-1] == ' ';) *--t = 0;
        fputs(th ? "<th>" : "<td>", f);
        inline_md(f, c);
        fputs(th ? "</th>" : "</td>", f);
        p = e + 1;
    }
    fputs("</tr>\n", f);
}

void cts_markdown_to_html(FILE *f, const char *md)
{
    bool in_table = false, header = false, in_pre = false;
    const char *line = md;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = malloc(len + 1);
        if (!l) abort();
        memcpy(l, line, len);
        l[len] = 0;
        if (!strncmp(l, "```", 3)) {
            fputs(in_pre ? "</pre>\n" : "<pre>", f);
            in_pre = !in_pre;
        } else if (in_pre) {
            esc(f, l);
            fputc('\n', f);
        } else if (l[0] == '|') {
            if (!in_table) {
                fputs("<table>\n", f);
                in_table = header = true;
            }
            if (strncmp(l, "|---", 4) && strncmp(l, "| ---", 5)) {
                md_row(f, l, header);
                header = false;
            }
        } else {
            if (in_table) fputs("</table>\n", f);
            in_table = false;
            if (l[0] == '#') {
                const char *t = l;
                while (*t == '#') t++;
                fputs("<h3>", f);
                inline_md(f, t + (*t == ' '));
                fputs("</h3>\n", f);
            } else if (l[0]) {
                fputs("<p>", f);
                inline_md(f, l);
                fputs("</p>\n", f);
            }
        }
        free(l);
        line = nl ? nl + 1 : NULL;
    }
    if (in_table) fputs("</table>\n", f);
    if (in_pre) fputs("</pre>\n", f);
}

/* Markdown produced by a writer, converted. */
static void md_section(FILE *f, void (*writer)(FILE *, const void *), const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m) return;
    writer(m, arg);
    fclose(m);
    cts_markdown_to_html(f, buf);
    free(buf);
}

static void write_summary_md(FILE *m, const void *arg)
{
    const cts_report *r = arg;
    cts_summary_write(m, r->results, r->nresults, 0);
}

static void write_audit_md(FILE *m, const void *arg) { cts_audit_write_markdown(m, arg); }

static void counts(FILE *f, const cts_report *r)
{
    cts_tally t;
    cts_tally_results(r->results, r->nresults, &t);
    fputs("<table><tr><th>status</th><th>cases</th></tr>\n", f);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "<tr><td>%s</td><td class=\"n\">%zu</td></tr>\n",
                cts_status_name((cts_status)s), t.count[s]);
    fprintf(f, "<tr><th>total</th><th>%zu</th></tr></table>\n", t.total);
}

static void waivers_and_failures(FILE *f, const cts_report *r)
{
    size_t nf = 0;
    fputs("<h2>Waivers used or expired</h2>\n", f);
    if (r->nwaivers)
        fputs("<table><tr><th>case</th><th>status</th><th>reason</th><th>tracking</th>"
              "<th>owner</th><th>expires</th><th>failure</th></tr>\n", f);
    for (size_t i = 0; i < r->nwaivers; i++) {
        const cts_waiver_row *w = &r->waivers[i];
        fputs("<tr><td><code>", f);
        esc(f, w->case_id);
        fprintf(f, "</code></td><td>%s</td>", cts_status_name(w->status));
        /* the long cells wrap: a long reason made the page scroll sideways at 1400 px */
        const char *cells[5] = {w->reason, w->tracking, w->owner, w->expires,
                                cts_waiver_failure(w)};
        for (int k = 0; k < 5; k++) {
            fputs(k == 0 || k == 4 ? "<td class=\"msg\">" : "<td>", f);
            esc(f, cells[k] && *cells[k] ? cells[k] : "-");
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs(r->nwaivers ? "</table>\n" : "<p>none</p>\n", f);
    fputs("<h2>Failures</h2>\n", f);
    for (size_t i = 0; i < r->nresults; i++) {
        const cts_result *x = &r->results[i];
        if (!cts_status_fails(x->v.status)) continue;
        if (++nf > 200) continue;
        fprintf(f, "<h3>%s ", cts_status_name(x->v.status));
        esc(f, x->v.case_id);
        fputs("</h3>\n<p>check <code>", f);
        esc(f, x->v.check);
        fputs("</code>: ", f);
        esc(f, x->v.message);
        fputs("</p>\n<pre>", f);
        esc(f, x->repro);
        fputs("</pre>\n", f);
    }
    if (nf > 200) fprintf(f, "<p>(%zu more in results.jsonl)</p>\n", nf - 200);
    if (!nf) fputs("<p>none</p>\n", f);
}

static void sort_names(const char **v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
            const char *t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* Worst error in bound units per product x dtype, from the verdicts. Every product of the
 * results gets a row, so one without numbers shows as grey rather than missing. */
static void heatmap(FILE *f, const cts_report *r)
{
    const char *rows[16], *cols[8];
    int nr = 0, nc = 0;
    for (size_t i = 0; i < r->nresults; i++) {
        const cts_result *x = &r->results[i];
        int k = 0;
        while (k < nr && strcmp(rows[k], x->product)) k++;
        if (k == nr && nr < 16) rows[nr++] = x->product;
        if (x->v.nelems <= 0) continue;
        k = 0;
        while (k < nc && strcmp(cols[k], x->dtype)) k++;
        if (k == nc && nc < 8) cols[nc++] = x->dtype;
    }
    /* products in name order, as the audit's columns; dtypes too: the results come in the
     * order cases ended, and the figure must not change with it */
    sort_names(rows, nr);
    sort_names(cols, nc);
    if (!nr || !nc) return;
    double *v = malloc(sizeof(double) * (size_t)(nr * nc));
    if (!v) abort();
    for (int k = 0; k < nr * nc; k++) v[k] = NAN;
    for (size_t i = 0; i < r->nresults; i++) {
        const cts_result *x = &r->results[i];
        if (x->v.nelems <= 0) continue;
        int a = 0, b = 0;
        while (a < nr && strcmp(rows[a], x->product)) a++;
        while (b < nc && strcmp(cols[b], x->dtype)) b++;
        if (a == nr || b == nc) continue;
        double *cell = &v[a * nc + b], w = x->v.worst_bound_units;
        if (isnan(*cell) || w > *cell || isnan(w)) *cell = isnan(w) ? INFINITY : w;
    }
    fputs("<div class=\"fig\">", f);
    cts_svg_heatmap(f, "worst error per product x dtype (bound units)", rows, nr, cols, nc, v);
    fputs("<p class=\"note\">Grey (-): no case of that product and dtype compared numbers: "
          "its cases expect an error status (a product without the operator or the dtype) or "
          "compute nothing.</p></div>\n", f);
    free(v);
}

/* One op x dtype x numerics key of the audit, summed over computation paths and products. */
typedef struct {
    const cts_audit_row *key;
    int64_t n, bound[CTS_AUDIT_BOUND_BINS], ulp[CTS_AUDIT_BINS];
    double bound_max;
} pic_group;

static bool same_group(const cts_audit_row *a, const cts_audit_row *b)
{
    return !strcmp(a->op, b->op) && !strcmp(a->dtype, b->dtype) &&
           !strcmp(a->numerics, b->numerics);
}

static void add_to_group(pic_group *g, const cts_audit_row *r)
{
    g->n += r->n;
    for (int b = 0; b < CTS_STAT_BINS; b++)
        g->bound[cts_audit_bound_bin(b)] += r->hist3[CTS_METRIC_BOUND][b];
    for (int b = 0; b < CTS_AUDIT_BINS; b++)
        g->ulp[b] += r->hist[b];
    if (r->max[CTS_METRIC_BOUND] > g->bound_max || isnan(r->max[CTS_METRIC_BOUND]))
        g->bound_max = r->max[CTS_METRIC_BOUND];
}

/* The distribution of bound units, the quantity that decides PASS under the default `bound`
 * tolerance (a suite may name another), with the limit 1 drawn. */
static void bound_picture(FILE *f, const pic_group *g)
{
    static const char *const names[CTS_AUDIT_BOUND_BINS] = {
        "0", "", "", "", "", "", "", "", "", "", "", "", "", "", ">4", "\u221e/NaN"};
    static const char *const edges[CTS_AUDIT_BOUND_BINS] = {
        "", "2\u207b\u00b9\u2070", "", "2\u207b\u2078", "", "2\u207b\u2076", "",
        "2\u207b\u2074", "", "2\u207b\u00b2", "", "1", "2", "4", "", ""};
    double colour[CTS_AUDIT_BOUND_BINS];
    int64_t above = 0;
    for (int b = 0; b < CTS_AUDIT_BOUND_BINS; b++) {
        colour[b] = b == 0 ? 0 : b == CTS_AUDIT_BOUND_BINS - 1 ? INFINITY
                  : b == CTS_AUDIT_BOUND_BINS - 2 ? 8 : ldexp(1, cts_audit_bound_bin_exp(b));
        above += b > CTS_AUDIT_BOUND_PASS_LAST ? g->bound[b] : 0;
    }
    char caption[160];
    if (above)
        snprintf(caption, sizeof caption, "%lld elements, max %.3g: %lld above 1 (FAIL)",
                 (long long)g->n, g->bound_max, (long long)above);
    else
        snprintf(caption, sizeof caption, "%lld elements, max %.3g: all within the bound",
                 (long long)g->n, g->bound_max);
    cts_svg_bars b = {.title = "bound units: the default pass criterion", .counts = g->bound,
                      .nbins = CTS_AUDIT_BOUND_BINS, .bin_names = names, .edge_names = edges,
                      .unit = "bound units", .axis = "|got - exact| / allowed error, octave "
                                                    "bins (count, log scale)",
                      .caption = caption, .colour_units = colour,
                      .limit_after = CTS_AUDIT_BOUND_PASS_LAST, .limit_label = "1 = pass limit",
                      .overflow_bin = -1, .bar_width = 30};
    cts_svg_bars_draw(f, &b);
}

/* ULPs on their own scale: large counts past 256 are legal where the bound allows them. */
static void ulp_picture(FILE *f, const pic_group *g)
{
    char caption[200] = "";
    int64_t over = g->ulp[CTS_AUDIT_BINS - 1];
    if (over)
        snprintf(caption, sizeof caption, "overflow: %lld element%s above 256 ULP, legal while "
                 "bound units <= 1", (long long)over, over == 1 ? "" : "s");
    cts_svg_bars b = {.title = "ULP against the correctly rounded value", .counts = g->ulp,
                      .nbins = CTS_AUDIT_BINS, .bin_names = cts_audit_bin_names, .unit = "ULP",
                      .axis = "error in ULP of the output dtype (count, log scale of this chart)",
                      .caption = over ? caption : NULL, .limit_after = -1,
                      .overflow_bin = CTS_AUDIT_BINS - 1};
    cts_svg_bars_draw(f, &b);
}

/* The products and computation paths a group's pictures add up, named: "(ascend910b; path
 * vector-fp32)", never a generic "all products" a one-product package does not have. */
static void group_scope(FILE *f, const cts_audit_row *rows, size_t n)
{
    fputs(" <small>(", f);
    for (int k = 0; k < 2; k++) {
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
            const char *v = k == 0 ? rows[i].product : rows[i].path;
            bool seen = false;
            for (size_t j = 0; j < i && !seen; j++)
                seen = !strcmp(v, k == 0 ? rows[j].product : rows[j].path);
            if (seen)
                continue;
            fputs(shown ? ", " : k == 1 ? "; path " : "", f);
            esc(f, v);
            shown++;
        }
    }
    fputs(")</small>", f);
}

/* Per op x dtype x numerics key: the bound-unit distribution first, then the ULP histogram. */
static void pictures(FILE *f, const cts_audit *a)
{
    for (size_t i = 0; i < a->nrows;) {
        pic_group g = {.key = &a->rows[i]};
        size_t j = i;
        for (; j < a->nrows && same_group(&a->rows[i], &a->rows[j]); j++)
            add_to_group(&g, &a->rows[j]);
        fprintf(f, "<div class=\"group\"><h3>%s &middot; %s &middot; ", g.key->op, g.key->dtype);
        if (!g.key->numerics[0])
            fputs("no numerics parameter", f);
        else
            esc(f, g.key->numerics);
        group_scope(f, a->rows + i, j - i);
        fputs("</h3>\n<div class=\"fig\">", f);
        bound_picture(f, &g);
        fputs("</div><div class=\"fig\">", f);
        ulp_picture(f, &g);
        fputs("</div></div>\n", f);
        i = j;
    }
}

/* A failing case's error map, from the grid its worker carried in the verdict. */
static void error_map(FILE *f, const cts_audit_map *m, const char *what)
{
    char title[400];
    snprintf(title, sizeof title, "%s %s: %s, plane %lld (worst %.3g bound units)", what,
             m->status, m->output, (long long)m->plane, m->worst);
    fputs("<div class=\"fig\"><p><code>", f);
    esc(f, m->case_id);
    fputs("</code></p>", f);
    cts_svg_error_map(f, title, m->h, m->w, m->bound_units);
    fputs("</div>\n", f);
}

int cts_report_html_write(FILE *f, const cts_report *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n<link rel=\"icon\" href=\"data:,\">\n"
          "<title>", f);
    esc(f, r->title);
    fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", style);
    esc(f, r->title);
    fputs("</h1>\n", f);
    if (r->verdict) {
        fprintf(f, "<p><span id=\"verdict\" class=\"verdict %s\">",
                strcmp(r->verdict, "CONFORMANT") == 0 ? "ok" : "bad");
        esc(f, r->verdict);
        fputs("</span></p>\n", f);
    }
    if (r->ninfo) {
        fputs("<table>\n", f);
        for (int i = 0; i < r->ninfo; i++) {
            fputs("<tr><th>", f);
            esc(f, r->info_keys[i]);
            fputs("</th><td>", f);
            esc(f, r->info_values[i]);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    if (r->nresults) {
        fputs("<h2>Cases by status</h2>\n", f);
        counts(f, r);
        fputs("<h2>Pictures</h2>\n", f);
        heatmap(f, r);
    } else {
        fputs("<h2>Pictures</h2>\n", f);
    }
    if (r->audit) {
        pictures(f, r->audit);
        for (size_t i = 0; i < r->audit->nmaps; i++)
            error_map(f, &r->audit->maps[i], "error map of failing case,");
        if (r->audit->nmaps)
            fputs("<p>Error maps: bound units per element (blocks of at most 96 x 96 show "
                  "their maximum), rounded up to a quarter octave (at most 19 % high); the "
                  "plane's worst value in the title is exact.</p>\n", f);
        else
            fputs("<p>No failing case, so no error map (the workers keep an error map for "
                  "failing cases only).</p>\n", f);
    }
    if (r->nresults) {
        fputs("<h2>Summary</h2>\n", f);
        md_section(f, write_summary_md, r);
        waivers_and_failures(f, r);
    }
    if (r->audit) {
        fputs("<h2 id=\"audit\">Precision audit</h2>\n", f);
        md_section(f, write_audit_md, r->audit);
    }
    if (r->standards_md) {
        fputs("<h2 id=\"standards\">Precision standards</h2>\n", f);
        cts_markdown_to_html(f, r->standards_md);
    }
    fputs("<p style=\"color:#777\">Generated by aclcts; self-contained (no network, no scripts)."
          "</p>\n</body></html>\n", f);
    return ferror(f) ? -1 : 0;
}

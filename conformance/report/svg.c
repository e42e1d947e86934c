/* Inline SVG pictures (svg.h). */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/results.h" /* cts_xml_escape */

#define FONT "font-family=\"sans-serif\" font-size=\"11\""

void cts_svg_error_color(double x, char out[8])
{
    if (isnan(x)) {
        snprintf(out, 8, "#bdbdbd");
        return;
    }
    if (x > 1) {
        snprintf(out, 8, "#d62728");
        return;
    }
    /* t in [0, 1] over log10 x in [-4, 0]; exact zero is white */
    double t = x <= 0 ? -0.15 : (log10(x) + 4) / 4;
    if (t < -0.15) t = -0.15;
    double lo[3] = {247, 251, 255}, hi[3] = {8, 48, 107};
    int c[3];
    double u = (t + 0.15) / 1.15;
    for (int k = 0; k < 3; k++) c[k] = (int)lround(lo[k] + (hi[k] - lo[k]) * u);
    snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

static void title_text(FILE *f, double x, double y, const char *title)
{
    fprintf(f, "<text x=\"%g\" y=\"%g\" " FONT " font-weight=\"bold\">", x, y);
    cts_xml_escape(f, title);
    fputs("</text>\n", f);
}

static void label(FILE *f, double x, double y, const char *anchor, const char *fill,
                  const char *text)
{
    fprintf(f, "<text x=\"%g\" y=\"%g\" " FONT " text-anchor=\"%s\" fill=\"%s\">", x, y, anchor,
            fill);
    cts_xml_escape(f, text);
    fputs("</text>\n", f);
}

void cts_svg_bars_draw(FILE *f, const cts_svg_bars *b)
{
    const double bw = b->bar_width > 0 ? b->bar_width : 44, ph = 120, top = 40, left = 10;
    double width = left * 2 + bw * b->nbins, height = top + ph + 58;
    if (width < 7 * (double)strlen(b->title) + 20) width = 7 * (double)strlen(b->title) + 20;
    int64_t max = 0, total = 0;
    for (int i = 0; i < b->nbins; i++) {
        if (b->counts[i] > max) max = b->counts[i];
        total += b->counts[i];
    }
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
               "viewBox=\"0 0 %g %g\" role=\"img\">\n", width, height, width, height);
    title_text(f, left, 14, b->title);
    fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#555\"/>\n", left,
            top + ph, left + bw * b->nbins, top + ph);
    for (int i = 0; i < b->nbins; i++) {
        double h = max > 0 ? ph * log10(1 + (double)b->counts[i]) / log10(1 + (double)max) : 0;
        double x = left + i * bw, y = top + ph - h;
        char col[8];
        cts_svg_error_color(b->colour_units ? b->colour_units[i]
                            : i == 0 ? 0 : pow(10, -4 + 4.0 * i / b->nbins), col);
        fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\" "
                   "stroke=\"#555\" stroke-width=\"0.5\"><title>", x + 2, y, bw - 4, h, col);
        cts_xml_escape(f, b->bin_names && b->bin_names[i] ? b->bin_names[i] : "");
        fprintf(f, " %s: %lld of %lld elements</title></rect>\n", b->unit,
                (long long)b->counts[i], (long long)total);
        if (b->counts[i]) {
            char n[32];
            snprintf(n, sizeof n, "%lld", (long long)b->counts[i]);
            fprintf(f, "<text x=\"%g\" y=\"%g\" font-family=\"sans-serif\" font-size=\"%d\" "
                       "text-anchor=\"middle\">%s</text>\n", x + bw / 2, y - 3,
                    bw < 40 ? 9 : 11, n);
        }
        if (b->bin_names && b->bin_names[i] && b->bin_names[i][0])
            label(f, x + bw / 2, top + ph + 14, "middle", "#000", b->bin_names[i]);
        if (b->edge_names && b->edge_names[i] && b->edge_names[i][0]) {
            fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#555\"/>\n",
                    x + bw, top + ph, x + bw, top + ph + 4);
            label(f, x + bw, top + ph + 14, "middle", "#000", b->edge_names[i]);
        }
        if (i == b->overflow_bin)
            label(f, x + bw / 2, top + ph + 27, "middle", "#b00", "overflow");
    }
    if (b->limit_after >= 0) {
        double x = left + (b->limit_after + 1) * bw;
        fprintf(f, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#d62728\" "
                   "stroke-width=\"2\" stroke-dasharray=\"5,3\"/>\n", x, top - 22, x, top + ph);
        /* above the tallest bar's count (at top - 3), not beside it */
        label(f, x + 4, top - 14, "start", "#d62728", b->limit_label ? b->limit_label : "");
    }
    label(f, left, top + ph + 40, "start", "#555", b->axis);
    if (b->caption)
        label(f, left, top + ph + 54, "start", "#555", b->caption);
    fputs("</svg>\n", f);
}

void cts_svg_histogram(FILE *f, const char *title, const char *const *bin_names,
                       const int64_t *counts, int nbins)
{
    cts_svg_bars b = {.title = title, .counts = counts, .nbins = nbins, .bin_names = bin_names,
                      .unit = "ULP", .axis = "error in ULP of the output dtype (count, log "
                                             "scale of this chart)",
                      .limit_after = -1, .overflow_bin = nbins - 1};
    cts_svg_bars_draw(f, &b);
}

void cts_svg_heatmap(FILE *f, const char *title, const char *const *row_names, int nrows,
                     const char *const *col_names, int ncols, const double *values)
{
    const double cw = 92, ch = 26, left = 120, top = 44;
    double width = left + cw * ncols + 10, height = top + ch * nrows + 10;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
               "viewBox=\"0 0 %g %g\" role=\"img\">\n", width, height, width, height);
    title_text(f, 4, 14, title);
    for (int j = 0; j < ncols; j++) {
        fprintf(f, "<text x=\"%g\" y=\"%g\" " FONT " text-anchor=\"middle\">", left + cw * j +
                cw / 2, top - 8);
        cts_xml_escape(f, col_names[j]);
        fputs("</text>\n", f);
    }
    for (int i = 0; i < nrows; i++) {
        fprintf(f, "<text x=\"%g\" y=\"%g\" " FONT " text-anchor=\"end\">", left - 6,
                top + ch * i + ch / 2 + 4);
        cts_xml_escape(f, row_names[i]);
        fputs("</text>\n", f);
        for (int j = 0; j < ncols; j++) {
            double v = values[i * ncols + j];
            char col[8], txt[32];
            cts_svg_error_color(v, col);
            snprintf(txt, sizeof txt, isnan(v) ? "-" : "%.3g", v);
            fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\" "
                       "stroke=\"#fff\"/>\n", left + cw * j, top + ch * i, cw, ch, col);
            bool dark = !isnan(v) && (v > 1 || v > 0.03);
            fprintf(f, "<text x=\"%g\" y=\"%g\" " FONT " text-anchor=\"middle\" fill=\"%s\">%s"
                       "</text>\n", left + cw * j + cw / 2, top + ch * i + ch / 2 + 4,
                    dark ? "#fff" : "#000", txt);
        }
    }
    fputs("</svg>\n", f);
}

void cts_svg_error_map(FILE *f, const char *title, int64_t h, int64_t w, const double *values)
{
    const int64_t maxc = 96;
    int64_t bh = (h + maxc - 1) / maxc, bwid = (w + maxc - 1) / maxc; /* block size */
    if (bh < 1) bh = 1;
    if (bwid < 1) bwid = 1;
    int64_t rows = (h + bh - 1) / bh, cols = (w + bwid - 1) / bwid;
    double cell = cols > 0 ? 480.0 / (double)cols : 8;
    if (cell > 24) cell = 24;
    if (cell * (double)rows > 480) cell = 480.0 / (double)rows;
    double top = 22, width = cell * (double)cols + 20, height = top + cell * (double)rows + 24;
    if (width < 320) width = 320;
    if (width < 6.5 * (double)strlen(title)) width = 6.5 * (double)strlen(title); /* title */
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
               "viewBox=\"0 0 %g %g\" role=\"img\">\n", width, height, width, height);
    title_text(f, 4, 14, title);
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            double m = 0;
            for (int64_t y = i * bh; y < (i + 1) * bh && y < h; y++)
                for (int64_t x = j * bwid; x < (j + 1) * bwid && x < w; x++) {
                    double v = values[y * w + x];
                    if (isnan(v) || v > m) m = v;
                }
            char col[8];
            cts_svg_error_color(m, col);
            fprintf(f, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"%s\"><title>"
                       "[%lld, %lld] %.3g</title></rect>\n", 4 + cell * (double)j,
                    top + cell * (double)i, cell, cell, col, (long long)(i * bh),
                    (long long)(j * bwid), m);
        }
    fprintf(f, "<text x=\"4\" y=\"%g\" " FONT " fill=\"#555\">%lld x %lld, colour: error in "
               "bound units (white 0, dark blue 1, red &gt; 1)</text>\n</svg>\n",
            top + cell * (double)rows + 16, (long long)h, (long long)w);
}

/* Pictures for report.html drawn as inline SVG by aclcts itself (no scripts, no fonts beyond the
 * generic family): bar histograms, heatmaps of worst errors and error maps over a tensor plane.
 * Every label goes through cts_xml_escape. Colours encode errors in units of the `bound`
 * tolerance on a log scale from 1e-4 to 1; above 1 (a failing element) is red. */
#ifndef ACLCTS_CONFORMANCE_SVG_H_
#define ACLCTS_CONFORMANCE_SVG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* "#rrggbb" for an error of x bound units: white at 0, light to dark blue up to 1, red above,
 * grey for NaN (not judged). */
void cts_svg_error_color(double x, char out[8]);

/* A bar chart of element counts per error bin: bar heights on a log scale of the count (its
 * own scale: the largest bar of this chart is full height), the count written above each bar. */
typedef struct {
    const char *title;
    const int64_t *counts;
    int nbins;
    const char *const *bin_names;   /* under each bar's centre ("" or NULL entries: none) */
    const char *const *edge_names;  /* at each bar's right edge (NULL: none) */
    const char *unit;               /* "ULP", "bound units": tooltips */
    const char *axis;               /* caption under the axis */
    const char *caption;            /* a second caption line, or NULL */
    const double *colour_units;     /* per bin, the error (bound units) its colour shows; NULL:
                                       shade by position */
    int limit_after;                /* dashed red line after this bin (the pass limit); -1 none */
    const char *limit_label;
    int overflow_bin;               /* bin labelled "overflow" under its name; -1 none */
    double bar_width;               /* 0: 44 */
} cts_svg_bars;

void cts_svg_bars_draw(FILE *f, const cts_svg_bars *b);

/* The ULP histogram: one bar per bin of bin_names, the last bin labelled as the overflow. */
void cts_svg_histogram(FILE *f, const char *title, const char *const *bin_names,
                       const int64_t *counts, int nbins);

/* Grid of nrows x ncols cells coloured by value (row-major, NaN = empty), value written in each
 * cell. */
void cts_svg_heatmap(FILE *f, const char *title, const char *const *row_names, int nrows,
                     const char *const *col_names, int ncols, const double *values);

/* An h x w plane of per-element errors (bound units); planes larger than 96 x 96 are shown as
 * the maximum over blocks. */
void cts_svg_error_map(FILE *f, const char *title, int64_t h, int64_t w, const double *values);

#endif

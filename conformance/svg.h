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

/* Bar chart: one bar per bin (height on a log scale of the count, the count written above). */
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

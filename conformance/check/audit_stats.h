/* The per-element statistics a case carries for the precision audit (cts_elem_stats,
 * cts_error_grid in verdict.h): the bin layout of their histograms, adding elements, reading a
 * quantile back, and the code of the error grid. Shared by the worker (checks.c) and the audit.
 *
 * Histogram bins (one layout for ULP, bound units and relative error): bin 0 holds exact zeros,
 * bin 1 errors in (0, 2^-40], then one bin per half octave (2^((i-1)/2), 2^(i/2)] up to 2^40,
 * then (2^40, inf) and last inf/NaN. Half-open at the bottom so that an error <= 1 never shares
 * a bin with one > 1, and integer ULPs that are powers of two sit at a bin's upper edge. */
#ifndef ACLCTS_CONFORMANCE_AUDIT_STATS_H_
#define ACLCTS_CONFORMANCE_AUDIT_STATS_H_

#include <stdbool.h>
#include <stdint.h>

#include "verdict.h"

enum { CTS_METRIC_ULP, CTS_METRIC_BOUND, CTS_METRIC_REL };

/* Bin of an error x >= 0 (NaN and infinity: the last bin). */
int cts_stat_bin(double x);
/* Upper edge of bin b: 0 for bin 0, infinity for the last two. */
double cts_stat_bin_upper(int b);

/* One judged element: its three errors and which named standards accept it. */
void cts_elem_stats_add(cts_elem_stats *s, const double err[CTS_STAT_METRICS],
                        const bool meets[CTS_STAT_STANDARDS]);

/* p-quantile (0..1, nearest rank) of n elements from their histogram: the upper edge of the bin
 * holding it, capped at the exact maximum. An upper bound of the true quantile and at most
 * sqrt(2) times it (bins 2.. are half octaves; below 2^-40 the bound is 2^-40). NaN when n = 0. */
double cts_stat_quantile(const int64_t hist[CTS_STAT_BINS], int64_t n, double max, double p);

/* Error-grid codes: 0 exact zero, 1..253 quarter octaves (x coded as its upper edge
 * 2^((code-161)/4), so <= 1 stays <= 1 and > 1 stays > 1; clamped to [2^-40, 2^23]), 254
 * infinity, 255 NaN. */
uint8_t cts_grid_code(double x);
double cts_grid_value(uint8_t code);

#endif

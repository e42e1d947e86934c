/* Private to report/: the precision standards' judges over one output of one case
 * (standard_judge.c), the .npy reader they get a --dump's arrays from (npy_read.c). */
#ifndef ACLCTS_CONFORMANCE_REPORT_STANDARD_H_
#define ACLCTS_CONFORMANCE_REPORT_STANDARD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* Reads a little-endian C-order .npy (format 1.x or 2.x) of f2, f4, f8 or u1 as doubles: a
 * malloc'd array in *data (free it) of *n elements (the product of the shape). 0, or -1 with
 * a message naming the file. */
int cts_npy_read(const char *path, double **data, int64_t *n, char *err, size_t errlen);

/* One output of one case, as the judges see it: the device's values, the golden (the one the
 * standard's file names: the reference correctly rounded to the output dtype, or the exact
 * value rounded to double; for an element with several legal values the one nearest the
 * device's), a benchmark device's values (or NULL), whether each element is
 * judged, and its error in units of the proven bound (inf: a non-finite value of the wrong
 * class). */
typedef struct {
    int64_t n;
    const double *got, *golden, *bench, *bound_units;
    const unsigned char *judged;
    int dt;                         /* CTS_STD_* */
} cts_std_input;

/* A standard's verdict on one output. */
typedef struct {
    bool judged;                    /* false: the standard has no rule for the dtype, nothing
                                       was judged, or it needs a benchmark that is missing */
    int na;                         /* not judged, why: an index of the standard's
                                       not_applicable, CTS_NA_NO_RULE or CTS_NA_NO_BENCH */
    bool pass;
    double margin;                  /* <= 1 passes (the closest criterion's value / limit) */
    double m[CTS_STD_METRICS];      /* the method's metrics (cts_std_metric_names) */
    int nm;
} cts_std_verdict;

/* The standard's verdict on in; per element (elem may be NULL) 1 when the element meets the
 * standard's per-element criterion, 0 when not, -1 when the standard has none (benchmark). */
void cts_std_judge(const cts_standard *s, const cts_std_input *in, cts_std_verdict *v,
                   signed char *elem, double *elem_metric);

/* One line of the per-output CSV: standard s's verdict v on output `out` of case `id` (in
 * row w), beside the bound's worst units over the output (bound_units), and the element worst
 * by the standard's per-element value em (where elem is not -1; none for the benchmark
 * method) with its value, golden and bound units. */
void cts_std_output_csv(FILE *f, const cts_standard *s, const cts_std_row *w, const char *id,
                        const char *out, const cts_std_verdict *v, double bound_units,
                        const cts_std_input *in, const signed char *elem, const double *em);

/* The spacing of the output dtype's numbers at |x| (its ULP). */
double cts_std_ulp(int dt, double x);

#endif

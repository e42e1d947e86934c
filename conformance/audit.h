/* The precision audit: per op x dtype x cubeMathType x computation path x product, the
 * distribution of the element errors of a run (ULP against the correctly rounded value, units of
 * the `bound` tolerance, relative error), the share of elements meeting each named standard and
 * the run-to-run spread. Computed from a --dump of the run: the device outputs and the inputs the
 * device saw are read back and judged with the same tolerance code the checks use
 * (cts_judge_element), so ambiguous and uncheckable elements count as they do there. */
#ifndef ACLCTS_CONFORMANCE_AUDIT_H_
#define ACLCTS_CONFORMANCE_AUDIT_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "results.h"

/* ULP histogram bins: 0, 1, 2, 3-4, 5-8, 9-16, 17-64, 65-256, >256 (inf: non-finite class). */
#define CTS_AUDIT_BINS 9
extern const char *const cts_audit_bin_names[CTS_AUDIT_BINS];
/* The named standards counted per element (tolerance names of the suite format). */
#define CTS_AUDIT_STANDARDS 3
extern const char *const cts_audit_standards[CTS_AUDIT_STANDARDS];

typedef struct {
    double *x;
    size_t n, cap;
} cts_dvec;

typedef struct {
    char op[32], dtype[16], path[32], product[24];
    int cube_math_type;                 /* -1: the grid sampler */
    size_t ncases, nnondet;             /* cases judged; of them not promised deterministic */
    int64_t skipped;                    /* elements the reference marks uncheckable */
    cts_dvec ulp, bound, rel;           /* per judged element (sorted by cts_audit_finish) */
    int64_t meets[CTS_AUDIT_STANDARDS];
    int64_t hist[CTS_AUDIT_BINS];
    double spread_ulp;                  /* max over the non-deterministic cases' repeats */
} cts_audit_row;

/* Error map of one output plane of one case (the plane holding its worst element). */
typedef struct {
    char case_id[256], output[16], status[16];
    int64_t h, w, plane;                /* plane: index over the leading dims */
    double *bound_units;                /* h*w, row-major */
    double worst;
} cts_audit_map;

#define CTS_AUDIT_MAX_MAPS 6

typedef struct {
    cts_audit_row *rows;
    size_t nrows, cap;
    cts_audit_map maps[CTS_AUDIT_MAX_MAPS]; /* the first failing cases */
    size_t nmaps;
    cts_audit_map worst;                /* the case with the largest error in bound units */
    size_t ncases, nerrors;
} cts_audit;

/* Judge one case from its dump directory (DIR/<id with '/' as '_'>): reads the input and
 * output .npy files, recomputes the exact answers from the dumped inputs and judges every
 * element of every computed output. r: the case's result record (status, spread), or NULL.
 * Cases without numeric outputs (error statuses, empty tensors) add nothing. 0, or -1 with a
 * message in err (a missing or unreadable file). */
int cts_audit_add_case(cts_audit *a, const char *dump_root, const cts_case *c,
                       const cts_result *r, char *err, size_t errlen);
/* Every result whose case is among cases (matched by id) judged from dump_root, then
 * cts_audit_finish. Unreadable cases are reported on err and counted in a->nerrors. */
void cts_audit_results(cts_audit *a, const cts_case *const *cases, size_t ncases,
                       const cts_result_list *results, const char *dump_root, FILE *err);
/* Sorts the rows and their samples (for percentiles). */
void cts_audit_finish(cts_audit *a);
void cts_audit_free(cts_audit *a);

/* Summary numbers of one row. */
typedef struct {
    int64_t n;
    double ulp_max, ulp_mean, ulp_p99, bound_max, bound_mean, bound_p99, rel_max, rel_mean,
        rel_p99;
    double share[CTS_AUDIT_STANDARDS];  /* fraction of judged elements meeting each standard */
} cts_audit_stats;

void cts_audit_row_stats(const cts_audit_row *row, cts_audit_stats *s);
/* p-quantile (0..1) of sorted values, nearest rank. */
double cts_quantile_sorted(const double *x, size_t n, double p);

/* Markdown: one row per op x dtype x cubeMathType x path x metric, one column per product. */
void cts_audit_write_markdown(FILE *f, const cts_audit *a);
/* CSV: one line per op x dtype x cubeMathType x path x product with every metric. */
void cts_audit_write_csv(FILE *f, const cts_audit *a);

/* ---- .npy reading (audit_npy.c) ---- */

typedef struct {
    int rank;
    int64_t dims[8];
    int64_t numel;
    double *data;                       /* numel values, C order, widened to double */
} cts_npy_array;

/* Reads a NumPy 1.0/2.0 file of '<f2', '<f4' or '<f8' (C order). 0, or -1 with a message. */
int cts_npy_read(const char *path, cts_npy_array *out, char *err, size_t errlen);
void cts_npy_array_free(cts_npy_array *a);

#endif

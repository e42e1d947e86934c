/* The report stage: the audit of a run's results and report.html. */
#ifndef ACLCTS_CONFORMANCE_REPORT_REPORT_H_
#define ACLCTS_CONFORMANCE_REPORT_REPORT_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check/check.h"
#include "suite/suite.h"
#include "results/results.h"

/* The precision audit: per op x dtype x numerics key x computation path x product, the
 * distribution of the element errors of a run (ULP against the correctly rounded value, units of
 * the `bound` tolerance, relative error), the share of elements meeting each named standard and
 * the run-to-run spread. Built from the result records alone: each case's worker gathered the
 * per-element statistics while its tolerance check judged the elements (cts_elem_stats in the
 * verdict, serialized in results.jsonl), with the same tolerance code, so ambiguous and
 * uncheckable elements count as they do there. No dump is read and nothing is recomputed. */

/* ULP histogram bins of the tables and pictures: 0, 1, 2, 3-4, 5-8, 9-16, 17-64, 65-256, >256
 * (inf: non-finite class); exact unions of the half-octave bins for integer ULPs. */
#define CTS_AUDIT_BINS 9
extern const char *const cts_audit_bin_names[CTS_AUDIT_BINS];
/* The named standards counted per element (tolerance names of the suite format). */
#define CTS_AUDIT_STANDARDS CTS_STAT_STANDARDS
extern const char *const cts_audit_standards[CTS_AUDIT_STANDARDS];

typedef struct {
    char op[32], dtype[16], path[32], product[24];
    char numerics[64];                  /* the op's numerics key; "" when it has none */
    size_t ncases, nnondet;             /* cases judged; of them not promised deterministic */
    int64_t n, skipped;                 /* judged elements; uncheckable ones (not judged) */
    double sum[CTS_STAT_METRICS], max[CTS_STAT_METRICS];
    int64_t hist3[CTS_STAT_METRICS][CTS_STAT_BINS]; /* half-octave bins (check/check.h) */
    int64_t meets[CTS_AUDIT_STANDARDS];
    int64_t hist[CTS_AUDIT_BINS];       /* ULP, coarse bins above */
    double spread_ulp;                  /* max over the non-deterministic cases' repeats */
} cts_audit_row;

/* Error map of one output plane of a failing case (the plane holding its worst element). */
typedef struct {
    char case_id[256], output[16], status[16];
    int64_t h, w, plane;                /* plane: index over the leading dims */
    double *bound_units;                /* h*w, row-major; block maxima repeated over blocks */
    double worst;
} cts_audit_map;

#define CTS_AUDIT_MAX_MAPS 6

/* Bound-unit histogram bins of the pictures: exact 0, (0, 2^-10], one per octave up to
 * (1/2, 1], then (1, 2], (2, 4], > 4 and inf/NaN. The pass limit 1 is the upper edge of bin
 * CTS_AUDIT_BOUND_PASS_LAST; half-octave bins never straddle a power of two, so the coarsening
 * is exact. */
#define CTS_AUDIT_BOUND_BINS 16
#define CTS_AUDIT_BOUND_PASS_LAST 11
int cts_audit_bound_bin(int stat_bin);
/* Upper edge of coarse bound bin b as a power of two (bins 1..13: 2^(b-11)). */
int cts_audit_bound_bin_exp(int b);

/* What the results hold for one op x dtype x numerics key x product, judged or not: why a
 * product has no numbers in a row (another path, an expected error status, no case). */
typedef struct {
    char op[32], dtype[16], product[24];
    char numerics[64];
    size_t ncases, nnumeric, nerror_status;
} cts_audit_cover;

typedef struct {
    cts_audit_row *rows;
    size_t nrows, cap;
    cts_audit_cover *covers;            /* every op x dtype x numerics key x product seen */
    size_t ncovers, cover_cap;
    cts_audit_map maps[CTS_AUDIT_MAX_MAPS]; /* the first failing cases (by id) */
    size_t nmaps;
    size_t ncases;                      /* cases with element statistics */
    size_t nerrors;                     /* records with judged elements but no statistics */
} cts_audit;

/* Adds one result record: its element statistics to the row of its op x dtype x numerics key
 * x path x product, its spread, and its error grid when it failed. Records without judged
 * elements add nothing; records with judged elements but no statistics (written by an aclcts
 * before they existed) are counted in a->nerrors. */
void cts_audit_add_result(cts_audit *a, const cts_result *r);
/* Every result, in case-id order (so the sums do not depend on the order of the file), then
 * cts_audit_finish. Records without statistics are reported on err. */
void cts_audit_results(cts_audit *a, const cts_result_list *results, FILE *err);
/* Sorts the rows. */
void cts_audit_finish(cts_audit *a);
void cts_audit_free(cts_audit *a);

/* Summary numbers of one row. p99 values are read from the half-octave histograms: an upper
 * bound of the true 99th percentile, at most sqrt(2) times it (cts_stat_quantile). */
typedef struct {
    int64_t n;
    double ulp_max, ulp_mean, ulp_p99, bound_max, bound_mean, bound_p99, rel_max, rel_mean,
        rel_p99;
    double share[CTS_AUDIT_STANDARDS];  /* fraction of judged elements meeting each standard */
} cts_audit_stats;

void cts_audit_row_stats(const cts_audit_row *row, cts_audit_stats *s);

/* The products of the results, in name order, and per product the cases with judged numbers
 * and the cases expecting an error status (for the columns' headers). Returns the count. */
int cts_audit_products(const cts_audit *a, const char *names[16], size_t numeric[16],
                       size_t error_status[16], size_t cases[16]);
/* Why a row of op x dtype x numerics key on path has no numbers for product: "other path",
 * "error status" or "no case". */
const char *cts_audit_gap_reason(const cts_audit *a, const cts_audit_row *row,
                                 const char *product);

/* Markdown: per op x dtype x numerics key x path a few rows (elements; bound units max / p99 /
 * mean; ULP max / p99; relative max / p99; shares of the named standards; spread when any case
 * was not promised deterministic), one column per product; infinite values are footnoted and
 * a column without numbers says why. */
void cts_audit_write_markdown(FILE *f, const cts_audit *a);
/* CSV: one line per op x dtype x numerics key x path x product with every metric. */
void cts_audit_write_csv(FILE *f, const cts_audit *a);

/* ---- the audit in the vendor's precision standards (standard_audit.c, standard_write.c) ----
 * Each standard (suite.h: cts_standard, a data file) judges every output of every case with
 * judged elements from a --dump of the run: the device's values against the golden (the exact
 * value rounded to double: the standards compare with a higher-precision result), for the
 * benchmark methods also a benchmark
 * device's values on the same inputs (the dump of another run). Results per op x dtype x
 * numerics key x product, beside aclcts's own bound, with the cases and elements where a
 * standard and the bound disagree. */

#define CTS_STD_METRICS 5
#define CTS_STD_MAX 8
#define CTS_STD_EXAMPLES 4

/* Names of a method's metrics (NULL-terminated, at most CTS_STD_METRICS). */
const char *const *cts_std_metric_names(cts_std_method m);

/* Why a standard did not judge an output: an index of its not_applicable entries, or one of
 * these. */
enum { CTS_NA_NO_RULE = CTS_STD_MAX_NA, CTS_NA_NO_BENCH, CTS_NA_KINDS };

typedef struct {
    char op[32], dtype[16], numerics[64], product[24];
    size_t cases[CTS_STD_MAX], pass[CTS_STD_MAX], unjudged[CTS_STD_MAX];
    size_t na[CTS_STD_MAX][CTS_NA_KINDS];    /* unjudged outputs by why */
    double worst_margin[CTS_STD_MAX];        /* over the row's outputs; NaN none */
    double worst_m[CTS_STD_MAX][CTS_STD_METRICS];
    char worst_case[CTS_STD_MAX][256];
} cts_std_row;

/* An element (index >= 0) or a case (index -1) one judgement accepts and the other refuses. */
typedef struct {
    char case_id[256], output[16];
    int64_t index;
    double got, golden, bound_units, metric; /* metric: the standard's per-element value, or
                                                the case's margin */
} cts_std_example;

/* One output's verdicts, held until every case is judged (standard_audit.c). */
typedef struct cts_std_judged cts_std_judged;

typedef struct {
    const cts_standard *std;               /* the standards audited (std[k]) */
    int nstd;
    int bound;                             /* index of the `aclcts` standard, or -1 */
    cts_std_row *rows;
    size_t nrows, cap;
    /* per standard, [0]: it accepts what the bound refuses, [1]: the reverse */
    int64_t elem_disagree[CTS_STD_MAX][2], case_disagree[CTS_STD_MAX][2];
    cts_std_example elem_ex[CTS_STD_MAX][2][CTS_STD_EXAMPLES];
    cts_std_example case_ex[CTS_STD_MAX][2][CTS_STD_EXAMPLES];
    size_t noutputs, nmissing, nbench_missing;
    size_t na[CTS_STD_MAX][CTS_NA_KINDS];    /* unjudged outputs by why, over every row */
    const char *bench_label;               /* what the benchmark device was, or NULL */
    FILE *outputs_csv;                     /* NULL, or where each output's verdicts go, one
                                              line per output x standard (header first:
                                              cts_std_outputs_csv_header) */
    cts_std_judged *judged;                /* judged outputs not yet added (any case order) */
    size_t njudged, judged_cap;
} cts_std_audit;

/* Judges the outputs of every record with judged elements from dump_dir/<id>/ (bench_dir:
 * the benchmark device's dump, or NULL), then cts_std_audit_finish. Cases without a dump are
 * counted in nmissing and named on err. 0, or -1 when dump_dir cannot be read. */
int cts_std_audit_run(cts_std_audit *a, const cts_result_list *res, const char *dump_dir,
                      const char *bench_dir, FILE *err);
/* One record's outputs judged from dump_dir/<id>/ as above, held: an audit that streams judges
 * each case as it ends (and may then remove its dump), in any order. */
void cts_std_audit_case(cts_std_audit *a, const cts_result *r, const char *dump_dir,
                        const char *bench_dir, FILE *err);
/* Adds the held outputs to the tables, examples and outputs_csv in case-id order (what the
 * audit says does not depend on the order cases ended in). */
void cts_std_audit_finish(cts_std_audit *a);
void cts_std_audit_free(cts_std_audit *a);
/* Markdown: each standard's source and edition, a table per op x dtype x numerics key x
 * product of each standard's passing cases and worst margin, and the disagreements with the
 * bound with examples. */
void cts_std_audit_markdown(FILE *f, const cts_std_audit *a);
/* CSV: one line per row x standard with its counts, worst margin and metrics. */
void cts_std_audit_csv(FILE *f, const cts_std_audit *a);
/* The header of the per-output CSV (cts_std_audit.outputs_csv). */
void cts_std_outputs_csv_header(FILE *f);

/* ---- waivers (waivers.c): those a run used or found expired, each field its own column ---- */

/* Whether a record is a waiver's: WAIVED, or the FAIL of check `waiver` (it expired). */
bool cts_is_waiver_record(const cts_result *r);

/* A waiver's record and the suite's fields of it (NULL or "" where the suite gave none). */
typedef struct {
    const char *case_id, *message;  /* the record's */
    cts_status status;
    const char *reason, *tracking, *owner, *expires;
} cts_waiver_row;

/* The failure a waiver accepted or, expired, failed with: the record's message after the
 * waiver's description ("waived (DESCRIPTION): ", "waiver expired on DATE (DESCRIPTION): "),
 * else the whole message (a status waiver's names its waiver in its own words). */
const char *cts_waiver_failure(const cts_waiver_row *w);
/* audit.md's "## Waivers": case, status, reason, tracking, owner, expires, failure ("none"). */
void cts_waivers_markdown(FILE *f, const cts_waiver_row *w, size_t n);
/* waivers.csv: the same columns, every field quoted. */
void cts_waivers_csv(FILE *f, const cts_waiver_row *w, size_t n);

/* report.html: one self-contained page (no network, no scripts, no external fonts) with the
 * verdict, the status counts and summary tables, waivers, failures with their repro lines, the
 * precision audit and pictures drawn by svg.c. All text is escaped. */

typedef struct {
    const char *title;               /* page title and heading */
    const char *verdict;             /* "CONFORMANT", "NOT CONFORMANT", or NULL (audit only) */
    const char *const *info_keys;    /* key/value lines of the header table (manifest facts) */
    const char *const *info_values;
    int ninfo;
    const cts_result *results;
    size_t nresults;
    const cts_audit *audit;          /* or NULL */
    const char *standards_md;        /* the standards' audit in Markdown, or NULL */
    const cts_waiver_row *waivers;   /* the waivers the run used or found expired */
    size_t nwaivers;
} cts_report;

/* 0, or -1 on a write error. */
int cts_report_html_write(FILE *f, const cts_report *r);

/* Markdown as aclcts writes it (headings, pipe tables, paragraphs) as escaped HTML. */
void cts_markdown_to_html(FILE *f, const char *md);

#endif

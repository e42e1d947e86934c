/* One finished case as the reports see it: the worker's verdict plus what the case was (suite,
 * op, dtype, cubeMathType, product, seed) and how to rerun it. Written to JSONL by a run, read
 * back by --resume and merge, so JUnit and the summary are made from the same records. */
#ifndef ACLCTS_CONFORMANCE_RESULTS_H_
#define ACLCTS_CONFORMANCE_RESULTS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "verdict.h"

typedef struct {
    cts_verdict v;
    char suite[128];
    char file[512];          /* suite file, repo-relative or absolute */
    char op[32];             /* "avgpool2d_backward", "grid_sampler2d_backward" */
    char dtype[16];          /* suite names: float32, float16, bfloat16, float64 */
    int cube_math_type;      /* -1 for the grid sampler (no such parameter) */
    char product[24];
    uint64_t seed;
    bool deterministic;      /* the case asked for a deterministic computation */
    char backend[64];
    char contract[16];       /* the contract the run judged against ("doc" unless told) */
    char aclcts_version[32]; /* the aclcts that wrote the record */
    char repro[2048];        /* non-pass only: the command line that reruns just this case */
    char log[2048];          /* non-pass only: tail of the worker's stdout and stderr */
} cts_result;

typedef struct {
    cts_result *r;
    size_t count, cap;
} cts_result_list;

void cts_result_list_push(cts_result_list *l, const cts_result *r);
void cts_result_list_free(cts_result_list *l);

/* The contract a run judges against when it is not told another; a run with --contract sets
 * cts_result.contract and cts_provenance.contract (the two places certify compares). */
#define CTS_DEFAULT_CONTRACT "doc"

/* The case part of a result (everything but the verdict, repro and log); contract
 * CTS_DEFAULT_CONTRACT and this build's version. */
void cts_result_from_case(cts_result *r, const cts_case *c, const char *file,
                          const char *backend);
const char *cts_op_id(ref_op op);          /* "avgpool2d_backward" */

/* FAIL, CRASH, TIMEOUT, ERROR, RESOURCE_ERROR: the statuses that make the exit code 1. */
bool cts_status_fails(cts_status s);

/* ---- JSONL (results_jsonl.c): one flat JSON object per line ----
 * Every number reads back bit for bit: finite doubles as %.17g, +-inf as +-1e999, NaN as null
 * (sign and payload not kept), integers exactly (uint64 included). Duplicate keys, arrays and
 * values of the wrong type are errors; unknown keys are ignored (newer writers). */

/* Writes one record and a newline, then fflush and fsync, so a kill -9 loses no finished case.
 * Returns 0 or -1 (errno set). */
int cts_jsonl_append(FILE *f, const cts_result *r);
/* Formats one record (no newline) into buf; returns the length it needed. */
size_t cts_jsonl_format(char *buf, size_t len, const cts_result *r);
/* Parses one line; 0 or -1 with a message in err. */
int cts_jsonl_parse(const char *line, cts_result *r, char *err, size_t errlen);
/* Reads every record of a file. A last line without a newline (a write cut by kill -9) is
 * ignored and its offset returned in *complete_len so the caller can truncate before appending.
 * Returns the number of bad lines (each reported to err as FILE:LINE: error: ...), or -1 when
 * the file cannot be opened. */
int cts_jsonl_read(const char *path, cts_result_list *out, long *complete_len, FILE *err);

/* ---- JUnit XML (results_junit.c) ---- */

/* One <testsuite> per suite, one <testcase> per result; FAIL is <failure>, CRASH/TIMEOUT/ERROR
 * are <error>, NOT_SUPPORTED and WAIVED are <skipped>. Returns 0 or -1. */
int cts_junit_write(FILE *f, const cts_result *r, size_t n);
/* Writes s with the five XML entities escaped and characters XML 1.0 forbids replaced by '?'. */
void cts_xml_escape(FILE *f, const char *s);

/* ---- summary (results_summary.c) ---- */

/* Status counts over all results, and the exit code they imply (0 or 1). */
typedef struct {
    size_t count[CTS_STATUS_COUNT];
    size_t total;
} cts_tally;

void cts_tally_results(const cts_result *r, size_t n, cts_tally *t);
int cts_tally_exit_code(const cts_tally *t);

/* Markdown: a table op x dtype x cubeMathType x product with the count per status, the worst
 * error in ULP and in bound units, then one repro line per failing case (at most max_repro,
 * 0 = all). */
void cts_summary_write(FILE *f, const cts_result *r, size_t n, size_t max_repro);
/* The console form: one line per op x dtype x product with the non-zero status counts and the
 * worst bound units, then the same totals and failing cases as summary.md. */
void cts_summary_console(FILE *f, const cts_result *r, size_t n, size_t max_repro);

#endif

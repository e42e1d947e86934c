/* The check stage: a case's verdict, the checks that fill it (status, poison, guards, tolerance,
 * determinism) and the per-element statistics it carries. */
#ifndef ACLCTS_CONFORMANCE_CHECK_CHECK_H_
#define ACLCTS_CONFORMANCE_CHECK_CHECK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "suite/suite.h"
#include "backend/backend.h"

/* The judgement of one case, as produced by the runner (possibly in a forked worker, so it is a
 * flat struct that crosses a pipe byte for byte) and consumed by the reports. */

typedef enum {
    CTS_PASS, CTS_FAIL, CTS_NOT_SUPPORTED, CTS_WAIVED, CTS_CRASH, CTS_TIMEOUT, CTS_ERROR,
    CTS_RESOURCE_ERROR,       /* the host lacked memory for the case: not run, or OOM-killed */
    CTS_UNDEFINED,            /* the contract defines no outcome: the call ran isolated, what it
                                 did is recorded, nothing judged (neither pass nor fail) */
    CTS_STATUS_COUNT
} cts_status;

const char *cts_status_name(cts_status s); /* "PASS", ... */
int cts_status_from_name(const char *name, cts_status *out);

/* Per-element error statistics of a case (all its judged outputs), gathered by the tolerance
 * check so the precision audit needs neither a dump nor a second reference computation. The
 * histograms count elements per half-octave bin of the error (check.h: bin layout). */
#define CTS_STAT_METRICS 3     /* ULP against the correctly rounded value, bound units, relative */
#define CTS_STAT_STANDARDS 3   /* ascend-thousandth, ascend-ten-thousandth, torch-default */
#define CTS_STAT_BINS 164
typedef struct {
    int64_t n;                              /* judged elements */
    int64_t skipped;                        /* REF_FLAG_UNCHECKABLE elements, not judged */
    double sum[CTS_STAT_METRICS], max[CTS_STAT_METRICS];
    int64_t meets[CTS_STAT_STANDARDS];      /* elements each named standard accepts */
    uint32_t hist[CTS_STAT_METRICS][CTS_STAT_BINS];
} cts_elem_stats;

/* Errors (bound units) over the plane of the worst element of a failing case, reduced to at
 * most CTS_GRID_MAX x CTS_GRID_MAX blocks (block maximum, as the report draws it) and coded on
 * a quarter-octave scale (check.h). rows == 0: none. */
#define CTS_GRID_MAX 96
typedef struct {
    char output[16];
    int64_t h, w, plane;                    /* plane: index over the leading dims */
    int32_t rows, cols;                     /* blocks of ceil(h/96) x ceil(w/96) elements */
    double worst;                           /* exact worst bound units of the plane */
    uint8_t code[CTS_GRID_MAX * CTS_GRID_MAX];
} cts_error_grid;

typedef struct {
    char case_id[256];
    cts_status status;
    char check[32];           /* failing check: status, errmsg, poison, inputs, guards, tolerance,
                                 determinism, expected-values, crash, timeout, setup; "" on pass */
    char message[1024];       /* one paragraph a person can act on */
    char status_reason[256];  /* the status model's reason sentence */
    int32_t expected_status, got_status;
    char path[32];            /* computation path judged (ref_path name) */
    /* numeric summary over every judged output element */
    int64_t nelems;
    double worst_ulp, worst_bound_units, worst_rel;
    char worst_output[16];
    int64_t worst_index;
    double worst_got, worst_exact;
    double spread_ulp;        /* max ULP between repeated runs (non-deterministic cases) */
    uint64_t output_hash;     /* FNV-1a over all output bytes of the first run */
    /* seconds: the whole case, data generation, device calls, the reference (the part of its
     * call not spent in the judge: avg-pool computes the next chunk while the judge reads one,
     * so only what the judge waits for counts), the checks (the judge included) */
    double t_total, t_gen, t_device, t_ref, t_check;
    /* CPU seconds of the same stages (the worker's threads and the children it waited for;
     * the judge's share of the reference's stream is its own thread's), which the machine's
     * load does not inflate as it does the wall seconds */
    double c_total, c_gen, c_device, c_ref, c_check;
    cts_elem_stats el;        /* per-element statistics for the precision audit */
    cts_error_grid grid;      /* error map of a failing case (CTS_FAIL only) */
} cts_verdict;

/* The per-element statistics a case carries for the precision audit (cts_elem_stats,
 * cts_error_grid in check.h): the bin layout of their histograms, adding elements, reading a
 * quantile back, and the code of the error grid. Shared by the worker (checks.c) and the audit.
 *
 * Histogram bins (one layout for ULP, bound units and relative error): bin 0 holds exact zeros,
 * bin 1 errors in (0, 2^-40], then one bin per half octave (2^((i-1)/2), 2^(i/2)] up to 2^40,
 * then (2^40, inf) and last inf/NaN. Half-open at the bottom so that an error <= 1 never shares
 * a bin with one > 1, and integer ULPs that are powers of two sit at a bin's upper edge. */

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

/* The checks of one case (DESIGN "Checks and tolerances"). Each returns true when it holds;
 * on failure it records the check name and a message a person can act on in the verdict, the
 * first failure of a case winning (cts_verdict_fail). */

/* Record status s with check name and message unless a failure is already recorded. */
void cts_verdict_fail(cts_verdict *v, cts_status s, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Status: got == expected; a mismatch the case's waiver lists becomes WAIVED with its reason. */
bool cts_check_status(const cts_case *c, int32_t expected, int32_t got, const char *reason,
                      const char *errmsg, cts_verdict *v);
/* On an error status aclGetRecentErrMsg must say something. */
bool cts_check_errmsg(int32_t got, const char *errmsg, cts_verdict *v);
/* Whole buffers (guards, storage) byte-identical to their pre-call poison: outputs of a failed
 * or empty call, and outputs the call was told not to compute. why: "status 161002" ... */
bool cts_check_poison(const cts_dev_tensor *d, const char *why, cts_verdict *v);
/* The storage of an input is what was sent. */
bool cts_check_input_unchanged(const cts_dev_tensor *d, cts_verdict *v);
/* Guard zones intact, and for outputs every storage element outside the view still poison. */
bool cts_check_guards(const cts_dev_tensor *d, cts_verdict *v);

/* One output to judge numerically. */
typedef struct {
    const char *name;
    ref_dtype dtype;
    int rank;
    const int64_t *dims;
    int64_t numel;
    const double *got;      /* numel, logical row-major (NULL when judged chunk by chunk with
                               cts_judge_chunk_got) */
    const ref_output *ref;  /* the reference's answers, or NULL (expected values only) */
    bool pairs;             /* its last dim holds pairs (its role's cts_tensor_role.pairs) */
} cts_judged_output;

/* Streaming judgement: one output judged chunk by chunk as the reference gives its answers, and
 * the chunks dropped. The judge keeps no per-element data: summaries, audit statistics, and the
 * error map of the plane holding the worst element (block maxima of the plane being judged). */
typedef struct cts_output_judge cts_output_judge;

/* Starts judging o (o->ref is not used) under tol and path: the tolerance when `tolerance`
 * (adding each element to st when given), the suite's expected values e when it has any. NULL
 * when out of memory. */
cts_output_judge *cts_judge_begin(const cts_tolerance *tol, const ref_path *path,
                                  const cts_judged_output *o, bool tolerance,
                                  const cts_expected_values *e, cts_elem_stats *st);
/* Judges the chunk's elements (they come in index order); ch NULL: every element against the
 * expected values alone (no reference). The device's values are the judged output's got. */
void cts_judge_chunk(cts_output_judge *j, const ref_chunk *ch);
/* The same with the device's values of the chunk's elements in got[0 ..] (chunk-relative): an
 * output judged without holding all its values (cts_judged_output.got NULL). */
void cts_judge_chunk_got(cts_output_judge *j, const ref_chunk *ch, const double *got);
/* FNV-1a (the record's output_hash) carried over n bytes from h. */
static inline uint64_t cts_fnv1a(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}
/* cts_fnv1a's value, taken without its serial chain from CTS_FNV1A_LONG bytes on where the CPU
 * has AVX-512 VBMI (fnv1a.c); the serial loop otherwise. */
enum { CTS_FNV1A_LONG = 1024 };
uint64_t cts_fnv1a_long(uint64_t h, const unsigned char *p, size_t n);
/* Whether cts_fnv1a_long takes n bytes without the serial chain (the CPU and the length). */
bool cts_fnv1a_long_wide(size_t n);
/* cts_judge_chunk_got that also carries *hash (cts_fnv1a) over the chunk's elements as stored:
 * raw holds them in index order, esize bytes each. The judge's own pass over the elements
 * hashes each as it reads it, so the hash's serial multiply chain runs beside that work: for
 * 2-byte elements, and for 4-byte ones where cts_fnv1a_long has no faster way. */
void cts_judge_chunk_hashed(cts_output_judge *j, const ref_chunk *ch, const double *got,
                            const unsigned char *raw, int esize, uint64_t *hash);
/* The verdicts (tolerance, then expected values) as cts_check_tolerance and
 * cts_check_expected_values give them; when o became the verdict's worst output, its error map
 * goes to *worst_map (may be NULL). Frees j. */
bool cts_judge_end(cts_output_judge *j, cts_verdict *v, cts_error_grid *worst_map);
/* Frees j without a verdict (the stream stopped). */
void cts_judge_abandon(cts_output_judge *j);

/* Whole outputs (the same judgement over one chunk). */

/* Numeric tolerance of every element under the case's policy; fills the verdict's worst-error
 * summary (nelems, worst_ulp, worst_bound_units, worst_rel, worst element) and adds every
 * element to the audit statistics v->el (when o->ref is given). */
bool cts_check_tolerance(const cts_tolerance *tol, const ref_path *path,
                         const cts_judged_output *o, cts_verdict *v);
/* A suite's `unjudged: N`: at most N elements over the case's outputs left unjudged by the
 * reference (v->el.skipped); max < 0 accepts any number. */
bool cts_check_unjudged(int64_t max, cts_verdict *v);
/* The error map of a failing case: bound units over the plane (last two dims) of o holding
 * element k, block maxima coded into g (check.h). */
void cts_error_grid_fill(const cts_judged_output *o, const ref_path *path, int64_t k,
                         cts_error_grid *g);
/* The suite's given constants (cyclic list) judged like exact values under the same policy. */
bool cts_check_expected_values(const cts_tolerance *tol, const ref_path *path,
                               const cts_judged_output *o, const cts_expected_values *e,
                               cts_verdict *v);
/* Determinism: the view of output d in a later run (label: "run 3", "1 thread") is bitwise
 * identical to run 1's. */
bool cts_check_identical(const cts_dev_tensor *first, const cts_dev_tensor *later,
                         const char *label, cts_verdict *v);
/* Largest ULP distance between the two runs' views of one output. */
double cts_spread_ulp(const cts_dev_tensor *first, const cts_dev_tensor *later);

/* Element k of out judged by interval (REF_FLAG_INTERVAL): the legal exact values [*lo, *hi]
 * (rounded outwards) and *wide, the primary value moved to the end of larger magnitude, whose
 * ref_bound is the element's bound. False for other elements. */
bool cts_interval(const ref_output *out, int64_t k, double *lo, double *hi, ref_value *wide);

#endif

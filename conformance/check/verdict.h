/* The judgement of one case, as produced by the runner (possibly in a forked worker, so it is a
 * flat struct that crosses a pipe byte for byte) and consumed by the reports. */
#ifndef ACLCTS_CONFORMANCE_VERDICT_H_
#define ACLCTS_CONFORMANCE_VERDICT_H_

#include <stdint.h>

typedef enum {
    CTS_PASS, CTS_FAIL, CTS_NOT_SUPPORTED, CTS_WAIVED, CTS_CRASH, CTS_TIMEOUT, CTS_ERROR,
    CTS_RESOURCE_ERROR,       /* the host lacked memory for the case: not run, or OOM-killed */
    CTS_STATUS_COUNT
} cts_status;

const char *cts_status_name(cts_status s); /* "PASS", ... */
int cts_status_from_name(const char *name, cts_status *out);

/* Per-element error statistics of a case (all its judged outputs), gathered by the tolerance
 * check so the precision audit needs neither a dump nor a second reference computation. The
 * histograms count elements per half-octave bin of the error (audit_stats.h: bin layout). */
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
 * a quarter-octave scale (audit_stats.h). rows == 0: none. */
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
    /* timings, seconds */
    double t_total, t_gen, t_device, t_ref, t_check;
    cts_elem_stats el;        /* per-element statistics for the precision audit */
    cts_error_grid grid;      /* error map of a failing case (CTS_FAIL only) */
} cts_verdict;

#endif

/* The judgement of one case, as produced by the runner (possibly in a forked worker, so it is a
 * flat struct that crosses a pipe byte for byte) and consumed by the reports. */
#ifndef ACLCTS_CONFORMANCE_VERDICT_H_
#define ACLCTS_CONFORMANCE_VERDICT_H_

#include <stdint.h>

typedef enum {
    CTS_PASS, CTS_FAIL, CTS_NOT_SUPPORTED, CTS_WAIVED, CTS_CRASH, CTS_TIMEOUT, CTS_ERROR,
    CTS_STATUS_COUNT
} cts_status;

const char *cts_status_name(cts_status s); /* "PASS", ... */
int cts_status_from_name(const char *name, cts_status *out);

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
} cts_verdict;

#endif

/* Running one case in-process: generate inputs, call the device through the backend, ask the
 * reference, apply the checks, fill the verdict. The worker module wraps this in a fork. */
#ifndef ACLCTS_CONFORMANCE_RUNNER_H_
#define ACLCTS_CONFORMANCE_RUNNER_H_

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "case.h"
#include "verdict.h"

typedef struct {
    int repeat;              /* 0: the case's own repeat */
    int threads;             /* OMP threads for the determinism cross-thread run (--jobs) */
    const char *dump_dir;    /* --dump DIR, or NULL */
    uint64_t max_memory;     /* host bytes a case may need (estimate); 0: no limit */
} cts_run_options;

/* For the emulated backend selects the case's product (ACLCTS_SOC) before aclInit; for a real
 * install reads aclrtGetSocName and returns NOT_SUPPORTED for cases of other products. */
void cts_run_case(const cts_backend *b, const cts_case *c, const cts_run_options *o,
                  cts_verdict *v);

#endif

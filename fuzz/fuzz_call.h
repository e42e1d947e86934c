/* One fuzzed operator call: the bytes decoded into a suite case (conformance/suite/suite.h) plus what a
 * suite cannot express (NULL first-phase out-pointers, the data seed). The same struct feeds the
 * run with oracles (run_call.c) and the describe mode (describe_call.c), so a finding prints as
 * exactly the call that was made. */
#ifndef ACLCTS_FUZZ_CALL_H_
#define ACLCTS_FUZZ_CALL_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "suite/suite.h"
#include "provider.h"

/* Per-tensor element budget of a decoded call (axes are drawn freely, then the largest ones
 * other than the channel axis are halved to fit), and the output size up to which the numeric
 * oracle runs (the determinism oracle runs at every size). */
#define FUZZ_MAX_NUMEL 16384
#define FUZZ_NUMERIC_MAX_NUMEL 256

typedef enum {
    FUZZ_VALUES_UNIFORM,  /* uniform in [-4, 4] (coordinates: [-1.25, 1.25]) */
    FUZZ_VALUES_INTS,     /* integers in [-8, 8] (coordinates: multiples of 1/4) */
    FUZZ_VALUES_SPECIAL,  /* uniform with NaN, ±Inf, ±0, huge and subnormal values mixed in */
    FUZZ_VALUES_WIDE,     /* magnitudes 2^-30 .. 2^30 */
    FUZZ_VALUES_COUNT
} fuzz_values;

typedef struct {
    cts_case c;
    bool workspace_size_null, executor_null;
    uint32_t data_seed;
    fuzz_values values;
} fuzz_call;

/* An operator's decoder (fuzz/ops/<op>/decode.c, linked into that op's target only): any bytes
 * give a call with every tensor <= FUZZ_MAX_NUMEL elements. */
typedef void (*fuzz_decoder)(fdp *p, fuzz_call *fc);
void fuzz_decode_op(fdp *p, fuzz_call *fc);

/* Shared pieces of the decoders (decode_common.c): a case of op with the header's fields. */
void fuzz_decode_header(fdp *p, fuzz_call *fc, const cts_op_driver *op);
/* dtype, format, NULL and view of tensor slot s, after its dims are set. natural: the format a
 * valid call uses. */
void fuzz_decode_tensor(fdp *p, fuzz_call *fc, int slot, ref_format natural);
/* dims[0..rank) each in [lo, hi]. */
void fuzz_decode_dims(fdp *p, int rank, int64_t lo, int64_t hi, int64_t *dims);
/* Elements of a shape (0 when a dim is <= 0), saturating. */
int64_t fuzz_numel(int rank, const int64_t *dims);
/* Halves the largest dims until the shape has at most max elements; axis `keep` (-1: none)
 * last, so a wide channel axis keeps its class. */
void fuzz_shrink(int rank, int64_t *dims, int64_t max, int keep);

/* Input values of slot s (numel doubles, malloc'd) from the call's seed and value kind. */
double *fuzz_input_values(const fuzz_call *fc, int slot, int64_t numel);

/* Runs the call through the selected backend and aborts with "ORACLE <name>: ..." on the first
 * oracle that fails. */
void fuzz_run_call(const fuzz_call *fc);

/* The call as a YAML suite case (a list item for suites/regressions_*.yaml). */
void fuzz_describe_call(const fuzz_call *fc, FILE *out);

/* The common body of the operator targets: decode, then describe (ACLCTS_FUZZ_DESCRIBE=1) or
 * run. */
int fuzz_one_input(fuzz_decoder decode, const uint8_t *data, size_t size);

#endif

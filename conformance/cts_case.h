/* The case: the data every stage of the harness reads, from the suite loader that makes it to
 * the reports. Its own header at the top of conformance/, below every stage, so that the
 * operators' drivers (ops/) and the suite stage (suite/) both include it and neither includes
 * the other's header for it. */
#ifndef ACLCTS_CONFORMANCE_CTS_CASE_H_
#define ACLCTS_CONFORMANCE_CTS_CASE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reference.h"

/* One expanded conformance case: everything needed to generate data, call the device, ask the
 * reference, and judge. Produced by suite_load + case_expand (from YAML), consumed by the
 * runner, the checks and the reports. Plain data; the strings are owned by the case. */

#define CTS_MAX_DIMS 8
#define CTS_MAX_TENSORS 5
#define CTS_MAX_PARAMS 12
#define CTS_ID_MAX 256

/* Where a value came from in a suite file (libyaml marks are 0-based; these are 1-based). */
typedef struct {
    const char *file;
    int line, column;
} cts_mark;

typedef enum {
    CTS_GEN_ONES, CTS_GEN_ZEROS, CTS_GEN_ARANGE, CTS_GEN_UNIFORM, CTS_GEN_NORMAL, CTS_GEN_INT,
    CTS_GEN_SPECIAL, CTS_GEN_VALUES
} cts_gen_kind;

typedef struct {
    cts_gen_kind kind;
    double a, b;          /* uniform [a,b], normal (mean a, std b), int [a,b] */
    double *values;       /* values: the list, repeated cyclically to fill */
    size_t nvalues;
} cts_datagen;

/* One tensor of the call; its slot and name are the operator's (its driver's tensor roles). */
typedef struct {
    const char *name;     /* "grad_output", "self", ... (static string) */
    bool is_output;
    bool null;            /* pass a NULL aclTensor* (null: [name]) */
    int rank;
    int64_t dims[CTS_MAX_DIMS];
    bool has_strides;     /* custom strides (elements) instead of contiguous */
    int64_t strides[CTS_MAX_DIMS];
    int64_t offset;       /* storage offset in elements */
    ref_dtype dtype;      /* normally the case dtype; `dtypes:` can override one tensor */
    ref_format format;    /* the driver's default for the rank unless the suite gives one */
    cts_datagen gen;      /* inputs only */
} cts_tensor;

/* One operator parameter (its driver's parameter table says which and of what kind): an
 * integer scalar in v[0] (bools 0 or 1), a double in real, or a list of len values passed as an
 * aclIntArray/aclBoolArray. */
typedef struct {
    bool null;            /* a list passed as a NULL pointer */
    int len;
    int64_t v[CTS_MAX_DIMS];
    double real;          /* CTS_PARAM_DOUBLE */
} cts_param;

struct cts_op_driver;

typedef enum {
    CTS_TOL_BOUND,              /* reference ref_bound per element (default) */
    CTS_TOL_ULP,                /* |got - correctly rounded| <= ulps ULP */
    CTS_TOL_ALLCLOSE,           /* |got - exact| <= atol + rtol*|exact| */
    CTS_TOL_SHARE,              /* Ascend "thousandth" family: share of elements within rel */
    CTS_TOL_DOCUMENTED          /* "documented-path": ref_bound without operand rounding, around
                                   the exact value of the documented cube operands (honoured) */
} cts_tol_kind;

typedef struct {
    cts_tol_kind kind;
    const char *name;           /* "bound", "ulp:2", "torch-default", "ascend-thousandth" ... */
    double ulps;
    double rtol, atol;
    double rel, min_share, small_threshold; /* SHARE: rel err limit, share, small-value thr. */
} cts_tolerance;

typedef struct {
    bool any;                   /* an expected value list was given for this output */
    double *values;             /* cyclic; one value = every element equals it */
    size_t nvalues;
} cts_expected_values;

typedef struct {
    char id[CTS_ID_MAX];        /* suite.case[.key=value...].product: stable, filterable */
    const char *suite;          /* suite name */
    const char *name;           /* case name */
    cts_mark mark;              /* where the case starts in its file */
    const struct cts_op_driver *op; /* the operator (conformance/ops/op_driver.h) */
    ref_dtype dtype;
    ref_product product;
    ref_spec spec;              /* which contract the expected status follows (default doc) */
    bool spec_fixed;            /* written for that contract (`spec:`): runs only under it */
    uint64_t seed;              /* suite seed (data seeded by seed, case id, tensor name) */

    int ntensors;
    cts_tensor t[CTS_MAX_TENSORS];

    /* The operator's parameters in the order of its driver's table. A scalar narrower than
     * int64_t in the prototype (cubeMathType: int8_t) holds only values the type can: the
     * loader refuses the others. */
    cts_param param[CTS_MAX_PARAMS];

    /* expectation */
    bool expect_status_model;   /* true: the reference status model decides */
    int32_t expect_status;      /* otherwise this code */
    cts_expected_values expect_values[CTS_MAX_TENSORS];
    cts_tolerance tolerance;    /* resolved for this case's dtype and numerics parameters */
    bool deterministic;         /* set ACL_OPT_DETERMINISTIC=1 and require bitwise repeats */
    int repeat;                 /* runs for determinism/spread (>= 1; --repeat overrides) */
    const char *waiver;         /* reason, or NULL */
    const char *waiver_tracking, *waiver_owner; /* the deviation's ticket and who owns it */
    const char *waiver_expires; /* "YYYY-MM-DD": from the day after, the waiver fails the case */
    int32_t waiver_status[4];   /* statuses the waiver accepts besides the expected one */
    int nwaiver_status;
    bool quick;                 /* member of the --quick subset */
    int64_t max_unjudged;       /* unjudged: N, elements the reference may leave unjudged
                                   (REF_FLAG_UNCHECKABLE) before the case fails; -1: any */
} cts_case;

/* The most cases a load expands (each about 2.6 KB: ~0.5 GB at the limit). A suite over it is
 * refused with its count before its cases are built, so memory is bounded whatever the
 * matrices multiply to (100 entries of 10^5 combinations once grew a list to 24 GB). */
#define CTS_MAX_CASES 200000

typedef struct {
    cts_case *cases;
    size_t ncases;
    size_t planned; /* cases the entries read so far expand to at most (combinations × products) */
    bool full;      /* planned passed CTS_MAX_CASES: no further entry is expanded */
} cts_case_list;

#endif

/* An operator as the harness sees it: one descriptor per operator (conformance/ops/<op>/), all
 * of them in one table (ops.c). Everything the shared stages need to know about an operator is
 * here, as data where it can be (tensors and their roles, parameters and how a suite spells
 * them) and as a few functions where it cannot (derived shapes, the ABI call). The reference
 * reads a case from its tensors and parameters as they are: the driver's tensor slots and
 * parameter indices are the reference's (reference_<op>.h).
 * The shared code names no operator: it walks this descriptor. docs/adding-an-operator.md says
 * how to write one. */
#ifndef ACLCTS_CONFORMANCE_OPS_OP_DRIVER_H_
#define ACLCTS_CONFORMANCE_OPS_OP_DRIVER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "cts_case.h"
#include "reference.h"

/* ---- tensors ---- */

typedef struct {
    const char *name;        /* suite name, "<name>_shape" its shape key: "grad_output" */
    const char *api_name;    /* the documents' and ATK's name: "gradOutput" */
    bool is_output;
    bool required;           /* the suite must give its shape */
    int shape_from;          /* slot a shape left open comes from (copied, or derived by
                                derive_shapes when `derived`); -1: none */
    bool derived;            /* derive_shapes computes it from other tensors and parameters */
    bool coordinates;        /* values are sampling coordinates around [-1, 1]: data default
                                uniform [-1.1, 1.1] (a little outside), fuzzed values in
                                quarter steps of [-1.25, 1.25] */
    bool shape_only;         /* an input whose values the reference does not read (only its
                                shape): the harness gives it none */
    bool pairs;              /* an output whose last dim holds pairs (x, y): an error map shows
                                the plane of the two dims before it, each pair side by side */
} cts_tensor_role;

/* ---- parameters (everything but tensors the first phase takes) ---- */

typedef enum {
    CTS_PARAM_INT,           /* int64_t, v[0] */
    CTS_PARAM_BOOL,          /* bool, v[0] 0 or 1 */
    CTS_PARAM_INTS,          /* aclIntArray: len values, or NULL */
    CTS_PARAM_BOOLS,         /* aclBoolArray: len values 0 or 1, or NULL */
    CTS_PARAM_DOUBLE         /* double, real (a `scales`-like argument; any finite value) */
} cts_param_kind;

typedef struct {
    const char *key;         /* suite key, and its name in show, dump and describe */
    const char *atk;         /* its name in the vendor's ATK files */
    cts_param_kind kind;
    bool required;           /* the suite must give it */
    bool nullable;           /* `null: [key]` passes a NULL array */
    const char *const *names; /* CTS_PARAM_INT: names read as 0, 1, ... (besides integers) */
    int nnames;
    const char *c_type;      /* CTS_PARAM_INT with a range: the prototype's narrower type */
    int64_t min, max;        /* ... and its range; min == max: the whole int64 range */
    bool numerics;           /* part of the numerics key: it chooses how the device computes */
    const char *tolerance_tag; /* numerics: a suite's tolerance selector DTYPE/<tag><value> */
    cts_param dflt;          /* the value a suite that leaves it out gets */
} cts_param_desc;

/* ---- the ABI call ---- */

/* What the first phase gets: the device tensors by slot (NULL for a null one), the arrays made
 * from list parameters by parameter index (NULL when null or not a list), the case for scalar
 * parameters, and the out-pointers (either may be NULL: a call the fuzzer makes). */
typedef struct {
    const cts_case *c;
    aclTensor *t[CTS_MAX_TENSORS];
    void *array[CTS_MAX_PARAMS];
    uint64_t *workspace_size;
    aclOpExecutor **executor;
} cts_call_args;

/* The two symbols of an aclnn operator; the second phase has one prototype for every op. */
typedef aclnnStatus (*cts_second_phase_fn)(void *workspace, uint64_t workspace_size,
                                           aclOpExecutor *executor, aclrtStream stream);

/* ---- coverage (coverage.h reads it) ---- */

#define COV_MAX_FACTORS 10
#define COV_MAX_LEVELS 8

typedef struct {
    const char *name;
    const char *levels[COV_MAX_LEVELS];
    int nlevels;
    bool numeric; /* only meaningful when the call computes (outcome "computes") */
} cov_factor;

typedef struct {
    int fa, la, fb, lb; /* la/lb -1: any level */
    const char *why;
} cov_rule;

/* A level that never computes anything: a numeric level cannot meet it. */
typedef struct {
    int factor, level;
    const char *why;
} cov_inert;

/* Levels every operator's model uses (coverage.h counts the pairs). */
#define COV_VIEW_LEVELS {"contiguous", "offset", "strided", "overlapping", "transposed"}, 5
#define COV_CHANNEL_LEVELS {"0", "1", "odd", "even", "around-2048"}, 5
#define COV_OUTCOME_LEVELS {"computes", "error", "nothing"}, 3
enum { COV_VIEW_CONTIGUOUS, COV_VIEW_OFFSET, COV_VIEW_STRIDED, COV_VIEW_OVERLAPPING,
       COV_VIEW_TRANSPOSED };
enum { COV_CH_0, COV_CH_1, COV_CH_ODD, COV_CH_EVEN, COV_CH_2048 };
enum { COV_OUT_COMPUTES, COV_OUT_ERROR, COV_OUT_NOTHING };

/* One level's bit (0 for -1: no level). */
static inline uint32_t cov_bit(int level) { return level < 0 ? 0 : 1u << level; }
/* float32, float16, bfloat16 (, float64 when with_double) as levels 0..3; -1 otherwise. */
int cov_dtype_level(ref_dtype dt, bool with_double);
/* The channel count's class (COV_CH_*), -1 for a negative count. */
int cov_channel_level(int64_t c);

/* A tensor's view classes (coverage.h cov_case_views): a padded stride at each dimension, a
 * storage offset, stride 0 (inputs only), and one permuted layout. */
typedef struct {
    const char *dims[4];       /* a rank-4 tensor's dims ("n", "c", "h", "w"); rank 3: the last 3 */
    int permuted;              /* the dim (of the four) the permuted layout moves */
    bool outermost;            /* it moves outermost, else innermost (channels-last) */
    const char *permuted_name; /* "channels-last" */
} cov_view_layout;
enum { COV_VC_PAD0, COV_VC_OFFSET = 4, COV_VC_BROADCAST, COV_VC_PERMUTED, COV_VIEW_CLASSES };

typedef struct {
    const cov_factor *factors;
    int nfactors;
    int outcome;                 /* the factor with the shared outcome levels (coverage.h) */
    const cov_rule *rules;       /* pairs the contract rules out */
    int nrules;
    const cov_inert *inert;
    int ninert;
    /* The levels case c hits, given the shared facts about it (coverage.h) and its status
     * query q (cts_status_query). */
    void (*levels)(const cts_case *c, const ref_status_query *q, int outcome, uint32_t views,
                   uint32_t lv[]);
    const cov_view_layout *views; /* per tensor slot */
} cov_model;

/* ---- the descriptor ---- */

typedef struct cts_op_driver {
    const char *name;            /* suite `op:`, ids, results: "avgpool2d_backward" */
    const char *api;             /* "aclnnAvgPool2dBackward" (ATK's aclnn_name drops "aclnn") */
    ref_op ref_op;               /* the reference's name for it */
    const char *first_phase;     /* symbols: "aclnnAvgPool2dBackwardGetWorkspaceSize" */
    const char *second_phase;    /* "aclnnAvgPool2dBackward" */

    int ntensors;
    const cts_tensor_role *tensors;
    /* Every tensor's first dim is the batch and batch n of an output depends only on batch n
     * of the inputs: the reference can answer a case a few batches at a time (a case whose
     * inputs would not fit as doubles at once). */
    bool batch_major;
    int nparams;
    const cts_param_desc *params;

    /* The format of a tensor of this rank that a suite leaves open. */
    ref_format (*default_format)(int rank);
    /* Suite: once every key is read, before shapes are derived: parameters whose default
     * depends on others (param_set: what the suite gave). NULL: none. */
    void (*complete)(cts_case *c, const bool *param_set);
    /* The shapes of `derived` tensors from the others and the parameters (NULL when no tensor
     * is derived). */
    void (*derive_shapes)(cts_case *c);

    /* The first phase through the backend's symbol `fn`. */
    aclnnStatus (*call)(void *fn, const cts_call_args *a);

    /* Why an output the call does not compute must stay untouched (a check's message), or
     * NULL when every output is computed. */
    const char *not_computed;
    /* Whether the contract promises bitwise repeats of this case when it asks for them
     * (ACL_OPT_DETERMINISTIC): the fuzzers' determinism oracle. */
    bool (*determinism_promised)(const cts_case *c);

    const cov_model *coverage;
    /* `aclcts detect-contract`: a suite of calls whose first-phase status tells the contracts
     * apart (docs/contract.md), or NULL. */
    const char *contract_probes;
} cts_op_driver;

/* ---- the table (ops.c) ---- */

extern const cts_op_driver *const cts_ops[];
extern const int cts_nops;
/* The driver of a suite's `op:` name, or NULL. */
const cts_op_driver *cts_op_named(const char *name);
/* The driver of a reference op. */
const cts_op_driver *cts_op_of(ref_op op);
/* Its position in cts_ops (the backend's symbols are bound in that order). */
int cts_op_index(const cts_op_driver *op);
/* "avgpool2d_backward, grid_sampler2d_backward" into buf. */
void cts_op_names(char *buf, size_t n);

/* ---- helpers over a descriptor (op_driver.c) ---- */

/* Slot of a tensor name, -1 when the op has none; parameter index of a key, -1 likewise. */
int cts_op_tensor_slot(const cts_op_driver *op, const char *name);
int cts_op_param_index(const cts_op_driver *op, const char *key);
/* The index of the parameter a tolerance selector names (its tolerance_tag), -1 when none. */
int cts_op_tolerance_param(const cts_op_driver *op);
/* A case of op with every tensor role and parameter default in place. */
void cts_case_init_op(cts_case *c, const cts_op_driver *op);
/* The numerics key of a case: "key=value" of each numerics parameter, ';'-joined (a CSV cell
 * and a JSON string as it is); "" when the op has none. */
void cts_numerics_key(const cts_case *c, char *buf, size_t n);
/* Scalars of a case by parameter index. */
static inline int64_t cts_param_int(const cts_case *c, int i) { return c->param[i].v[0]; }
static inline bool cts_param_bool(const cts_case *c, int i) { return c->param[i].v[0] != 0; }
static inline double cts_param_real(const cts_case *c, int i) { return c->param[i].real; }
/* A scalar kind (one value, never NULL), as opposed to a list. */
static inline bool cts_param_scalar(cts_param_kind k)
{
    return k == CTS_PARAM_INT || k == CTS_PARAM_BOOL || k == CTS_PARAM_DOUBLE;
}

#endif

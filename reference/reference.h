/* aclcts reference: exact models of the operators (REF_OPERATORS below), their per-element
 * error bounds, and the expected-status model. Each operator's own calls and parameter indices
 * are in its header reference_<op>.h. Written from the operator documents
 * and spec/facts.md alone; it never includes kernels/. No I/O, no global state beyond MPFR's
 * per-thread exponent limits. All tensors here are contiguous, row-major, values as double
 * (every supported dtype is exactly representable in double). */
#ifndef ACLCTS_REFERENCE_H_
#define ACLCTS_REFERENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- vocabulary ---- */

/* The operators the reference models, one line each: X(ENUM, name) gives REF_OP_<ENUM>, the
 * model table's entry ref_model_<name> (<name>/<name>_model.c, common/models.c) and the public
 * header of its own calls and parameter indices, reference_<name>.h. The rest of this header
 * and reference/common/ name no operator. */
#define REF_OPERATORS(X) \
    X(AVGPOOL2D_BACKWARD, avgpool2d_backward) \
    X(GRID_SAMPLER2D_BACKWARD, grid_sampler2d_backward) \
    /* one line per operator, above this one */

#define REF_OP_ENUM_(E, name) REF_OP_##E,
typedef enum { REF_OPERATORS(REF_OP_ENUM_) REF_OP_COUNT } ref_op;
#undef REF_OP_ENUM_

/* The name of an operator ("avgpool2d_backward"), NULL for an unknown one. */
const char *ref_op_name(ref_op op);

/* Numeric values equal the CANN aclDataType codes (facts §1) so a harness can pass them
 * through; the reference defines them itself to stay independent of kernels/. */
typedef enum {
    REF_DT_FLOAT = 0, REF_DT_FLOAT16 = 1, REF_DT_INT8 = 2, REF_DT_INT32 = 3, REF_DT_UINT8 = 4,
    REF_DT_INT16 = 6, REF_DT_UINT16 = 7, REF_DT_UINT32 = 8, REF_DT_INT64 = 9, REF_DT_UINT64 = 10,
    REF_DT_DOUBLE = 11, REF_DT_BOOL = 12, REF_DT_STRING = 13, REF_DT_COMPLEX64 = 16,
    REF_DT_COMPLEX128 = 17, REF_DT_BF16 = 27, REF_DT_UNDEFINED = -1
} ref_dtype;

/* Same for aclFormat. */
typedef enum {
    REF_FMT_UNDEFINED = -1, REF_FMT_NCHW = 0, REF_FMT_NHWC = 1, REF_FMT_ND = 2,
    REF_FMT_NC1HWC0 = 3, REF_FMT_FRACTAL_Z = 4, REF_FMT_NCL = 47
} ref_format;

typedef enum {
    REF_PRODUCT_ASCEND910,    /* Atlas training products */
    REF_PRODUCT_ASCEND910B,   /* Atlas A2 training/inference products */
    REF_PRODUCT_ASCEND910_93, /* Atlas A3 training/inference products */
    REF_PRODUCT_ASCEND310P,   /* Atlas inference products */
    REF_PRODUCT_ASCEND310B,   /* Atlas 200I/500 A2 inference products */
    REF_PRODUCT_ASCEND950,    /* Ascend 950PR / 950DT */
    REF_PRODUCT_COUNT
} ref_product;

const char *ref_product_id(ref_product p);           /* "ascend910b" */
int ref_product_from_id(const char *id, ref_product *out); /* 0 ok, -1 unknown */
const char *ref_dtype_name(ref_dtype dt);             /* "FLOAT16" ... */
const char *ref_format_name(ref_format f);            /* "NCHW" ... */

/* ---- rounding ---- */

/* x (any double) correctly rounded to dtype (FLOAT16, BF16, FLOAT, DOUBLE): nearest-even,
 * subnormals, overflow to infinity, NaN kept. Result returned as double. */
double ref_round_to(double x, ref_dtype dt);
/* x[i] = ref_round_to(x[i], dt) for i < n: one call for a whole array (data generation rounds
 * every element of a FLOAT16 or BF16 tensor). */
void ref_round_to_array(double *x, int64_t n, ref_dtype dt);
/* Distance in ULPs of dtype between got and want (both representable in dtype); 0 when equal,
 * INFINITY when exactly one is NaN or they are infinities of different sign. */
double ref_ulp_distance(double got, double want, ref_dtype dt);
/* Unit roundoff of a dtype (2^-11 FLOAT16, 2^-8 BF16, 2^-24 FLOAT, 2^-53 DOUBLE). */
double ref_unit_roundoff(ref_dtype dt);

/* ---- problems ---- */

/* How the device computes: decides the error bound (DESIGN "Checks and tolerances"). */
typedef enum {
    REF_PATH_VECTOR,   /* compute in FP32 (DOUBLE in double), round once to the output dtype */
    REF_PATH_CUBE      /* operands rounded to `operand` dtype, products accumulated in FP32 */
} ref_path_kind;

typedef struct {
    ref_path_kind kind;
    ref_dtype operand;   /* CUBE: FLOAT16, BF16, FLOAT (kept) or REF_DT_UNDEFINED+HF32 below */
    bool hf32;           /* CUBE: operands rounded to HF32 (hf32_bits significant bits) */
    int hf32_bits;       /* default 11 (facts §5, derived) */
    const char *name;    /* "vector-fp32", "cube-fp16", "cube-hf32", ... for reports */
    /* The vendor's lowerings (docs/contract.md "Numerics"). CUBE with premul: each term is
     * g·w rounded to FP32 (FP16 when premul_fp16), w = 1/div in that format, then rounded to
     * the operand format. result_fp16: the sum is rounded to FP16 before the output dtype.
     * VECTOR with operand FLOAT16 ("divide-fp16"): g and div rounded to FP16, then g/div. */
    bool premul, premul_fp16, result_fp16;
    /* Grid sampler: the format the device rounds its unnormalised coordinate to, by its unit
     * roundoff, half its least subnormal and its largest finite (950's SIMT kernel on FLOAT16
     * and BF16 from 9.1); 0: the coordinate stays in the working format. */
    double coord_u, coord_eta, coord_max;
} ref_path;

/* ---- per-element answers ---- */

enum {
    REF_FLAG_AMBIGUOUS = 1u << 0, /* several legal values: see alternatives */
    REF_FLAG_NONFINITE = 1u << 1, /* exact value is NaN or infinite (IEEE propagation) */
    REF_FLAG_UNCHECKABLE = 1u << 2, /* no finite interval bounds the legal values (a non-finite
                                      or overflowing contribution of a grid point whose branch
                                      is unknown):
                                      a harness must skip the element, and say so */
    REF_FLAG_OPERAND_OVERFLOW = 1u << 3, /* the path rounds an operand to a narrower format in
                                      which it overflows (e.g. |g| > 65504 on FP16 cube
                                      operands): a non-finite result is legal */
    REF_FLAG_RANGE = 1u << 4,      /* an intermediate of the path leaves its working format's
                                      range (FP32 for FLOAT/FLOAT16/BF16, double for DOUBLE): a
                                      product or partial sum past the largest finite value, an
                                      overflow times a zero factor, or a cube weight 1/d that
                                      rounds to 0 against an infinite gradient (∞·0): any
                                      non-finite result is legal too */
    REF_FLAG_INTERVAL = 1u << 5    /* the legal values are too many to list (a grid point whose
                                      branch is unknown): judged within the interval
                                      [v + ival[2k], v + ival[2k+1]] widened by ref_bound */
};
#define REF_MAX_ALTS 64
/* lo = (exact − hi) rounded to nearest-even with REF_LO_BITS significant bits, then to a double
 * (±2^-1074 where that would give 0: a normal hi may be a narrower dtype's midpoint with exact −
 * hi below the subnormals): hi + lo is within 2^-84·|exact| of exact, sign(lo) = sign(exact − hi)
 * always, and the pair is canonical (the fast path and pure MPFR give it bitwise). */
#define REF_LO_BITS 32

typedef struct {
    double hi, lo;        /* exact value as a double-double (hi = exact rounded to nearest; lo
                             see REF_LO_BITS); NaN/±Inf in hi when REF_FLAG_NONFINITE */
    double sum_abs;       /* Σ|terms| of the expanded sum, an upper bound (a few ULPs above),
                             in units of 2^sum_exp */
    int64_t nterms;       /* term count */
    int32_t nops;         /* longest chain of roundings a device needs for one term (bound) */
    int32_t sum_exp;      /* 0, or REF_SUM_EXP where Σ|terms| passes the double range (terms
                             near DBL_MAX: two gradients of DBL_MAX on weights 1/2) */
    double coord_err;     /* grid sampler: |∂value/∂coordinate| · coordinate error scale, else 0 */
    double min_weight;    /* avg-pool: min |1/divisor| over the terms (the cube rounds it to the
                             operand format, subnormal for large divisors in FP16), else 0 */
    double under_mag;     /* Σ over the terms of the largest product of factors that may follow
                             an underflowed partial product (each ≥ 1; 0: nterms, no such
                             factor), times REF_UNDER_SCALE: an FP32 val·w below 2^-126 times
                             a gradient of 2^127, a double one times |val·g| up to 2^2048 */
} ref_value;
/* under_mag's unit: a product of factors up to ~2^2100 (DBL_MAX·DBL_MAX·scale, summed) fits a
 * double only scaled down; each term's product is formed from its first factor times this
 * (from 2^-1070, 16 subnormal quanta: a rounding errs by at most 2^-5 relatively) and the
 * bound takes it back with a margin of 1/4 for up to four such roundings. */
#define REF_UNDER_SCALE 0x1p-1070
/* sum_abs's exponent where Σ|terms| passes the double range: sums up to 2^1088 stay finite,
 * past which γ·Σ|terms| itself would (the bound is then infinite in any unit). */
#define REF_SUM_EXP 64

/* One output tensor's answers, or a chunk of them (ref_chunk). alt_first/alt_count index
 * `alts` for ambiguous elements. */
typedef struct {
    int64_t numel;
    ref_value *v;          /* numel */
    uint8_t *flags;        /* numel */
    int64_t *alt_first;    /* numel; -1 when none */
    int32_t *alt_count;    /* numel */
    ref_value *alts;       /* every legal value of ambiguous elements, primary included */
    int64_t nalts;
    double *ival;          /* 2·numel or NULL: REF_FLAG_INTERVAL elements' offsets [lo, hi]
                              from v (lo ≤ 0 ≤ hi, rounded outwards) */
    float *plain_hi;       /* numel or NULL (a stream's chunk may carry it): v[i].hi where
                              element i has no flag, lo 0 and a hi that is a finite float (the
                              exact value is one float), NaN otherwise; 4 bytes an element where
                              v is 64, so a reader testing got == exact of a FLOAT, FLOAT16 or
                              BF16 output (values of a float) reads a sixteenth as much */
} ref_output;

void ref_output_free(ref_output *o);

/* The exact value v correctly rounded to dt (FLOAT16, BF16, FLOAT, DOUBLE), from hi and the sign
 * of lo (no double rounding). */
double ref_round_value(const ref_value *v, ref_dtype dt);

typedef struct {
    bool force_mpfr;       /* skip the double-double fast path (Ziv): for tests and benches */
    int threads;           /* 0 = OpenMP default */
    ref_path path;         /* the device's path; grid sampler coordinate errors depend on it */
    /* statistics out */
    int64_t fast_hits, mpfr_fallbacks;
} ref_options;

/* ---- tolerance (DESIGN `bound` policy) ---- */

/* |got − exact| allowed for one element: u_out·|exact| + γ(n, u_acc)·Σ|terms| + u_op·Σ|terms|
 * (+ the coordinate term for the grid sampler). out_dtype is the output tensor's dtype. */
double ref_bound(ref_dtype out_dtype, const ref_path *path, const ref_value *v);
/* ref_bound's constants for one output dtype and path (the formats' unit roundoffs and smallest
 * subnormals, which roundings the path makes), worked out once for every element of an output:
 * ref_bound_planned(plan, v) == ref_bound(out_dtype, path, v), bit for bit. */
typedef struct {
    double u_out, eta_out, u_acc, eta_acc;
    bool operand;            /* operand rounding: a cube path, or divide-fp16 */
    bool weight_eta;         /* the weight's subnormal term eta_w / min_weight applies */
    double u_w0, eta_w;      /* the weight's rounding: u_w0 + eta_w / min_weight */
    double u_g, eta_g;       /* the gradient's rounding */
    bool result_fp16;
    double u_16, eta_16;
    double eta_under;        /* eta_acc per unit of under_mag: eta_acc / REF_UNDER_SCALE · 5/4 */
    double eta_under_sub;    /* eta_under·2^-1074 when that is a normal double, else 0 */
} ref_bound_plan;
void ref_bound_plan_init(ref_bound_plan *b, ref_dtype out_dtype, const ref_path *path);
double ref_bound_planned(const ref_bound_plan *b, const ref_value *v);
/* Whether got = ±inf is a legal result for the finite exact value hi + lo whose ref_bound is
 * `bound`: the device's value before the output's rounding, within bound − u_out·|hi| of the
 * exact one, may reach the output dtype's overflow threshold (its largest finite value plus
 * half an ULP: FP16 65520, BF16 (2 − 2^-8)·2^127) on got's side. False for a finite got. */
bool ref_bound_reaches_inf(ref_dtype out_dtype, double hi, double lo, double bound, double got);
/* True when rounding |x| to the path's operand format (cube paths) overflows to infinity. */
bool ref_operand_overflows(const ref_path *path, double x);

/* ---- status model ---- */

typedef enum {
    REF_SPEC_DOC,        /* the documents */
    REF_SPEC_VENDOR,     /* the vendor's code, release 9.0 (ops-nn/ops-cv v9.0.0), `vendor@9.0` */
    REF_SPEC_VENDOR_OLD, /* the vendor's code, release 8.5 (ops-nn/ops-cv v8.5.0), `vendor@8.5` */
    REF_SPEC_VENDOR_91,  /* the vendor's code, release 9.1 (v9.1.0), `vendor@9.1` */
    REF_SPEC_VENDOR_92   /* the vendor's code, release 9.2 (v9.2.0-beta.1), `vendor@9.2` */
} ref_spec;

/* The name suites, ACLNN_EMU_SPEC, --contract and results use: "doc", "vendor@9.2",
 * "vendor@9.1", "vendor@9.0", "vendor@8.5" (ref_spec_name and ref_spec_contract agree). */
const char *ref_spec_name(ref_spec s);
/* Also accepts the aliases "vendor" (the newest release, 9.2) and "vendor-old" (8.5). */
int ref_spec_from_name(const char *name, ref_spec *out);
const char *ref_spec_contract(ref_spec s);

#define REF_STATUS_SUCCESS 0
#define REF_STATUS_NULLPTR 161001
#define REF_STATUS_INVALID 161002

#define REF_MAX_DIMS 8
#define REF_MAX_SLOTS 5 /* tensor slots of a query (ref_status_query.t) */

typedef struct {
    bool present;             /* false: the pointer passed is NULL */
    ref_dtype dtype;
    ref_format format;
    int rank;
    int64_t dims[REF_MAX_DIMS];
} ref_tensor_desc;

/* One parameter of an operator (everything but the tensors its first phase takes), as the
 * caller passed it: an integer or a bool in values[0] (len 1), a double in real (len 1), or an
 * integer or bool array of len values (values[] holds the first min(len, REF_MAX_DIMS); present
 * false: a NULL pointer). Which kind each index is: the operator's reference_<op>.h. */
typedef struct {
    bool present;
    int64_t len;
    int64_t values[REF_MAX_DIMS];
    double real;
} ref_param;

#define REF_MAX_PARAMS 12 /* parameters of an operator (ref_status_query.p) */

typedef struct {
    ref_op op;
    ref_product product;
    ref_spec spec;
    /* The tensors in the operator's slot order and its parameters by the indices of its header
     * reference_<op>.h (the order of the harness's case: conformance/ops/<op>/). */
    ref_tensor_desc t[REF_MAX_SLOTS];
    ref_param p[REF_MAX_PARAMS];
    /* The first phase's out-pointers. Zero-initialised = passed (not NULL); NULL → 161001
     * before anything else (docs/contract.md, derived: a success must write them). */
    bool workspace_size_null, executor_null;
    /* The call runs with ACL_OPT_DETERMINISTIC set: it decides which kernel a vendor release
     * routes some calls to (the grid sampler's bicubic on 950), never a status. */
    bool deterministic;
} ref_status_query;

/* A scalar parameter of q: an integer (a bool is 0 or 1), a double. */
static inline int64_t ref_param_int(const ref_status_query *q, int i)
{
    return q->p[i].values[0];
}
static inline bool ref_param_bool(const ref_status_query *q, int i)
{
    return q->p[i].values[0] != 0;
}
static inline double ref_param_real(const ref_status_query *q, int i)
{
    return q->p[i].real;
}

typedef struct {
    int32_t status;           /* 0, 161001, 161002 */
    bool runs;                /* success and the second phase computes something */
    /* The contract defines no outcome (the vendor's code dereferences a NULL pointer): no code
     * can be demanded and nothing is judged; status is 0 and runs false. A harness runs such a
     * call where a crash costs nothing (a child process) and records what happened. */
    bool undefined;
    char reason[256];         /* one sentence naming the argument and the rule */
} ref_status;

/* The status the first phase must return for q under q->spec, as a pure function of q. The
 * checks and their order are docs/contract.md's (null pointers, product, dtypes, formats, ranks,
 * parameter values, shapes, empty tensors, cubeMathType); the first failing check decides. An
 * unknown op or product gives 161002; an unknown spec is read as REF_SPEC_DOC. */
ref_status ref_expected_status(const ref_status_query *q);

/* ---- one case: everything a harness needs, in one call ---- */

/* A run of consecutive elements of one output: elements first .. first + out->numel − 1 of
 * output slot `slot` (row-major), their answers at out->v[0..] (flags, alternatives, ival
 * likewise chunk-relative). Valid during the callback only. */
typedef struct {
    int slot;
    int64_t first;
    const ref_output *out;
} ref_chunk;

/* Receives each chunk: the outputs in slot order, each output's elements in index order, so a
 * harness can judge each chunk and drop it. A non-zero return stops the stream (ref_case returns
 * it). Always called on the calling thread while the other threads of the op's team compute the
 * next chunk (grid: an OpenMP team, and a region the callback opens is nested; avg-pool: helper
 * threads of the library's own, and a region the callback opens is not). */
typedef int (*ref_chunk_fn)(void *ctx, const ref_chunk *chunk);

/* REF_CHUNK_ELEMS elements per chunk unless the operator's model has its own default: ~2.5 MB of
 * answers, small enough to be in cache still when the judge reads them. */
#define REF_CHUNK_ELEMS ((int64_t)1 << 15)
/* Answers of fewer elements in all are computed by one thread when the request leaves the
 * thread count open: starting a team costs more than they take (most cases of the canonical
 * suites are that small). */
#define REF_SERIAL_BELOW ((int64_t)1 << 12)

typedef struct {
    ref_dtype dtype;        /* the case's data type: the path follows it */
    bool documented;        /* answers of the documented operands where the operator's model
                               has them (avg-pool's cube path), judged under their own path
                               (docs/contract.md "Path"); ignored elsewhere */
    /* Answers: the values of each input slot as the device saw them (logical row-major), or
     * NULL for the plan alone (status, path, outputs). */
    const double *const *inputs;
    ref_chunk_fn chunk;
    void *ctx;
    int64_t chunk_elems;    /* 0: the operator's default (REF_CHUNK_ELEMS unless its header
                               says otherwise) */
    int threads;            /* 0: OpenMP default (1 below REF_SERIAL_BELOW elements) */
    uint32_t slots;         /* 0: every computed output; else only the computed outputs whose
                               bit (1u << slot) is set are streamed (and computed), so a
                               harness judging one output at a time computes each once */
} ref_case_request;

typedef struct {
    ref_status status;              /* the expected status, its reason, whether it computes */
    ref_path path;                  /* the device's computation path (reports, dumps) */
    ref_path judge;                 /* the path outputs are judged under (= path, or the
                                       documented operands' one) */
    bool computed[REF_MAX_SLOTS];   /* output slots a successful call must write */
    int64_t numel[REF_MAX_SLOTS];   /* their element counts */
    uint64_t work_bytes;            /* bound of the host memory the answers need besides the
                                       inputs (working set and one chunk; reference/README.md) */
    int64_t fast_hits, mpfr_fallbacks; /* statistics of the answers */
} ref_case_answer;

/* The case q (one call per case): fills *a from q alone; when r->inputs is given, also streams
 * the answers of every computed output to r->chunk. 0; -1 when the parameters cannot be
 * computed or memory ran out (errno ENOMEM); or the chunk callback's non-zero value. */
int ref_case(const ref_status_query *q, const ref_case_request *r, ref_case_answer *a);
#ifdef __cplusplus
}
#endif
#endif

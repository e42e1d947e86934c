/* The suite stage: YAML suites (format: suites/README.md) loaded into expanded cases, and the
 * selection of the cases a command works on. The case is the data every later stage reads. */
#ifndef ACLCTS_CONFORMANCE_SUITE_SUITE_H_
#define ACLCTS_CONFORMANCE_SUITE_SUITE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cts_case.h"
#include "op_driver.h"
#include "reference.h"

/* The case (cts_case.h) and the operators a case can be of (ops/op_driver.h: their drivers and
 * the table, part of this library). */

/* The waiver of a case in one line: "reason; tracking T; owner O; expires D" (the parts set). */
void cts_waiver_describe(const cts_case *c, char *buf, size_t n);
/* The same line from the waiver's fields (each NULL or "" where not given, but the reason). */
void cts_waiver_describe_fields(const char *reason, const char *tracking, const char *owner,
                                const char *expires, char *buf, size_t n);
void cts_case_list_free(cts_case_list *l);

/* A 64-bit hash of everything that reaches the device or the judgement (not the id, the name,
 * the product or where it was written): two cases with one hash are one case. */
uint64_t cts_case_param_hash(const cts_case *c);

/* The guard zone on each side of a tensor's device storage (the loader refuses a tensor whose
 * bytes with its guards pass 2^63): ≥ 64 bytes asked; 512 keeps the tensor data as aligned as
 * aclrtMalloc's own result. */
#define CTS_GUARD_BYTES 512

/* Bytes per element of a dtype (1 for BOOL/INT8/UINT8, 16 for COMPLEX128); 4 for unknown. */
size_t cts_dtype_size(ref_dtype dt);

/* How much of memory a tensor's view needs. Every size is checked 64-bit arithmetic (shapes x
 * strides + offset, elements, bytes), so a tensor too large to exist is reported, never wrapped. */
typedef struct {
    int64_t numel;          /* view elements (0 when a dim is <= 0) */
    int64_t storage;        /* storage elements the view spans, offset included */
    int64_t bytes;          /* guard + storage + guard */
} cts_tensor_extent;

/* false (and a zero extent) when a size exceeds INT64_MAX: the tensor cannot exist. */
bool cts_tensor_extent_of(const cts_tensor *t, cts_tensor_extent *e);
/* The same, with the view's strides (given, or contiguous) into strides. */
bool cts_tensor_layout(const cts_tensor *t, int64_t strides[CTS_MAX_DIMS], cts_tensor_extent *e);

/* Which cases a run executes: --filter globs, the shard of this process (from --shard or the
 * environment of a Slurm array / Kubernetes Indexed Job / gtest-style runner), and the ids a
 * previous run already recorded (--resume). Pure functions; the caller owns all memory. */

/* True when id matches any of the fnmatch(3) globs; an empty list matches everything. */
bool cts_filter_match(const char *const *globs, int nglobs, const char *id);

/* Shards are 0-based: index in [0, count). count 1 = no sharding. */
typedef struct {
    int index, count;
} cts_shard;

/* Parses "K/N" (0 <= K < N). 0, or -1 with a message in err. */
int cts_shard_parse(const char *text, cts_shard *out, char *err, size_t errlen);

/* The shard of this process. `flag` is --shard (or NULL), `shards` is --shards N (0 if absent);
 * getenv is the environment lookup (getenv, or a table in tests). Order: --shard, then
 * SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT, then
 * JOB_COMPLETION_INDEX of --shards N, then GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS; else 0/1.
 * --shard K/N with --shards M is an error unless M = N.
 * Returns 0, or -1 with a message naming the variable in err. */
int cts_shard_resolve(const char *flag, int shards, const char *(*getenv_fn)(const char *),
                      cts_shard *out, char *err, size_t errlen);

/* Stable assignment: a 64-bit hash of the case id modulo the count, so a case keeps its shard
 * when other cases are added and the union of the shards is every case exactly once. */
uint64_t cts_id_hash(const char *id);
bool cts_shard_has(const cts_shard *s, const char *id);

/* A set of case ids (open addressing over cts_id_hash), for --resume and merge. */
typedef struct {
    char **ids;
    size_t cap, count;
} cts_id_set;

bool cts_id_set_has(const cts_id_set *s, const char *id);
/* Adds a copy of id; returns false if it was already there. */
bool cts_id_set_add(cts_id_set *s, const char *id);
void cts_id_set_free(cts_id_set *s);

/* Loading YAML conformance suites (format: suites/README.md) into expanded cases. */

typedef struct {
    const char *product; /* NULL or "all": every product the suite lists */
    bool have_seed;
    uint64_t seed;       /* --seed overrides suite seeds */
    bool quick;          /* keep only cases marked quick */
} cts_load_options;

/* Loads suite files or directories (every *.yaml and *.yml inside and in its operators'
 * folders, e.g. suites/avgpool2d_backward/, sorted by path; other subdirectories such as
 * suites/vendor_st/ only when named), expands matrices and products into cases with stable
 * dotted ids. Each error goes to err as
 * "FILE:LINE:COL: error: FIELD: message" (1-based), all errors of all files are reported, and
 * then nothing is returned (out empty). Returns the number of errors (0 = ok). err may be NULL.
 * An unknown opt->product is one error, printed as "aclcts: error: --product: ...". */
int cts_load_suites(const char *const *paths, int npaths, const cts_load_options *opt,
                    cts_case_list *out, FILE *err);

/* The suite files paths name, by the loader's own rule (files as given, directories as their
 * suite files sorted by path), whether or not they define cases for a product. A malloc'd
 * array of malloc'd strings in *files; paths that do not exist are left out. */
void cts_suite_files(const char *const *paths, int npaths, char ***files, size_t *n);

/* The name of a suite file in a suite set and a package: OPERATOR/FILE for a file in an
 * operator's folder (suites/avgpool2d_backward/errors.yaml: avgpool2d_backward/errors.yaml),
 * else its file name. */
void cts_suite_key(const char *path, char *out, size_t len);

/* ---- which cases a command works on (selection.c) ---- */

#define CTS_SELECTION_MAX 256 /* --filter globs and suite paths a selection holds */

typedef struct {
    const char *product;                 /* --product ID|all (NULL: all) */
    const char *filters[CTS_SELECTION_MAX]; /* --filter GLOB, repeatable */
    int nfilters;
    const char *shard;                   /* --shard K/N */
    int shards;                          /* --shards N (with JOB_COMPLETION_INDEX) */
    bool have_seed;                      /* --seed S */
    uint64_t seed;
    bool quick;                          /* --quick */
    ref_spec contract;                   /* --contract doc|vendor[@RELEASE] (default doc) */
    bool all_contracts;                  /* keep every contract's cases (coverage) */
    const char *paths[CTS_SELECTION_MAX]; /* suite files and directories */
    int npaths;
} cts_selection;

typedef struct {
    cts_case_list all;        /* every case the suites define (for the chosen product) */
    const cts_case **sel;     /* the selected ones, in load order, judged by the contract */
    size_t nsel;
    size_t other_contract;    /* cases written for another contract (`spec:`), not selected */
    cts_shard shard;
} cts_loaded;

/* Loads the suites (default: ./suites when no path was given; the loader expands
 * directories), applies the filters, the shard and the contract. 0, or -1 after the loader's
 * messages were printed to stderr. */
int cts_selection_load(const cts_selection *s, cts_loaded *out);
void cts_loaded_free(cts_loaded *l);

/* The suite format's name of a dtype ("float32", "bfloat16", ...). */
const char *cts_dtype_yaml_name(ref_dtype dt);

/* snprintf for field paths and ids: truncates silently (a path is never near the limit). */
void cts_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- precision standards (suite_standard.c): one data file per standard and edition,
 * STANDARDS_DIR/NAME.yaml or NAME@EDITION.yaml (standards/README.md); the judges are in
 * report/. ---- */

typedef enum {
    CTS_STD_BOUND,      /* aclcts: every element within its proven bound */
    CTS_STD_RELATIVE,   /* mean and max relative error against thresholds (ATK single_bm) */
    CTS_STD_BENCHMARK,  /* error metrics as ratios to a benchmark device's (msprobe) */
    CTS_STD_ULP,        /* share of elements beyond an ULP threshold (msprobe) */
    CTS_STD_MIXED       /* |error| <= atol + rtol |golden| on a share, with a cap */
} cts_std_method;

/* Output dtypes a standard may give thresholds for; HF32 is the tensor dtype HiFLOAT32 (the
 * standards' tables list it; no output of these operators has it). */
enum { CTS_STD_F16, CTS_STD_BF16, CTS_STD_F32, CTS_STD_F64, CTS_STD_HF32, CTS_STD_NDT };
#define CTS_STD_MAX_PARAMS 12
#define CTS_STD_MAX_SOURCES 4
#define CTS_STD_MAX_NA 6

/* Where a standard has no rule, as its file's `not_applicable` says: outputs of a dtype, of a
 * computation path, or with a non-finite element of another class than the exact value that
 * the operator contract allows (docs/dump.md rule 5); such outputs are "not applicable: reason",
 * never judged. */
typedef enum { CTS_NA_DTYPE, CTS_NA_PATH, CTS_NA_NONFINITE } cts_na_kind;
typedef struct {
    cts_na_kind kind;
    int dt;             /* CTS_STD_*: of CTS_NA_DTYPE; of CTS_NA_PATH, or -1 any */
    char path[24];      /* CTS_NA_PATH: a computation path, "cube-hf32" */
    char reason[256];   /* one line, shown beside the outputs it excuses */
} cts_std_na;

typedef struct {
    char name[64];      /* nested maps flattened: "limits.rmse" */
    double v;
} cts_std_param;

typedef struct {
    char name[48], edition[32], file[1024];
    cts_std_method method;
    bool golden_dtype;  /* `golden: dtype`: the reference correctly rounded to the output
                           dtype; `exact`: the exact value rounded to double */
    char sources[CTS_STD_MAX_SOURCES][640]; /* "repo:path@commit" */
    int nsources;
    cts_std_param rule[CTS_STD_MAX_PARAMS];
    int nrule;
    struct {
        bool set;       /* the standard judges this dtype */
        cts_std_param p[CTS_STD_MAX_PARAMS];
        int n;
    } dt[CTS_STD_NDT];
    cts_std_na na[CTS_STD_MAX_NA];
    int nna;
} cts_standard;

/* Loads the standard SPEC ("NAME" or "NAME@EDITION") from dir: NAME@EDITION.yaml, else
 * NAME.yaml, else the NAME@*.yaml that says `default: true`. Every error is printed on err as
 * FILE:LINE:COL: error: FIELD: message. 0, or -1. */
int cts_standard_load(const char *dir, const char *spec, cts_standard *out, FILE *err);
/* A rule parameter (or dflt when the file has none). */
double cts_std_rule(const cts_standard *s, const char *name, double dflt);
/* A per-dtype parameter; false when the standard has none for dt. */
bool cts_std_param_of(const cts_standard *s, int dt, const char *name, double *out);
/* The CTS_STD_* index of a reference dtype, or -1 (integer dtypes). */
int cts_std_dtype(ref_dtype dt);
const char *cts_std_method_name(cts_std_method m);
/* A standard's golden by name: 1 "dtype", 0 "exact", -1 neither (or NULL). */
int cts_std_golden_parse(const char *v);

#endif

/* Internals shared by the suite loader's files: typed reading of YAML values into one case
 * under construction, with every error pointing at the value (file:line:col and field). */
#ifndef ACLCTS_CONFORMANCE_SUITE_CASE_H_
#define ACLCTS_CONFORMANCE_SUITE_CASE_H_

#include <stdbool.h>
#include <stdint.h>

#include "suite.h"
#include "suite_diag.h"
#include "suite_yaml.h"

/* Where values being read come from. */
typedef struct {
    const char *file;
    cts_diag *d;
    const cts_op_driver *op;
} cts_keyctx;

/* A case being built: the cts_case plus what was set explicitly, so that derived values (shapes,
 * formats, generators, tolerance) are computed only where the suite left them open. */
typedef struct {
    cts_case c;
    bool shape_set[CTS_MAX_TENSORS];
    const cts_ynode *shape_node[CTS_MAX_TENSORS];  /* where a given shape is written */
    bool format_set[CTS_MAX_TENSORS];
    bool dtype_set[CTS_MAX_TENSORS];
    bool gen_set[CTS_MAX_TENSORS];
    unsigned quick_products;                     /* quick: [products]: bit per ref_product */
    bool quick_list;
    bool param_set[CTS_MAX_PARAMS];              /* parameters given (or named in null:) */
    int nstrides[CTS_MAX_TENSORS];               /* views: strides given, checked vs rank */
    const cts_ynode *strides_node[CTS_MAX_TENSORS];
    const cts_ynode *tolerance;   /* resolved in cts_case_finish (dtype, numerics) */
    const char *tolerance_field;
    const cts_ynode *product;     /* case-level product list, or NULL: the suite's */
    const char *product_field;
} cts_builder;

/* ---- scalars (suite_scalar.c); each reports its own error and returns false ---- */
/* Silent probes for readers that accept a name or a number: an unquoted integer (untagged or
 * !!int), and the text of a scalar usable as a name (not null; untagged, quoted or !!str). */
bool cts_scalar_int(const cts_ynode *v, int64_t *out);
const char *cts_scalar_name(const cts_ynode *v);
bool cts_read_int(const cts_keyctx *k, const char *field, const cts_ynode *v, int64_t *out);
bool cts_read_bool(const cts_keyctx *k, const char *field, const cts_ynode *v, bool *out);
bool cts_read_double(const cts_keyctx *k, const char *field, const cts_ynode *v, double *out);
bool cts_read_string(const cts_keyctx *k, const char *field, const cts_ynode *v,
                     const char **out);
/* A list of doubles (a single number counts as a list of one). *out is malloc'd. */
bool cts_read_doubles(const cts_keyctx *k, const char *field, const cts_ynode *v, double **out,
                      size_t *n);
bool cts_expect_kind(const cts_keyctx *k, const char *field, const cts_ynode *v,
                     cts_yn_kind kind);
/* Names: dtype (float32, float16, bfloat16, float64, int32, ...), product ids. */
bool cts_dtype_from_name(const char *s, ref_dtype *out);
bool cts_read_dtype(const cts_keyctx *k, const char *field, const cts_ynode *v, ref_dtype *out);
bool cts_read_product(const cts_keyctx *k, const char *field, const cts_ynode *v,
                      ref_product *out);

/* ---- case keys (suite_keys.c) ---- */
/* True when key is a value key of a case of op (everything but name, matrix, exclude). */
bool cts_key_known(const cts_op_driver *op, const char *key);
/* The name of another op that has this value key (for a better message), or NULL. */
const char *cts_key_other_op(const cts_op_driver *op, const char *key);
void cts_builder_init(cts_builder *b, const cts_op_driver *op);
/* Reads value v of key into b. field is the dotted path for messages. False on error. */
bool cts_key_apply(const cts_keyctx *k, const char *key, const char *field, const cts_ynode *v,
                   cts_builder *b);
/* Derives shapes, formats, default generators, and resolves the tolerance (suite_finish.c). */
bool cts_case_finish(const cts_keyctx *k, cts_builder *b, const cts_ynode *case_node,
                     const char *case_field);
/* Tolerance policy for one dtype and the value of the op's numerics parameter (its selector
 * DTYPE/<tag><value>, cts_param_desc.tolerance_tag) (suite_tolerance.c). */
bool cts_tolerance_resolve(const cts_keyctx *k, const char *field, const cts_ynode *v,
                           ref_dtype dt, int64_t numerics, cts_tolerance *out);

/* ---- expansion (case_expand.c) ---- */
typedef struct {
    const char *suite;
    ref_spec spec;
    bool spec_fixed;                         /* the suite says `spec:` */
    uint64_t seed;
    ref_product products[REF_PRODUCT_COUNT]; /* the suite's list (default: all) */
    int nproducts;
    const cts_ynode *defaults;               /* map of value keys, or NULL */
} cts_suite_ctx;

/* Expands cases[index] of a suite into out (cases × matrix combinations × products), appending.
 * Errors go to k->d; then nothing is appended for that case. */
void cts_expand_case(const cts_keyctx *k, const cts_suite_ctx *s, const cts_ynode *case_node,
                     size_t index, cts_case_list *out, size_t *cap);
/* Applies the `defaults:` map once on its own, so its errors show even without cases. */
void cts_check_defaults(const cts_keyctx *k, const cts_suite_ctx *s);

/* Frees what a case owns (case.c). */
void cts_case_clear(cts_case *c);
/* Deep copy of the owned parts (case.c). */
void cts_case_copy(cts_case *dst, const cts_case *src);

#endif

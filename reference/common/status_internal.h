/* Private to the status model: the checks every model words the same way (status_helpers.c).
 * Each operator's models and its own shared rules live in its folder (the model table's entry
 * names them, ref_internal.h). */
#ifndef ACLCTS_REFERENCE_STATUS_INTERNAL_H_
#define ACLCTS_REFERENCE_STATUS_INTERNAL_H_

#include "ref_internal.h"
#include "ref_rules.h"
#include "reference.h"

/* A result with a printf-formatted reason sentence. */
ref_status ref_status_make(int32_t status, bool runs, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Index of the first negative dim of t, or -1. */
int ref_status_negative_axis(const ref_tensor_desc *t);
/* Index of the first zero dim of t, or -1. */
int ref_status_zero_axis(const ref_tensor_desc *t);
bool ref_status_same_shape(const ref_tensor_desc *a, const ref_tensor_desc *b);
/* "[1,16,4,4]" into buf (size >= 8 * 21 + 3 covers REF_MAX_DIMS dims). */
const char *ref_status_shape_str(const ref_tensor_desc *t, char *buf, size_t size);
/* The spec whose rules apply: anything unknown is read as the documents. */
ref_spec ref_status_spec(const ref_status_query *q);

/* The first of t[0..n) (named by names) that is a null pointer: true with *fail its 161001. */
bool ref_status_first_null(const ref_tensor_desc *t, const char *const *names, int n,
                           ref_status *fail);
/* The product is known and the op ships on it (shipped, the op's own rule): else false with
 * *fail its 161002. */
bool ref_status_product_ok(const ref_status_query *q, const char *op_name, bool shipped,
                           ref_status *fail);
/* The first of t[0..n) with a negative dim: true with *fail its 161002. */
bool ref_status_first_negative(const ref_tensor_desc *t, const char *const *names, int n,
                               ref_status *fail);
/* The first of t[0..n) with a zero dim: true with *done the success with nothing to compute
 * that the vendor code (and the documents for the grid sampler) give an empty tensor. */
bool ref_status_first_empty(const ref_tensor_desc *t, const char *const *names, int n,
                            ref_status *done);

#endif

/* The value keys of a case, private to the suite loader: typed readers of values shared by the
 * keys (suite_key_read.c), the keys of the tensors (suite_keys_tensor.c), and the table of every
 * key with the rest of them (suite_keys.c). Each reader checks type and range, stores into the
 * case under construction, and reports its own error at the value (file:line:col and field). */
#ifndef ACLCTS_CONFORMANCE_SUITE_KEYS_H_
#define ACLCTS_CONFORMANCE_SUITE_KEYS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "suite_case.h"

#define KEY_ERR(v, field, ...) \
    cts_diag_error(k->d, k->file, (v)->line, (v)->col, field, __VA_ARGS__)

/* The names of op's tensors (all, outputs only or inputs only), ", "-joined, for a message. */
/* ---- typed readers of values (suite_key_read.c) ---- */
void cts_tensor_names(const cts_op_driver *op, bool outputs_only, bool inputs_only, char *buf,
                      size_t n);
/* Slot named by a map key, with an error naming the choices. */
int cts_read_slot(const cts_keyctx *k, const char *field, const cts_ynode *key, bool outputs,
                  bool inputs);
bool cts_read_dims(const cts_keyctx *k, const char *field, const cts_ynode *v, int *rank,
                   int64_t *dims);
bool cts_read_int_array(const cts_keyctx *k, const char *field, const cts_ynode *v,
                        cts_param *a);
bool cts_read_format(const cts_keyctx *k, const char *field, const cts_ynode *v,
                     ref_format *out);
bool cts_read_named_int(const cts_keyctx *k, const char *field, const cts_ynode *v,
                        const char *const *names, int nnames, int64_t *out);
void cts_set_str(const char **dst, const char *src);
bool cts_read_gen(const cts_keyctx *k, const char *field, const cts_ynode *v,
                  cts_datagen *g);
bool cts_read_param(const cts_keyctx *k, const char *f, const cts_ynode *v,
                    const cts_param_desc *d, cts_param *p);
/* ---- the keys of the tensors (suite_keys_tensor.c): each reads value v of its key into b ---- */
bool cts_key_dtype(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a);
bool cts_key_dtypes(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a);
bool cts_key_shape(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int s);
bool cts_key_format(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                    int a);
bool cts_key_formats(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b,
                     int a);
bool cts_key_views(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a);
bool cts_key_null(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a);
bool cts_key_data(const cts_keyctx *k, const char *f, const cts_ynode *v, cts_builder *b, int a);

#endif

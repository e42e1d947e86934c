/* Lookups and helpers over the drivers (op_driver.h). */
#include "op_driver.h"

#include <stdio.h>
#include <string.h>

const cts_op_driver *cts_op_named(const char *name)
{
    for (int i = 0; name && i < cts_nops; i++)
        if (!strcmp(cts_ops[i]->name, name))
            return cts_ops[i];
    return NULL;
}

const cts_op_driver *cts_op_of(ref_op op)
{
    for (int i = 0; i < cts_nops; i++)
        if (cts_ops[i]->ref_op == op)
            return cts_ops[i];
    return NULL;
}

int cts_op_index(const cts_op_driver *op)
{
    for (int i = 0; i < cts_nops; i++)
        if (cts_ops[i] == op)
            return i;
    return -1;
}

void cts_op_names(char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = 0;
    for (int i = 0; i < cts_nops && l < n; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%s", i ? ", " : "", cts_ops[i]->name);
}

int cts_op_tensor_slot(const cts_op_driver *op, const char *name)
{
    for (int i = 0; i < op->ntensors; i++)
        if (!strcmp(op->tensors[i].name, name))
            return i;
    return -1;
}

int cts_op_param_index(const cts_op_driver *op, const char *key)
{
    for (int i = 0; i < op->nparams; i++)
        if (!strcmp(op->params[i].key, key))
            return i;
    return -1;
}

void cts_case_init_op(cts_case *c, const cts_op_driver *op)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    c->dtype = REF_DT_FLOAT;
    c->spec = REF_SPEC_DOC;
    c->expect_status_model = true;
    c->repeat = 1;
    c->max_unjudged = -1;
    c->ntensors = op->ntensors;
    for (int s = 0; s < op->ntensors; s++) {
        c->t[s].name = op->tensors[s].name;
        c->t[s].is_output = op->tensors[s].is_output;
    }
    for (int i = 0; i < op->nparams; i++) {
        c->param[i] = op->params[i].dflt;
        if (cts_param_scalar(op->params[i].kind))
            c->param[i].len = 1; /* a scalar */
    }
}

int cts_op_tolerance_param(const cts_op_driver *op)
{
    for (int i = 0; i < op->nparams; i++)
        if (op->params[i].tolerance_tag) return i;
    return -1;
}

void cts_numerics_key(const cts_case *c, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = 0;
    for (int i = 0; c->op && i < c->op->nparams && l < n; i++) {
        if (!c->op->params[i].numerics) continue;
        const char *key = c->op->params[i].key, *sep = l ? ";" : "";
        if (c->op->params[i].kind == CTS_PARAM_DOUBLE)
            l += (size_t)snprintf(buf + l, n - l, "%s%s=%.17g", sep, key, c->param[i].real);
        else
            l += (size_t)snprintf(buf + l, n - l, "%s%s=%lld", sep, key,
                                  (long long)c->param[i].v[0]);
    }
}

/* ---- levels of the coverage models (op_driver.h) ---- */

int cov_dtype_level(ref_dtype dt, bool with_double)
{
    switch (dt) {
    case REF_DT_FLOAT: return 0;
    case REF_DT_FLOAT16: return 1;
    case REF_DT_BF16: return 2;
    case REF_DT_DOUBLE: return with_double ? 3 : -1;
    default: return -1;
    }
}

int cov_channel_level(int64_t c)
{
    if (c <= 0) return c == 0 ? COV_CH_0 : -1;
    if (c >= 2047) return COV_CH_2048;
    return c == 1 ? COV_CH_1 : c % 2 ? COV_CH_ODD : COV_CH_EVEN;
}

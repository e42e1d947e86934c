/* The ABI call of a case's operator through a backend (backend.h): the arrays its list
 * parameters become, and both phases through the backend's symbols of that operator. */
#include "backend.h"

#include <string.h>

void cts_call_arrays_create(const cts_backend *b, cts_call_args *a)
{
    const cts_case *c = a->c;
    for (int i = 0; i < c->op->nparams; i++) {
        const cts_param *p = &c->param[i];
        cts_param_kind kind = c->op->params[i].kind;
        a->array[i] = NULL;
        if (p->null) continue;
        if (kind == CTS_PARAM_INTS) {
            a->array[i] = b->aclCreateIntArray(p->v, (uint64_t)p->len);
        } else if (kind == CTS_PARAM_BOOLS) {
            bool v[CTS_MAX_DIMS];
            for (int k = 0; k < p->len && k < CTS_MAX_DIMS; k++) v[k] = p->v[k] != 0;
            a->array[i] = b->aclCreateBoolArray(v, (uint64_t)p->len);
        }
    }
}

void cts_call_arrays_destroy(const cts_backend *b, cts_call_args *a)
{
    const cts_case *c = a->c;
    for (int i = 0; i < c->op->nparams; i++) {
        if (!a->array[i]) continue;
        if (c->op->params[i].kind == CTS_PARAM_INTS) b->aclDestroyIntArray(a->array[i]);
        else b->aclDestroyBoolArray(a->array[i]);
        a->array[i] = NULL;
    }
}

aclnnStatus cts_call_first_phase(const cts_backend *b, const cts_call_args *a)
{
    return a->c->op->call(b->op_first[cts_op_index(a->c->op)], a);
}

aclnnStatus cts_call_second_phase(const cts_backend *b, const cts_case *c, void *workspace,
                                  uint64_t workspace_size, aclOpExecutor *executor,
                                  aclrtStream stream)
{
    cts_second_phase_fn second;
    void *fn = b->op_second[cts_op_index(c->op)];
    memcpy(&second, &fn, sizeof second); /* object pointer to function pointer, as dlsym */
    return second(workspace, workspace_size, executor, stream);
}

/* The result record: building it from a case, the list that holds them, status classes. */
#include "results.h"

#include <stdlib.h>
#include <string.h>

void *cts_grow(void *p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return p;
    *cap = *cap ? 2 * *cap : 16;
    p = realloc(p, *cap * size);
    if (!p) abort();
    return p;
}

void cts_result_list_push(cts_result_list *l, const cts_result *r)
{
    l->r = cts_grow(l->r, &l->cap, l->count, sizeof *l->r);
    l->r[l->count++] = *r;
}

const char *cts_result_contract(const cts_result *r)
{
    return r->contract[0] ? r->contract : CTS_DEFAULT_CONTRACT;
}

const cts_result *cts_results_other_contract(const cts_result_list *l, const char *want)
{
    for (size_t k = 0; k < l->count; k++)
        if (strcmp(cts_result_contract(&l->r[k]), want) != 0)
            return &l->r[k];
    return NULL;
}

void cts_result_list_free(cts_result_list *l)
{
    free(l->r);
    l->r = NULL;
    l->count = l->cap = 0;
}

int cts_numerics_cmp(const char *a, const char *b)
{
    return strverscmp(a, b);
}

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

void cts_result_from_case(cts_result *r, const cts_case *c, const char *file, const char *backend)
{
    memset(r, 0, sizeof *r);
    copy(r->v.case_id, sizeof r->v.case_id, c->id);
    copy(r->suite, sizeof r->suite, c->suite);
    copy(r->file, sizeof r->file, file);
    copy(r->op, sizeof r->op, c->op->name);
    copy(r->dtype, sizeof r->dtype, cts_dtype_yaml_name(c->dtype));
    cts_numerics_key(c, r->numerics, sizeof r->numerics);
    copy(r->product, sizeof r->product, ref_product_id(c->product));
    r->seed = c->seed;
    r->deterministic = c->deterministic;
    copy(r->backend, sizeof r->backend, backend);
    copy(r->contract, sizeof r->contract, ref_spec_contract(c->spec));
    copy(r->aclcts_version, sizeof r->aclcts_version, ACLCTS_VERSION);
}

bool cts_status_fails(cts_status s)
{
    return s == CTS_FAIL || s == CTS_CRASH || s == CTS_TIMEOUT || s == CTS_ERROR ||
           s == CTS_RESOURCE_ERROR;
}

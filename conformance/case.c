/* Ownership of an expanded case: its strings and value lists are its own heap copies, so a
 * case list outlives the suite files and the YAML trees it came from. */
#include <stdlib.h>
#include <string.h>

#include "suite_case.h"

static const char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        abort();
    return d;
}

static double *dup_doubles(const double *v, size_t n)
{
    if (!v || !n)
        return NULL;
    double *d = malloc(n * sizeof *d);
    if (!d)
        abort();
    memcpy(d, v, n * sizeof *d);
    return d;
}

void cts_case_clear(cts_case *c)
{
    free((void *)c->suite);
    free((void *)c->name);
    free((void *)c->mark.file);
    free((void *)c->waiver);
    free((void *)c->tolerance.name);
    for (int s = 0; s < CTS_MAX_TENSORS; s++) {
        free(c->t[s].gen.values);
        free(c->expect_values[s].values);
    }
    memset(c, 0, sizeof *c);
}

void cts_case_copy(cts_case *dst, const cts_case *src)
{
    *dst = *src;
    dst->suite = dup_str(src->suite);
    dst->name = dup_str(src->name);
    dst->mark.file = dup_str(src->mark.file);
    dst->waiver = dup_str(src->waiver);
    dst->tolerance.name = dup_str(src->tolerance.name);
    for (int s = 0; s < CTS_MAX_TENSORS; s++) {
        dst->t[s].gen.values = dup_doubles(src->t[s].gen.values, src->t[s].gen.nvalues);
        dst->expect_values[s].values =
            dup_doubles(src->expect_values[s].values, src->expect_values[s].nvalues);
    }
}

void cts_case_list_free(cts_case_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->ncases; i++)
        cts_case_clear(&l->cases[i]);
    free(l->cases);
    l->cases = NULL;
    l->ncases = 0;
}

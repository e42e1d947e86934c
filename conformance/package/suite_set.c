/* The canonical suite set (package.h). */
#include "package.h"

#include <stdlib.h>
#include <string.h>

#include "results/results.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(((const cts_suite_hash *)a)->name, ((const cts_suite_hash *)b)->name);
}

void cts_suite_set_digest(const cts_suite_hash *s, size_t n, char digest[65])
{
    cts_suite_hash *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) abort();
    memcpy(sorted, s, n * sizeof *s);
    qsort(sorted, n, sizeof *sorted, by_name);
    cts_sha256 h;
    unsigned char d[32];
    cts_sha256_init(&h);
    for (size_t i = 0; i < n; i++) {
        cts_sha256_update(&h, sorted[i].sha256, strlen(sorted[i].sha256));
        cts_sha256_update(&h, "  ", 2);
        cts_sha256_update(&h, sorted[i].name, strlen(sorted[i].name));
        cts_sha256_update(&h, "\n", 1);
    }
    cts_sha256_final(&h, d);
    cts_sha256_hex(d, digest);
    free(sorted);
}

static const cts_suite_hash *find(const cts_suite_hash *s, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].name, name)) return &s[i];
    return NULL;
}

int cts_suite_set_differences(const cts_suite_hash *s, size_t n, const char *prefix, FILE *out)
{
    int diff = 0;
    for (size_t i = 0; i < cts_canonical_nsuites; i++) {
        const cts_suite_hash *c = &cts_canonical_suites[i], *got = find(s, n, c->name);
        if (!got) {
            fprintf(out, "%s%s: a suite of the canonical set is missing\n", prefix, c->name);
            diff++;
        } else if (strcmp(got->sha256, c->sha256) != 0) {
            fprintf(out, "%s%s: differs from the canonical suite (SHA-256 %s, canonical %s)\n",
                    prefix, c->name, got->sha256, c->sha256);
            diff++;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (!find(cts_canonical_suites, cts_canonical_nsuites, s[i].name)) {
            fprintf(out, "%s%s: not a suite of the canonical set\n", prefix, s[i].name);
            diff++;
        }
    return diff;
}

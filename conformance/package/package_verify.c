/* verify-package's checks (package.h) and the completeness checks certify shares with it. */
#include "package.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "suite/suite.h"
#include "results/results.h"

#define MAX_LINES 20 /* per kind of problem; the rest are counted */

static void problem(FILE *out, int *count, const char *what, const char *fmt, const char *a)
{
    if ((*count)++ < MAX_LINES) {
        fprintf(out, "%s: ", what);
        fprintf(out, fmt, a);
        fputc('\n', out);
    }
}

static void more(FILE *out, int count, const char *what, const char *kind)
{
    if (count > MAX_LINES)
        fprintf(out, "%s: ... and %d more %s\n", what, count - MAX_LINES, kind);
}

static int by_case_id(const void *a, const void *b)
{
    return strcmp((*(const cts_case *const *)a)->id, (*(const cts_case *const *)b)->id);
}

static int id_vs_case(const void *id, const void *c)
{
    return strcmp(id, (*(const cts_case *const *)c)->id);
}

/* The selected case with this id, or NULL (sorted: l's selection sorted by id). */
static const cts_case *find_case(const cts_case **sorted, size_t n, const char *id)
{
    const cts_case **hit = n ? bsearch(id, sorted, n, sizeof *sorted, id_vs_case) : NULL;
    return hit ? *hit : NULL;
}

int cts_check_case_set(const cts_loaded *l, const cts_result_list *res, const char *what,
                       FILE *out)
{
    cts_id_set got = {0};
    int twice = 0, extra = 0, missing = 0, seeds = 0;
    const cts_case **sorted = malloc((l->nsel ? l->nsel : 1) * sizeof *sorted);
    if (!sorted) abort();
    memcpy(sorted, l->sel, l->nsel * sizeof *sorted);
    if (l->nsel) qsort(sorted, l->nsel, sizeof *sorted, by_case_id);
    for (size_t i = 0; i < res->count; i++) {
        const char *id = res->r[i].v.case_id;
        const cts_case *c = find_case(sorted, l->nsel, id);
        if (!cts_id_set_add(&got, id))
            problem(out, &twice, what, "case %s recorded more than once", id);
        else if (!c)
            problem(out, &extra, what, "case %s is not a case of the suites for the product", id);
        else if (c->seed != res->r[i].seed)
            problem(out, &seeds, what, "case %s was run with another seed than the suites give "
                    "(see --seed)", id);
    }
    free(sorted);
    more(out, seeds, what, "cases run with another seed");
    for (size_t k = 0; k < l->nsel; k++)
        if (!cts_id_set_has(&got, l->sel[k]->id))
            problem(out, &missing, what, "case %s has no result", l->sel[k]->id);
    more(out, twice, what, "cases recorded more than once");
    more(out, extra, what, "cases not in the suites");
    more(out, missing, what, "cases without a result");
    if (missing)
        fprintf(out, "%s: %d of the %zu cases have no result\n", what, missing, l->nsel);
    cts_id_set_free(&got);
    return twice + extra + missing + seeds;
}

/* field of one record or session against the value seen first. */
static int agree(char *first, size_t size, const char *value, const char *field,
                 const char *where, const char *what, FILE *out)
{
    if (!*first) {
        snprintf(first, size, "%s", value);
        return 0;
    }
    if (!strcmp(first, value)) return 0;
    fprintf(out, "%s: mixed %s: %s is %s, earlier ones %s\n", what, field, where, value, first);
    return 1;
}

int cts_check_one_origin(const cts_result_list *res, const cts_provenance *shards,
                         size_t nshards, const char *product, char backend[64],
                         char contract[16], char version[32], const char *what, FILE *out)
{
    int bad = 0;
    char where[1400];
    for (size_t i = 0; i < res->count && bad < MAX_LINES; i++) {
        const cts_result *r = &res->r[i];
        snprintf(where, sizeof where, "case %s", r->v.case_id);
        bad += agree(backend, 64, r->backend, "backends", where, what, out);
        bad += agree(contract, 16, r->contract, "contracts", where, what, out);
        bad += agree(version, 32, r->aclcts_version, "aclcts versions", where, what, out);
        if (strcmp(r->product, product) != 0 && bad++ < MAX_LINES)
            fprintf(out, "%s: case %s is of product %s, not %s\n", what, r->v.case_id,
                    r->product, product);
    }
    for (size_t i = 0; i < nshards; i++) {
        const cts_provenance *p = &shards[i];
        snprintf(where, sizeof where, "the session of %s (shard %s on %s)", p->results,
                 p->shard, p->host);
        bad += agree(backend, 64, p->backend, "backends", where, what, out);
        bad += agree(contract, 16, p->contract, "contracts", where, what, out);
        bad += agree(version, 32, p->aclcts_version, "aclcts versions", where, what, out);
        if (strcmp(p->product, product) != 0 && bad++ < MAX_LINES)
            fprintf(out, "%s: %s ran product %s, not %s\n", what, where, p->product, product);
        for (int k = 0; k < p->nlibs; k++)
            for (int j = 0; j < shards[0].nlibs; j++)
                if (!strcmp(p->libs[k].name, shards[0].libs[j].name) &&
                    strcmp(p->libs[k].sha256, shards[0].libs[j].sha256) != 0) {
                    fprintf(out, "%s: mixed backend libraries: %s of %s has SHA-256 %s, of "
                            "the first session %s\n", what, p->libs[k].name, where,
                            p->libs[k].sha256, shards[0].libs[j].sha256);
                    bad++;
                }
    }
    return bad;
}

void cts_suite_hashes_free(cts_suite_hash *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)s[i].name);
        free((char *)s[i].sha256);
    }
    free(s);
}

int cts_suite_hashes(const char *const *paths, int npaths, cts_suite_hash **out, size_t *n,
                     cts_names *files, char *err, size_t errlen)
{
    char **list;
    size_t count;
    int rc = 0;
    cts_suite_files(paths, npaths, &list, &count);
    *out = calloc(count ? count : 1, sizeof **out);
    if (!*out) abort();
    *n = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        char key[PATH_MAX], hex[65];
        cts_suite_key(list[i], key, sizeof key);
        if (cts_sha256_file(list[i], hex) != 0) {
            snprintf(err, errlen, "%s: cannot read", list[i]);
            rc = -1;
            break;
        }
        bool seen = false;
        for (size_t k = 0; k < *n && !seen; k++)
            seen = !strcmp((*out)[k].name, key);
        if (seen) {
            snprintf(err, errlen, "two suite files are named %s (a package keeps one suites/ "
                     "directory)", key);
            rc = -1;
            break;
        }
        (*out)[*n].name = strdup(key);
        (*out)[(*n)++].sha256 = strdup(hex);
        if (files) cts_names_push(files, list[i]);
    }
    for (size_t i = 0; i < count; i++) free(list[i]);
    free(list);
    return rc;
}

/* ---- verify-package ---- */

/* SHA-256 of a package file opened by cts_package_fopen (never blocks); 0, or -1. */
static int hash_package_file(const char *path, char hex[65])
{
    FILE *f = cts_package_fopen(path);
    if (!f) return -1;
    int rc = cts_sha256_stream(f, hex);
    fclose(f);
    return rc;
}

/* SHA256SUMS against the files (present: the package's regular files, sorted); its names into
 * summed (sorted); every file listed but SHA256SUMS and its signature. */
static int check_sums(const char *dir, const cts_names *present, cts_names *summed, FILE *out)
{
    char path[PATH_MAX * 2], hex[65];
    int problems = 0;
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    FILE *f = cts_names_has(present, "SHA256SUMS") ? cts_package_fopen(path) : NULL;
    if (!f) {
        fprintf(out, "SHA256SUMS: missing\n");
        problems++;
    }
    char line[PATH_MAX + 80];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        const char *name = line + 66;
        if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ' ||
            strspn(line, "0123456789abcdef") != 64) {
            fprintf(out, "SHA256SUMS: malformed line '%.200s'\n", line);
            problems++;
            continue;
        }
        cts_names_push(summed, name);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        if (!cts_names_has(present, name) || hash_package_file(path, hex) != 0) {
            fprintf(out, "%s: missing (listed in SHA256SUMS)\n", name);
            problems++;
        } else if (strncmp(hex, line, 64) != 0) {
            fprintf(out, "%s: SHA-256 %s differs from SHA256SUMS (%.64s): the file was "
                         "changed\n", name, hex, line);
            problems++;
        }
    }
    if (f) fclose(f);
    cts_names_sort(summed);
    for (size_t i = 0; i < present->n; i++)
        if (strcmp(present->v[i], "SHA256SUMS") && strcmp(present->v[i], CTS_PACKAGE_SIGNATURE) &&
            !cts_names_has(summed, present->v[i])) {
            fprintf(out, "%s: not listed in SHA256SUMS (added after sealing)\n", present->v[i]);
            problems++;
        }
    return problems;
}

/* manifest.json's file list against the files (and, asked, the backend libraries). */
static int check_manifest_files(const char *dir, const cts_manifest *m, bool check_backend,
                                FILE *out)
{
    char path[PATH_MAX * 2], hex[65];
    int bad = 0;
    for (size_t i = 0; i < m->nfiles; i++) {
        const cts_manifest_file *e = &m->files[i];
        snprintf(path, sizeof path, "%s/%s", dir, e->path);
        if (strstr(e->path, "..") || e->path[0] == '/' || hash_package_file(path, hex) != 0) {
            fprintf(out, "%s: missing (listed in manifest.json)\n", e->path);
            bad++;
        } else if (strcmp(hex, e->sha256) != 0) {
            fprintf(out, "%s: SHA-256 %s differs from manifest.json (%s)\n", e->path, hex,
                    e->sha256);
            bad++;
        }
    }
    for (size_t s = 0; check_backend && s < m->nshards; s++)
        for (int k = 0; k < m->shards[s].nlibs; k++) {
            const cts_prov_lib *l = &m->shards[s].libs[k];
            if (cts_sha256_file(l->path, hex) != 0 || strcmp(hex, l->sha256) != 0) {
                fprintf(out, "%s: backend library %s differs from manifest.json (%s)\n",
                        l->path, hex, l->sha256);
                bad++;
            }
        }
    return bad;
}

/* The packaged suites: loaded for the product (the case set), and hashed (the suite set). */
static int check_suites(const char *dir, const cts_manifest *m, const cts_result_list *res,
                        FILE *out)
{
    cts_selection sel;
    memset(&sel, 0, sizeof sel);
    sel.product = m->product;
    /* the case set of the contract the package was run under (its `spec:` cases included) */
    if (*m->contract && ref_spec_from_name(m->contract, &sel.contract) != 0) {
        fprintf(out, "manifest.json: contract '%s' is not one aclcts knows\n", m->contract);
        return 1;
    }
    static char paths[CTS_SELECTION_MAX][PATH_MAX];
    for (size_t i = 0; i < m->nfiles && sel.npaths < CTS_SELECTION_MAX; i++)
        if (!strcmp(m->files[i].role, "suite") && !strstr(m->files[i].path, "..")) {
            snprintf(paths[sel.npaths], sizeof paths[0], "%s/%s", dir, m->files[i].path);
            sel.paths[sel.npaths] = paths[sel.npaths];
            sel.npaths++;
        }
    if (strcmp(m->seed, "suite") != 0) {
        char *end;
        sel.have_seed = true;
        sel.seed = strtoull(m->seed, &end, 10);
        if (!*m->seed || *end) {
            fprintf(out, "manifest.json: seed '%s' is neither \"suite\" nor a number\n", m->seed);
            return 1;
        }
    }
    if (sel.npaths == 0) {
        fprintf(out, "manifest.json: lists no suite\n");
        return 1;
    }
    cts_loaded l;
    if (cts_selection_load(&sel, &l) != 0) {
        fprintf(out, "suites/: the packaged suites do not load (messages on stderr)\n");
        cts_loaded_free(&l);
        return 1;
    }
    int bad = 0;
    int missing = cts_check_case_set(&l, res, "results.jsonl", out);
    bad += missing + cts_check_records(&l, res, "results.jsonl", out);
    if ((missing == 0) != m->complete) {
        fprintf(out, "manifest.json: says complete: %s, the results are %s\n",
                m->complete ? "true" : "false", missing ? "not" : "complete");
        bad++;
    }
    cts_suite_hash *h;
    size_t n;
    char err[600], digest[65];
    if (cts_suite_hashes(sel.paths, sel.npaths, &h, &n, NULL, err, sizeof err) != 0) {
        fprintf(out, "suites/: %s\n", err);
        cts_suite_hashes_free(h, n);
        bad++;
    } else {
        cts_suite_set_digest(h, n, digest);
        if (strcmp(digest, m->suite_set) != 0) {
            fprintf(out, "manifest.json: suite set digest %s, the packaged suites give %s\n",
                    m->suite_set, digest);
            bad++;
        }
        int diff = cts_suite_set_differences(h, n, "suites/", out);
        if (diff == 0) fprintf(out, "suites/: canonical (the suite set of aclcts %s, %s)\n",
                               ACLCTS_VERSION, cts_canonical_digest);
        if ((diff == 0) != m->canonical) {
            fprintf(out, "manifest.json: says canonical: %s, the packaged suites are %s\n",
                    m->canonical ? "true" : "false", diff ? "not" : "canonical");
            bad++;
        }
        cts_suite_hashes_free(h, n);
    }
    cts_loaded_free(&l);
    return bad;
}

/* Verdict and counts recomputed; one origin; the rendered files re-derived and compared. */
static int check_derived(const char *dir, const cts_manifest *m, const cts_result_list *res,
                         FILE *out)
{
    int bad = 0;
    cts_tally t;
    cts_tally_results(res->r, res->count, &t);
    char reason[256], backend[64] = "", contract[16] = "", version[32] = "";
    const char *verdict = cts_certification_verdict(t.count, t.total, m->canonical, m->complete,
                                                    reason, sizeof reason);
    if (strcmp(verdict, m->verdict) != 0 || strcmp(reason, m->verdict_reason) != 0) {
        fprintf(out, "manifest.json: says %s, the results give %s%s%s\n", m->verdict, verdict,
                *reason ? ": " : "", reason);
        bad++;
    }
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        if (t.count[s] != m->counts[s]) {
            fprintf(out, "manifest.json: counts %zu %s, results.jsonl has %zu\n", m->counts[s],
                    cts_status_name((cts_status)s), t.count[s]);
            bad++;
        }
    if (t.total != m->total) {
        fprintf(out, "manifest.json: counts %zu cases in total, results.jsonl has %zu\n",
                m->total, t.total);
        bad++;
    }
    if (m->nshards == 0) {
        fprintf(out, "manifest.json: no run session recorded\n");
        bad++;
    }
    bad += cts_check_one_origin(res, m->shards, m->nshards, m->product, backend, contract,
                                version, "results.jsonl", out);
    if ((*backend && strcmp(backend, m->backend)) || (*contract && strcmp(contract, m->contract))) {
        fprintf(out, "manifest.json: says backend %s, contract %s; the results were run with "
                "%s, %s\n", m->backend, m->contract, backend, contract);
        bad++;
    }
    cts_audit au;
    memset(&au, 0, sizeof au);
    FILE *quiet = fopen("/dev/null", "w");
    cts_audit_results(&au, res, quiet ? quiet : stderr);
    if (quiet) fclose(quiet);
    for (const char *const *name = cts_package_rendered; *name; name++) {
        char *want = NULL, path[PATH_MAX * 2];
        size_t wlen = 0;
        FILE *mem = open_memstream(&want, &wlen);
        if (!mem || cts_package_render(*name, mem, m, res, &au) != 0) abort();
        fclose(mem);
        snprintf(path, sizeof path, "%s/%s", dir, *name);
        FILE *f = cts_package_fopen(path);
        char *got = malloc(wlen + 2);
        size_t glen = f && got ? fread(got, 1, wlen + 1, f) : 0;
        if (!f) {
            fprintf(out, "%s: missing\n", *name);
            bad++;
        } else if (glen != wlen || memcmp(got, want, wlen) != 0) {
            fprintf(out, "%s: differs from what results.jsonl and manifest.json give (the "
                    "file was replaced or edited)\n", *name);
            bad++;
        }
        if (f) fclose(f);
        free(got);
        free(want);
    }
    cts_audit_free(&au);
    return bad;
}

/* Everything the manifest and results.jsonl say, against the files and each other. */
static int check_contents(const char *dir, const cts_manifest *m, bool check_backend, FILE *out)
{
    char path[PATH_MAX * 2];
    int bad = check_manifest_files(dir, m, check_backend, out);
    cts_result_list res = {0};
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    int unreadable = cts_jsonl_read(path, &res, NULL, out);
    if (unreadable != 0) {
        fprintf(out, "results.jsonl: %s\n", unreadable < 0 ? "missing" : "unreadable records");
        cts_result_list_free(&res);
        return bad + 1;
    }
    bad += check_suites(dir, m, &res, out);
    bad += check_derived(dir, m, &res, out);
    cts_result_list_free(&res);
    return bad;
}

int cts_package_verify(const char *dir, bool check_backend, FILE *out, cts_manifest *m,
                       char digest[65])
{
    char path[PATH_MAX * 2], err[1200];
    memset(m, 0, sizeof *m);
    snprintf(digest, 65, "unknown");
    cts_names present = {0}, summed = {0};
    int bad = cts_package_entries(dir, &present, out);
    if (bad) {
        cts_names_free(&present);
        return bad;
    }
    bad = check_sums(dir, &present, &summed, out);
    snprintf(path, sizeof path, "%s/SHA256SUMS", dir);
    if (hash_package_file(path, digest) != 0) snprintf(digest, 65, "unknown");
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (!cts_names_has(&present, "manifest.json") ||
        cts_manifest_read(path, m, err, sizeof err) != 0) {
        fprintf(out, "manifest.json: %s\n", cts_names_has(&present, "manifest.json") ? err
                                                                                    : "missing");
        bad++;
    } else {
        bad += cts_package_check_closed(&summed, m, out);
        bad += check_contents(dir, m, check_backend, out);
    }
    cts_names_free(&present);
    cts_names_free(&summed);
    return bad;
}

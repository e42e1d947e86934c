/* `aclcts compare A B`: what changed between two runs of the same cases (a device on two
 * releases, two devices, a device against the torch backend). Records are matched by case id;
 * a case changed when its status, failing check, output hash or worst error differs. Changed
 * cases are grouped by what changed (a status change by its transition), each with the repro
 * lines of both sides; Markdown on stdout or OUT/compare.md, JSON in OUT/compare.json. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "package/package.h"

static const char compare_help[] =
    "usage: aclcts compare [--out DIR] A B\n"
    "\n"
    "Compares two runs case by case. A and B are each a results directory (its results.jsonl),\n"
    "a JSONL file, a certification package directory or a package archive (.tar.gz). A case\n"
    "changed when its status, failing check, output hash (the device's output bytes) or worst\n"
    "error (bound units or ULP) differs; changed cases are listed grouped by what changed, with\n"
    "the repro line of each side (a record without one, a PASS, gets one rebuilt from its\n"
    "backend, product, seed, contract and suite file: the emulator switches of that run are not\n"
    "on record), and cases present on one side only are named. Two runs of one product each,\n"
    "on different products (two devices), match their cases by id without the product.\n"
    "\n"
    "  --out DIR   write DIR/compare.md and DIR/compare.json (else Markdown on stdout only)\n"
    "\n"
    "Exit 0 when no case changed, 1 when some changed, 2 for usage or unreadable inputs.\n";

/* What differs between a's and b's record of one case: bits of CHG_*. */
enum { CHG_STATUS = 1, CHG_CHECK = 2, CHG_HASH = 4, CHG_WORST = 8 };

typedef struct {
    const cts_result *a, *b;
    int what;
    char group[96];
} change;

typedef struct {
    char src[PATH_MAX], tmp[PATH_MAX];
    cts_result_list res;
} side;

static bool same_double(double x, double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

static int differs(const cts_result *a, const cts_result *b)
{
    int w = 0;
    if (a->v.status != b->v.status) w |= CHG_STATUS;
    if (strcmp(a->v.check, b->v.check)) w |= CHG_CHECK;
    if (a->v.output_hash != b->v.output_hash) w |= CHG_HASH;
    if (!same_double(a->v.worst_bound_units, b->v.worst_bound_units) ||
        !same_double(a->v.worst_ulp, b->v.worst_ulp))
        w |= CHG_WORST;
    return w;
}

static void group_name(change *c)
{
    if (c->what & CHG_STATUS) {
        snprintf(c->group, sizeof c->group, "status %s -> %s",
                 cts_status_name(c->a->v.status), cts_status_name(c->b->v.status));
        return;
    }
    static const char *names[] = {"check", "output hash", "worst error"};
    int k = 0;
    for (int i = 0; i < 3; i++)
        if (c->what & (CHG_CHECK << i))
            k += snprintf(c->group + k, sizeof c->group - (size_t)k, "%s%s", k ? ", " : "",
                          names[i]);
}

/* A results directory, JSONL file, package directory or archive read into s->res. */
static int load_side(side *s, const char *path)
{
    struct stat st;
    char file[PATH_MAX + 32], dir[PATH_MAX], err[1024];
    snprintf(s->src, sizeof s->src, "%s", path);
    if (stat(path, &st) != 0) {
        fprintf(stderr, "aclcts: error: compare: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(file, sizeof file, "%s/results.jsonl", path);
    } else if (strlen(path) > 7 && !strcmp(path + strlen(path) - 7, ".tar.gz")) {
        if (cts_package_extract(path, s->tmp, sizeof s->tmp, dir, sizeof dir, err,
                                sizeof err)) {
            fprintf(stderr, "aclcts: error: compare: %s\n", err);
            return -1;
        }
        snprintf(file, sizeof file, "%s/results.jsonl", dir);
    } else {
        snprintf(file, sizeof file, "%s", path);
    }
    return cts_jsonl_read(file, &s->res, NULL, stderr) ? -1 : 0;
}

/* Two runs of one product each, on different products (two devices): cases are matched by
 * their id without the ".PRODUCT" it ends with. */
static bool strip_product;

static void key_of(const cts_result *r, char *buf, size_t n)
{
    snprintf(buf, n, "%s", r->v.case_id);
    size_t l = strlen(buf), p = strlen(r->product);
    if (strip_product && l > p + 1 && buf[l - p - 1] == '.' && !strcmp(buf + l - p, r->product))
        buf[l - p - 1] = 0;
}

static int by_id(const void *x, const void *y)
{
    char a[sizeof ((cts_result *)0)->v.case_id], b[sizeof a];
    key_of(x, a, sizeof a);
    key_of(y, b, sizeof b);
    return strcmp(a, b);
}

/* The one product of every record of l, or NULL when there are several (or none). */
static const char *sole_product(const cts_result_list *l)
{
    for (size_t i = 1; i < l->count; i++)
        if (strcmp(l->r[i].product, l->r[0].product)) return NULL;
    return l->count ? l->r[0].product : NULL;
}

static int by_group(const void *x, const void *y)
{
    const change *a = x, *b = y;
    int c = strcmp(a->group, b->group);
    return c ? c : strcmp(a->a->v.case_id, b->a->v.case_id);
}

/* The record's repro line, or one rebuilt from its fields. */
static void repro_of(const cts_result *r, char *buf, size_t len)
{
    if (r->repro[0]) {
        snprintf(buf, len, "%s", r->repro);
        return;
    }
    cli_repro_args a = {.backend = r->backend, .product = r->product, .seed = r->seed,
                        .id = r->v.case_id, .suite_file = r->file, .contract = r->contract};
    cli_repro_format(buf, len, &a);
}

typedef struct {
    change *c;
    size_t n;
    const cts_result **only_a, **only_b;
    size_t na, nb, same;
} comparison;

static void compare_lists(side *A, side *B, comparison *k)
{
    const char *pa = sole_product(&A->res), *pb = sole_product(&B->res);
    strip_product = pa && pb && strcmp(pa, pb) != 0;
    qsort(A->res.r, A->res.count, sizeof *A->res.r, by_id);
    qsort(B->res.r, B->res.count, sizeof *B->res.r, by_id);
    size_t cap = A->res.count + B->res.count + 1;
    k->c = calloc(cap, sizeof *k->c);
    k->only_a = calloc(cap, sizeof *k->only_a);
    k->only_b = calloc(cap, sizeof *k->only_b);
    if (!k->c || !k->only_a || !k->only_b) abort();
    size_t i = 0, j = 0;
    while (i < A->res.count || j < B->res.count) {
        int o = i == A->res.count   ? 1
                : j == B->res.count ? -1
                                    : by_id(&A->res.r[i], &B->res.r[j]);
        if (o < 0) { k->only_a[k->na++] = &A->res.r[i++]; continue; }
        if (o > 0) { k->only_b[k->nb++] = &B->res.r[j++]; continue; }
        change c = {&A->res.r[i++], &B->res.r[j++], 0, ""};
        if (!(c.what = differs(c.a, c.b))) { k->same++; continue; }
        group_name(&c);
        k->c[k->n++] = c;
    }
    qsort(k->c, k->n, sizeof *k->c, by_group);
}

static json_t *side_json(const cts_result *r)
{
    char repro[4096], hash[20];
    repro_of(r, repro, sizeof repro);
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)r->v.output_hash);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "status", cts_status_name(r->v.status),
                          "check", r->v.check, "output_hash", hash, "repro", repro);
    json_object_set_new(o, "worst_bound_units", isfinite(r->v.worst_bound_units)
                        ? json_real(r->v.worst_bound_units) : json_null());
    json_object_set_new(o, "worst_ulp", isfinite(r->v.worst_ulp) ? json_real(r->v.worst_ulp)
                                                                   : json_null());
    json_object_set_new(o, "message", json_string(r->v.message));
    return o;
}

static json_t *ids_json(const cts_result **r, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, json_string(r[i]->v.case_id));
    return a;
}

static json_t *comparison_json(const side *A, const side *B, const comparison *k)
{
    json_t *groups = json_array(), *g = NULL;
    for (size_t i = 0; i < k->n; i++) {
        if (!i || strcmp(k->c[i].group, k->c[i - 1].group)) {
            g = json_pack("{s:s, s:[]}", "change", k->c[i].group, "cases");
            json_array_append_new(groups, g);
        }
        json_array_append_new(json_object_get(g, "cases"),
                              json_pack("{s:s, s:o, s:o}", "id", k->c[i].a->v.case_id, "a",
                                        side_json(k->c[i].a), "b", side_json(k->c[i].b)));
    }
    return json_pack("{s:{s:s, s:I}, s:{s:s, s:I}, s:I, s:I, s:o, s:o, s:o, s:b}", "a", "source",
                     A->src, "cases", (json_int_t)A->res.count, "b", "source", B->src, "cases",
                     (json_int_t)B->res.count, "unchanged", (json_int_t)k->same, "changed",
                     (json_int_t)k->n, "groups", groups, "only_in_a",
                     ids_json(k->only_a, k->na), "only_in_b", ids_json(k->only_b, k->nb),
                     "matched_without_product", strip_product);
}

static void side_md(FILE *f, const char *label, const cts_result *r)
{
    char repro[4096];
    repro_of(r, repro, sizeof repro);
    fprintf(f, "  - %s: %s%s%s, output %016llx, worst %.4g bound units / %.4g ULP\n", label,
            cts_status_name(r->v.status), r->v.check[0] ? " " : "", r->v.check,
            (unsigned long long)r->v.output_hash, r->v.worst_bound_units, r->v.worst_ulp);
    fprintf(f, "    `%s`\n", repro);
}

static void comparison_md(FILE *f, const side *A, const side *B, const comparison *k)
{
    fprintf(f, "# aclcts compare\n\n- A: `%s` (%zu cases)\n- B: `%s` (%zu cases)\n\n", A->src,
            A->res.count, B->src, B->res.count);
    if (strip_product)
        fprintf(f, "A ran %s only, B %s only: cases matched by their id without the product\n\n",
                A->res.r[0].product, B->res.r[0].product);
    fprintf(f, "%zu cases in both: %zu unchanged, %zu changed; %zu only in A, %zu only in B\n",
            k->same + k->n, k->same, k->n, k->na, k->nb);
    for (size_t i = 0; i < k->n; i++) {
        size_t m = 0;
        if (!i || strcmp(k->c[i].group, k->c[i - 1].group)) {
            while (i + m < k->n && !strcmp(k->c[i + m].group, k->c[i].group)) m++;
            fprintf(f, "\n## %s (%zu)\n\n", k->c[i].group, m);
        }
        fprintf(f, "- `%s`\n", k->c[i].a->v.case_id);
        side_md(f, "A", k->c[i].a);
        side_md(f, "B", k->c[i].b);
    }
    const cts_result **only[2] = {k->only_a, k->only_b};
    size_t nonly[2] = {k->na, k->nb};
    for (int s = 0; s < 2; s++) {
        if (!nonly[s]) continue;
        fprintf(f, "\n## only in %c (%zu)\n\n", "AB"[s], nonly[s]);
        for (size_t i = 0; i < nonly[s]; i++)
            fprintf(f, "- `%s` %s\n", only[s][i]->v.case_id,
                    cts_status_name(only[s][i]->v.status));
    }
}

static int write_outputs(const char *out, const side *A, const side *B, const comparison *k)
{
    char path[PATH_MAX + 32];
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "aclcts: error: compare: %s: %s\n", out, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/compare.md", out);
    FILE *f = fopen(path, "w");
    if (f) comparison_md(f, A, B, k);
    if (!f || fclose(f) != 0) {
        fprintf(stderr, "aclcts: error: compare: writing %s: %s\n", path, strerror(errno));
        return -1;
    }
    snprintf(path, sizeof path, "%s/compare.json", out);
    json_t *j = comparison_json(A, B, k);
    int rc = json_dump_file(j, path, JSON_INDENT(1) | JSON_SORT_KEYS);
    json_decref(j);
    if (rc) fprintf(stderr, "aclcts: error: compare: writing %s\n", path);
    return rc ? -1 : 0;
}

int cli_compare(int argc, char **argv)
{
    const char *out = NULL, *paths[2];
    int np = 0, r;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(compare_help, stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--out", &out))) {
            if (r < 0) return CLI_EXIT_USAGE;
        } else if (argv[i][0] == '-' || np == 2) {
            fprintf(stderr, "aclcts: error: compare: unexpected %s (see aclcts compare "
                    "--help)\n", argv[i]);
            return CLI_EXIT_USAGE;
        } else {
            paths[np++] = argv[i];
        }
    }
    if (np != 2) {
        fprintf(stderr, "aclcts: error: compare needs two runs: aclcts compare A B\n");
        return CLI_EXIT_USAGE;
    }
    extern char **environ; /* rebuilt repro lines must not carry this process's switches */
    for (char **e = environ; e && *e;) {
        char name[128];
        size_t n = strcspn(*e, "=");
        if (strncmp(*e, "ACLNN_EMU_", 10) || n >= sizeof name) { e++; continue; }
        memcpy(name, *e, n);
        name[n] = 0;
        unsetenv(name);
    }
    side s[2];
    memset(s, 0, sizeof s);
    comparison k = {0};
    int rc = load_side(&s[0], paths[0]) || load_side(&s[1], paths[1]) ? CLI_EXIT_USAGE : 0;
    if (!rc) {
        compare_lists(&s[0], &s[1], &k);
        comparison_md(stdout, &s[0], &s[1], &k);
        if (out && write_outputs(out, &s[0], &s[1], &k)) rc = CLI_EXIT_USAGE;
        else rc = k.n || k.na || k.nb ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    }
    for (int i = 0; i < 2; i++) {
        if (s[i].tmp[0]) cts_remove_tree(s[i].tmp);
        cts_result_list_free(&s[i].res);
    }
    free(k.c);
    free(k.only_a);
    free(k.only_b);
    return rc;
}

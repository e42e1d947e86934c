/* `aclcts certify`: the certification of one product. Runs the suites with the run subcommand
 * (in process, the same machinery as `aclcts run`) or takes the shards' results.jsonl files,
 * checks that every case of the suite set is there exactly once from one backend, contract and
 * aclcts version, and only then writes the package: manifest.json, results.jsonl (in case
 * order), summary.md, junit.xml, audit.md, audit.csv, report.html (rendered from those two),
 * suites/, SHA256SUMS, and OUT.tar.gz. Everything is built in a temporary directory beside OUT
 * and renamed into place at the end, so no half-built package is ever left. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/report.h"
#include "package/package.h"
#include "results/results.h"

static const char certify_help[] =
    "usage: aclcts certify --product ID [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Certifies one product against the suites (default ./suites; only the canonical suite set\n"
    "this aclcts ships can give CONFORMANT) and writes a package a third party can re-check\n"
    "with `aclcts verify-package`:\n"
    "  OUT/manifest.json   suite set (canonical or not), completeness, verdict, counts, waivers,\n"
    "                      every run session (host, SoC, backend and its libraries' SHA-256,\n"
    "                      contract, aclcts version, times, command, shard), every file's SHA-256\n"
    "  OUT/results.jsonl   one record per case, in case order\n"
    "  OUT/summary.md, junit.xml, audit.md, audit.csv, report.html: rendered from the two above\n"
    "  OUT/suites/         the suites as run\n"
    "  OUT/evidence.tar.gz the device's outputs of every case whose outputs were judged (run\n"
    "                      --evidence), for verify-package --rejudge\n"
    "  OUT/SHA256SUMS      every file's SHA-256 (sha256sum -c format); its own SHA-256 is the\n"
    "                      package digest printed at the end\n"
    "  OUT.tar.gz          the same directory\n"
    "\n"
    "Options:\n"
    "  --product ID       the product certified (required; one product)\n"
    "  --backend SPEC     emu (default), cann[:DIR], torch: as for run\n"
    "  --out DIR          package directory (default certification-PRODUCT); neither it nor\n"
    "                     DIR.tar.gz may exist\n"
    "  --jobs N           workers (default: online CPUs)\n"
    "  --seed S           override the suites' seeds\n"
    "  --timeout S        seconds per case (default 60)\n"
    "  --keep-dump DIR    also --dump the run's tensors there (not needed by the audit)\n"
    "  --contract C       judge by doc (default), vendor@9.2 (vendor), vendor@9.1, vendor@9.0 or\n"
    "                     vendor@8.5 (vendor-old);\n"
    "                     the package records it (docs/contract.md)\n"
    "  --sign KEY.pem     also write OUT/SHA256SUMS.sig, an Ed25519 signature of SHA256SUMS\n"
    "                     (the package digest) with this private key (`openssl genpkey\n"
    "                     -algorithm ed25519`); verify-package --pubkey checks it\n"
    "\n"
    "Across machines (docs/certification.md): run the shards with `aclcts run --shard K/N`\n"
    "(or tools/slurm, tools/k8s), then package them here instead of running:\n"
    "  --evidence DIR     the shards' --evidence directory, packed as OUT/evidence.tar.gz\n"
    "  --results F        a shard's results.jsonl (repeatable); its run sessions are read from\n"
    "                     F's provenance file (results.provenance.jsonl beside it)\n"
    "\n"
    "No package is written, and the exit status is 1, when a case of the suites has no result\n"
    "or more than one, a record contradicts itself (a PASS over its tolerance), or records or\n"
    "sessions mix backends, contracts or aclcts versions: each is named. Scheduler variables\n"
    "(SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, GTEST_SHARD_INDEX) are refused: a\n"
    "certification is never a shard.\n"
    "\n"
    "Exit 0 when the verdict is CONFORMANT (canonical suite set, complete, no FAIL, CRASH,\n"
    "TIMEOUT, ERROR or RESOURCE_ERROR), 1 otherwise, 2 for usage or suite errors.\n";

typedef struct {
    const char *product, *backend, *out, *jobs, *seed, *timeout, *keep_dump, *contract, *sign;
    const char *evidence; /* --evidence DIR of the shards (--results) */
    const char *paths[CLI_MAX_ARGS];
    int npaths;
    const char *results[CLI_MAX_ARGS];
    int nresults;
} certify_args;

static int parse(int argc, char **argv, certify_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        static const char *const names[] = {"--product", "--backend", "--out", "--jobs",
                                            "--seed", "--timeout", "--keep-dump", "--contract",
                                            "--sign", "--evidence"};
        const char **dst[] = {&a->product, &a->backend, &a->out, &a->jobs, &a->seed,
                              &a->timeout, &a->keep_dump, &a->contract, &a->sign,
                              &a->evidence};
        int r = 0;
        for (size_t k = 0; k < sizeof names / sizeof names[0] && r == 0; k++)
            r = cli_opt_value(argc, argv, &i, names[k], dst[k]);
        if (r < 0) return -1;
        if (r > 0) continue;
        const char *v;
        if ((r = cli_opt_value(argc, argv, &i, "--results", &v)) != 0) {
            if (r < 0 || a->nresults == CLI_MAX_ARGS) return -1;
            a->results[a->nresults++] = v;
            continue;
        }
        if (argv[i][0] == '-') {
            fprintf(stderr, "aclcts: error: certify: unknown option %s (see aclcts certify "
                    "--help)\n", argv[i]);
            return -1;
        }
        if (a->npaths < CLI_MAX_ARGS) a->paths[a->npaths++] = argv[i];
    }
    ref_product p;
    if (!a->product || ref_product_from_id(a->product, &p) != 0) {
        fprintf(stderr, "aclcts: error: certify needs --product ID (one product, e.g. "
                "ascend910b)\n");
        return -1;
    }
    if (a->npaths == 0) a->paths[a->npaths++] = "suites";
    char err[PATH_MAX + 200];
    if (a->sign && cts_signing_key_check(a->sign, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: --sign %s\n", err);
        return -1;
    }
    return 0;
}

/* fclose after checking that every write reached the file: 0, or -1 with errno. */
static int close_checked(FILE *f)
{
    errno = 0;
    int e = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !e) e = errno;
    errno = e;
    return e ? -1 : 0;
}

/* "writing the package's NAME: reason" for a file of the temporary directory (removed after). */
static void package_write_error(const char *name)
{
    fprintf(stderr, "aclcts: error: certify: writing the package's %s: %s\n", name,
            strerror(errno ? errno : EIO));
}

static void now_iso(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in && ferror(in)) rc = -1;
    if (in) fclose(in);
    if (out && close_checked(out) != 0) rc = -1;
    return rc;
}

/* Hash DIR/name into the manifest under role. */
static int add_hashed(cts_manifest *m, const char *dir, const char *role, const char *name,
                      const char *source)
{
    char path[PATH_MAX * 2], hex[65];
    int len = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (len < 0 || (size_t)len >= sizeof path) {
        fprintf(stderr, "aclcts: error: hashing %s/%s: the path is too long\n", dir, name);
        return -1;
    }
    if (cts_sha256_file(path, hex) != 0) {
        fprintf(stderr, "aclcts: error: hashing %s: %s\n", path, strerror(errno));
        return -1;
    }
    cts_manifest_add_file(m, role, name, source, hex);
    return 0;
}

/* Copies each suite file into DIR/suites/ (an operator's suites into its folder there, as in
 * suites/: cts_suite_key) and lists it. */
static int add_suites(cts_manifest *m, const char *dir, const cts_names *files)
{
    char sdir[PATH_MAX * 2], dst[PATH_MAX * 3], key[PATH_MAX], name[PATH_MAX + 8],
        shown[PATH_MAX];
    snprintf(sdir, sizeof sdir, "%s/suites", dir);
    if (mkdir(sdir, 0777) != 0 && errno != EEXIST) {
        package_write_error("suites/");
        return -1;
    }
    for (size_t i = 0; i < files->n; i++) {
        const char *file = files->v[i];
        cts_suite_key(file, key, sizeof key);
        snprintf(name, sizeof name, "suites/%s", key);
        snprintf(dst, sizeof dst, "%s/%s", dir, name);
        const char *folder = strchr(key, '/');
        snprintf(sdir, sizeof sdir, "%s/suites/%.*s", dir, folder ? (int)(folder - key) : 0, key);
        if (folder && mkdir(sdir, 0777) != 0 && errno != EEXIST) {
            package_write_error(name);
            return -1;
        }
        cli_display_path(file, shown, sizeof shown);
        if (copy_file(file, dst) != 0) {
            package_write_error(name);
            return -1;
        }
        if (add_hashed(m, dir, "suite", name, shown) != 0) return -1;
    }
    return 0;
}

/* Runs the cases of l into dir with `aclcts run` (no shard: the scheduler variables were
 * refused); its records into got. */
static int run_here(const certify_args *a, const char *dir, const cts_loaded *l,
                    cts_result_list *got, const char *package)
{
    char *rargv[CLI_MAX_ARGS + 24], evidence[PATH_MAX * 2];
    int rn = 0;
    snprintf(evidence, sizeof evidence, "%s/evidence", dir);
    rargv[rn++] = "run";
    const char *pairs[][2] = {{"--product", a->product}, {"--backend", a->backend},
                              {"--out", dir}, {"--dump", a->keep_dump}, {"--jobs", a->jobs},
                              {"--seed", a->seed}, {"--timeout", a->timeout},
                              {"--contract", a->contract}, {"--evidence", evidence}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (pairs[k][1]) {
            rargv[rn++] = (char *)pairs[k][0];
            rargv[rn++] = (char *)pairs[k][1];
        }
    rargv[rn++] = "--quiet";
    for (int k = 0; k < a->npaths; k++) rargv[rn++] = (char *)a->paths[k];
    rargv[rn] = NULL;
    return cli_run_loaded(rn, rargv, l, got, package);
}

/* The run sessions of one results file into m; 0, or -1 (printed). */
static int read_sessions(const char *file, cts_manifest *m)
{
    char prov[PATH_MAX + 32], err[1400];
    cts_provenance *p;
    size_t n;
    cts_provenance_path(file, prov, sizeof prov);
    if (cts_provenance_read(prov, &p, &n, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: the run sessions of %s: %s (a shard must be "
                "run by `aclcts run`, which writes them)\n", file, err);
        free(p);
        return -1;
    }
    for (size_t i = 0; i < n; i++) cts_manifest_add_shard(m, &p[i]);
    free(p);
    return 0;
}

/* Reads one results file and its sessions into res and m; 0, or -1 (printed). */
static int read_shard(const char *file, cts_result_list *res, cts_manifest *m)
{
    int bad = cts_jsonl_read(file, res, NULL, stderr);
    if (bad != 0) {
        fprintf(stderr, "aclcts: error: certify: %s: %s\n", file,
                bad < 0 ? strerror(errno) : "unreadable records (above)");
        return -1;
    }
    return read_sessions(file, m);
}

/* A record's id and index, sorted by both: the first record of an id comes first. */
typedef struct {
    const char *id;
    size_t i;
} id_index;

static int by_id_then_index(const void *a, const void *b)
{
    const id_index *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* The index of the first record of case id in sorted (n of them), or -1. */
static ptrdiff_t first_record(const id_index *sorted, size_t n, const char *id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first entry whose id is not below */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(sorted[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && !strcmp(sorted[lo].id, id) ? (ptrdiff_t)sorted[lo].i : -1;
}

/* The records in the order of the suites' cases (so any sharding gives the same file), one per
 * case (its first): into out, and their indices in in into order (out->count of them). */
static void case_order(const cts_loaded *l, const cts_result_list *in, cts_result_list *out,
                       size_t **order)
{
    id_index *sorted = malloc((in->count ? in->count : 1) * sizeof *sorted);
    *order = malloc((l->nsel ? l->nsel : 1) * sizeof **order);
    if (!sorted || !*order) abort();
    for (size_t i = 0; i < in->count; i++) sorted[i] = (id_index){in->r[i].v.case_id, i};
    qsort(sorted, in->count, sizeof *sorted, by_id_then_index);
    for (size_t k = 0; k < l->nsel; k++) {
        ptrdiff_t i = first_record(sorted, in->count, l->sel[k]->id);
        if (i < 0) continue;
        (*order)[out->count] = (size_t)i;
        cts_result_list_push(out, &in->r[i]);
    }
    free(sorted);
}

/* The lines of the run's results.jsonl as it wrote them (an in-process run): line i is the
 * record in got->r[i], checked by its leading id. The package then holds the records byte for
 * byte as the run wrote them, without formatting them again. */
typedef struct {
    char *text;
    size_t *start; /* n + 1 offsets: line i is text[start[i] .. start[i + 1]) */
    size_t n;
} run_lines;

static void run_lines_free(run_lines *rl)
{
    free(rl->text);
    free(rl->start);
    memset(rl, 0, sizeof *rl);
}

static bool line_is_record(const char *line, size_t len, const cts_result *r)
{
    static const char head[] = "{\"id\":\"";
    size_t h = sizeof head - 1, n = strlen(r->v.case_id);
    return len > h + n && !memcmp(line, head, h) && !memcmp(line + h, r->v.case_id, n) &&
           line[h + n] == '"';
}

/* Reads path into rl when its lines match got one for one; else leaves rl empty (the package
 * then formats the records). */
static void read_run_lines(const char *path, const cts_result_list *got, run_lines *rl)
{
    memset(rl, 0, sizeof *rl);
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return;
    if (fstat(fileno(f), &st) == 0 && (rl->text = malloc((size_t)st.st_size + 1)) &&
        (rl->start = malloc((got->count + 1) * sizeof *rl->start)) &&
        fread(rl->text, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
        size_t at = 0, len = (size_t)st.st_size;
        for (; rl->n < got->count && at < len; rl->n++) {
            const char *nl = memchr(rl->text + at, '\n', len - at);
            size_t end = nl ? (size_t)(nl - rl->text) + 1 : len;
            if (!nl || !line_is_record(rl->text + at, end - at, &got->r[rl->n])) break;
            rl->start[rl->n] = at;
            at = end;
        }
        rl->start[rl->n] = at;
        if (rl->n != got->count || at != len) run_lines_free(rl);
    } else {
        run_lines_free(rl);
    }
    fclose(f);
}

/* The package's results.jsonl: the run's lines in case order, or the records formatted. */
static int write_records(const char *path, const cts_result_list *res, const size_t *order,
                         const run_lines *rl)
{
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : -1;
    for (size_t k = 0; rc == 0 && k < res->count; k++) {
        if (!rl->text) {
            rc = cts_jsonl_append(f, &res->r[k]);
            continue;
        }
        size_t i = order[k], n = rl->start[i + 1] - rl->start[i];
        if (fwrite(rl->text + rl->start[i], 1, n, f) != n) rc = -1;
    }
    if (f && rc == 0) rc = cts_jsonl_sync(f);
    if (f && close_checked(f) != 0) rc = -1;
    return rc;
}

/* Writes results.jsonl, the rendered files, the suites, the manifest; 0 or -1 (printed,
 * naming the file that could not be written). */
/* The evidence of the outputs (a directory of the run's --evidence) as dir/evidence.tar.gz;
 * a run here leaves it in dir/evidence, removed once archived. 0, or -1 (printed). */
static int add_evidence(cts_manifest *m, const char *dir, const char *evidence)
{
    char own[PATH_MAX * 2], tar[PATH_MAX * 2], err[PATH_MAX + 400];
    snprintf(own, sizeof own, "%s/evidence", dir);
    snprintf(tar, sizeof tar, "%s/evidence.tar.gz", dir);
    const char *source = evidence;
    if (!evidence) evidence = own;
    if (access(evidence, F_OK) != 0) return 0;
    int rc = cts_package_tar(evidence, tar, err, sizeof err);
    if (rc != 0) fprintf(stderr, "aclcts: error: certify: writing %s\n", err);
    if (evidence == own) cts_remove_tree(own);
    return rc == 0 ? add_hashed(m, dir, "evidence", "evidence.tar.gz", source) : -1;
}

static int write_package(const char *dir, cts_manifest *m, const cts_result_list *res,
                         const size_t *order, const run_lines *rl, const cts_names *suites,
                         const char *evidence)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/results.jsonl", dir);
    if (write_records(path, res, order, rl) != 0) {
        package_write_error("results.jsonl");
        return -1;
    }
    int rc = add_hashed(m, dir, "result", "results.jsonl", NULL);
    cts_audit au;
    memset(&au, 0, sizeof au);
    cts_audit_results(&au, res, stderr);
    for (const char *const *name = cts_package_rendered; rc == 0 && *name; name++) {
        snprintf(path, sizeof path, "%s/%s", dir, *name);
        FILE *f = fopen(path, "w");
        errno = 0;
        if (!f || cts_package_render(*name, f, m, res, &au) != 0) rc = -1;
        if (f && close_checked(f) != 0) rc = -1;
        if (rc != 0) package_write_error(*name);
        if (rc == 0) rc = add_hashed(m, dir, "report", *name, NULL);
    }
    cts_audit_free(&au);
    if (rc == 0) rc = add_suites(m, dir, suites);
    if (rc == 0) rc = add_evidence(m, dir, evidence);
    if (rc != 0) return rc;
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    FILE *f = fopen(path, "w");
    errno = 0;
    if (!f || cts_manifest_write(f, m) != 0) rc = -1;
    if (f && close_checked(f) != 0) rc = -1;
    if (rc != 0) package_write_error("manifest.json");
    return rc;
}

/* The suite set given against the canonical one (differences printed). */
static int suite_set(const certify_args *a, cts_manifest *m, cts_names *files)
{
    cts_suite_hash *h;
    size_t n;
    char err[600];
    if (cts_suite_hashes(a->paths, a->npaths, &h, &n, files, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: %s\n", err);
        cts_suite_hashes_free(h, n);
        return -1;
    }
    cts_suite_set_digest(h, n, m->suite_set);
    snprintf(m->canonical_set, sizeof m->canonical_set, "%s", cts_canonical_digest);
    m->canonical = cts_suite_set_differences(h, n, "aclcts: warning: certify: suites/",
                                             stderr) == 0;
    cts_suite_hashes_free(h, n);
    return 0;
}

/* The commit of the suites' repository (that of the first case's suite file), asked of git
 * while the cases run: the answer is read by packaging_facts. */
static FILE *start_commit_query(const cts_loaded *l)
{
    char srcdir[PATH_MAX], cmd[PATH_MAX + 64];
    snprintf(srcdir, sizeof srcdir, "%s", l->all.ncases && l->all.cases[0].mark.file
                                              ? l->all.cases[0].mark.file : ".");
    if (strrchr(srcdir, '/')) *strrchr(srcdir, '/') = 0;
    else snprintf(srcdir, sizeof srcdir, ".");
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", srcdir);
    return cts_command_start(cmd);
}

/* The package's facts that are not about the runs; git: start_commit_query's (closed here). */
static void packaging_facts(cts_manifest *m, const certify_args *a, FILE **git, int argc,
                            char **argv)
{
    cts_command_finish(*git, m->commit, sizeof m->commit);
    *git = NULL;
    if (!*m->commit) snprintf(m->commit, sizeof m->commit, "unknown");
    snprintf(m->version, sizeof m->version, "%s", ACLCTS_VERSION);
    snprintf(m->product, sizeof m->product, "%s", a->product);
    snprintf(m->seed, sizeof m->seed, "%s", a->seed ? a->seed : "suite");
    if (gethostname(m->host, sizeof m->host - 1) != 0) snprintf(m->host, sizeof m->host, "unknown");
    size_t n = (size_t)snprintf(m->command, sizeof m->command, "aclcts");
    for (int i = 0; i < argc && n < sizeof m->command; i++)
        n += (size_t)snprintf(m->command + n, sizeof m->command - n, " %s", argv[i]);
}

typedef struct {
    certify_args a;
    char out[PATH_MAX], tar[PATH_MAX + 8], tmp[PATH_MAX + 32], lock[PATH_MAX + 8];
    int lock_fd;        /* OUT.lock, held from the start: one certify writes OUT at a time */
    bool owns;          /* OUT, OUT.tar.gz and OUT.partial-* are this certify's to make */
    bool placed;        /* OUT is the renamed package (removed again if certify stops) */
    cts_loaded l;
    cts_manifest m;
    cts_result_list got, res;
    size_t *order;      /* res->r[k] is got->r[order[k]] */
    FILE *git;          /* start_commit_query's, until packaging_facts reads it */
    run_lines lines;    /* of got, when the run was here */
    cts_names suites;
} certify_state;

static void state_free(certify_state *s)
{
    if (*s->tmp) cts_remove_tree(s->tmp);
    if (s->lock_fd >= 0) {
        unlink(s->lock);
        close(s->lock_fd);
    }
    cts_loaded_free(&s->l);
    cts_manifest_free(&s->m);
    cts_result_list_free(&s->got);
    cts_result_list_free(&s->res);
    free(s->order);
    if (s->git) {
        char ignored[64];
        cts_command_finish(s->git, ignored, sizeof ignored);
    }
    run_lines_free(&s->lines);
    cts_names_free(&s->suites);
}

/* Where the package goes, locked (OUT.lock, naming the holder's pid to a second certify);
 * 0, or CLI_EXIT_USAGE (printed). */
static int choose_paths(certify_state *s)
{
    struct stat st;
    char err[PATH_MAX + 160];
    if (s->a.out) snprintf(s->out, sizeof s->out, "%s", s->a.out);
    else snprintf(s->out, sizeof s->out, "certification-%s", s->a.product);
    size_t n = strlen(s->out);
    while (n > 1 && s->out[n - 1] == '/') s->out[--n] = 0;
    snprintf(s->tar, sizeof s->tar, "%s.tar.gz", s->out);
    snprintf(s->lock, sizeof s->lock, "%s.lock", s->out);
    if ((s->lock_fd = cts_out_lock(s->lock, s->out, O_WRONLY, err, sizeof err)) < 0) {
        fprintf(stderr, "aclcts: error: certify: %s\n", err);
        return CLI_EXIT_USAGE;
    }
    const char *exists = lstat(s->out, &st) == 0 ? s->out : lstat(s->tar, &st) == 0 ? s->tar
                                                                                     : NULL;
    if (exists) {
        fprintf(stderr, "aclcts: error: certify: %s exists; a package is written to a new "
                "path (remove it or choose --out)\n", exists);
        return CLI_EXIT_USAGE;
    }
    snprintf(s->tmp, sizeof s->tmp, "%s.partial-XXXXXX", s->out);
    if (!mkdtemp(s->tmp)) {
        fprintf(stderr, "aclcts: error: certify: creating %s: %s\n", s->tmp, strerror(errno));
        *s->tmp = 0;
        return CLI_EXIT_USAGE;
    }
    s->owns = true;
    return 0;
}

/* ---- SIGINT and SIGTERM: certify stops at the next step and leaves nothing (no OUT,
 * OUT.partial-*, OUT.tar.gz or its .partial); the run inside handles them itself. ---- */

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    if (!stop_signal) stop_signal = sig;
}

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN); /* a file size limit is a write error, reported */
}

/* The exit code of a stop asked for by a signal (128 + its number), or 0. */
static int stop_code(void)
{
    return stop_signal ? 128 + stop_signal : 0;
}

/* Removes what certify made (the temporary directory goes with state_free). */
static void remove_outputs(certify_state *s)
{
    char partial[PATH_MAX + 24];
    if (!s->owns) return; /* another's, or there before */
    if (s->placed) cts_remove_tree(s->out);
    s->placed = false;
    unlink(s->tar);
    snprintf(partial, sizeof partial, "%s.partial", s->tar);
    unlink(partial);
}

/* The records: run here (on the cases loaded, the records as the run wrote them), or read
 * from the shards. 0, or an exit code. */
static int gather(certify_state *s)
{
    if (s->a.nresults == 0) {
        int rc = run_here(&s->a, s->tmp, &s->l, &s->got, s->out);
        if (rc == CLI_EXIT_USAGE || rc > 128) return rc; /* a write error, or interrupted */
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/results.jsonl", s->tmp);
        rc = read_sessions(path, &s->m);
        read_run_lines(path, &s->got, &s->lines);
        static const char *const scratch[] = {"results.jsonl", "results.provenance.jsonl",
                                              "repro"};
        for (size_t k = 0; k < sizeof scratch / sizeof *scratch; k++) {
            snprintf(path, sizeof path, "%s/%s", s->tmp, scratch[k]);
            cts_remove_tree(path);
        }
        return rc ? CLI_EXIT_USAGE : 0;
    }
    for (int k = 0; k < s->a.nresults; k++)
        if (read_shard(s->a.results[k], &s->got, &s->m) != 0) return CLI_EXIT_USAGE;
    return 0;
}

/* Complete and of one origin; else every problem printed and CLI_EXIT_FAIL. */
static int check_complete(certify_state *s)
{
    char backend[64] = "", contract[16] = "", version[32] = "";
    if (s->a.backend) snprintf(backend, sizeof backend, "%s", s->a.backend);
    int bad = cts_check_case_set(&s->l, &s->got, "aclcts: error: certify", stderr);
    bad += cts_check_records(&s->l, &s->got, "aclcts: error: certify", stderr);
    bad += cts_check_one_origin(&s->got, s->m.shards, s->m.nshards, s->a.product, backend,
                                contract, version, "aclcts: error: certify", stderr);
    if (bad) {
        fprintf(stderr, "aclcts: error: certify: no package written: %d problem%s above (a "
                "certification needs every case exactly once, each record consistent, from one "
                "backend, contract and aclcts version)\n", bad, bad == 1 ? "" : "s");
        return CLI_EXIT_FAIL;
    }
    snprintf(s->m.backend, sizeof s->m.backend, "%s", backend);
    snprintf(s->m.contract, sizeof s->m.contract, "%s", contract);
    s->m.complete = true;
    return 0;
}

/* A certification runs every case in one place: refused under a scheduler's shard variables,
 * and --results (the shards' records) runs nothing. 0, or CLI_EXIT_USAGE (printed). */
static int refuse_partial_run(const certify_args *a)
{
    const char *var = cts_scheduler_shard_variable();
    if (var) {
        fprintf(stderr, "aclcts: error: certify: %s is set: a certification runs every case, "
                "never a shard; run the shards with `aclcts run --shard K/N` (tools/slurm, "
                "tools/k8s) and package them with `certify --results`\n", var);
        return CLI_EXIT_USAGE;
    }
    if (a->nresults && (a->jobs || a->timeout || a->keep_dump)) {
        fprintf(stderr, "aclcts: error: certify: --jobs, --timeout and --keep-dump are for a "
                "run; with --results nothing runs\n");
        return CLI_EXIT_USAGE;
    }
    return 0;
}

/* Every case of the suites for the product, under the contract and seed given. 0, or
 * CLI_EXIT_USAGE (printed). */
static int selection_of(const certify_args *a, cts_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    sel->product = a->product;
    if (a->contract && cli_parse_contract(a->contract, &sel->contract) != 0)
        return CLI_EXIT_USAGE;
    for (int k = 0; k < a->npaths; k++) sel->paths[sel->npaths++] = a->paths[k];
    if (a->seed) {
        char *end;
        errno = 0;
        sel->seed = strtoull(a->seed, &end, 0);
        sel->have_seed = true;
        if (errno || end == a->seed || *end || *a->seed == '-') {
            fprintf(stderr, "aclcts: error: --seed %s: expected a whole number >= 0\n", a->seed);
            return CLI_EXIT_USAGE;
        }
    }
    return 0;
}

/* A waiver record into the manifest, with its case's waiver fields as their own keys. */
static void add_waiver(cts_manifest *m, const cts_loaded *l, const cts_result *r)
{
    cts_manifest_waiver w = {.expired = r->v.status == CTS_FAIL};
    snprintf(w.case_id, sizeof w.case_id, "%s", r->v.case_id);
    snprintf(w.reason, sizeof w.reason, "%s", r->v.message);
    const cts_case *c = cli_case_by_id(l, r->v.case_id);
    if (c) {
        snprintf(w.waiver_reason, sizeof w.waiver_reason, "%s", c->waiver ? c->waiver : "");
        snprintf(w.tracking, sizeof w.tracking, "%s", c->waiver_tracking ? c->waiver_tracking : "");
        snprintf(w.owner, sizeof w.owner, "%s", c->waiver_owner ? c->waiver_owner : "");
        snprintf(w.expires, sizeof w.expires, "%s", c->waiver_expires ? c->waiver_expires : "");
    }
    cts_manifest_add_waiver_of(m, &w);
}

/* The manifest's verdict, counts (into t), waivers and facts of a complete record set. */
static void conclude(certify_state *s, int argc, char **argv, cts_tally *t)
{
    packaging_facts(&s->m, &s->a, &s->git, argc, argv);
    case_order(&s->l, &s->got, &s->res, &s->order);
    cts_tally_results(s->res.r, s->res.count, t);
    memcpy(s->m.counts, t->count, sizeof s->m.counts);
    s->m.total = t->total;
    snprintf(s->m.verdict, sizeof s->m.verdict, "%s",
             cts_certification_verdict(t->count, t->total, s->m.canonical, s->m.complete,
                                       s->m.verdict_reason, sizeof s->m.verdict_reason));
    for (size_t i = 0; i < s->res.count; i++) /* used waivers, and expired ones (FAILs) */
        if (cts_is_waiver_record(&s->res.r[i])) add_waiver(&s->m, &s->l, &s->res.r[i]);
    now_iso(s->m.start, sizeof s->m.start);
    snprintf(s->m.end, sizeof s->m.end, "%s", s->m.start);
}

/* The package written and sealed in the temporary directory, renamed to OUT, and archived;
 * *t_written: the monotonic time when its files were written (before the seal). 0, or -1
 * (printed). */
static int seal_package(certify_state *s, char digest[65], double *t_written)
{
    char err[1400];
    int rc = write_package(s->tmp, &s->m, &s->res, s->order, &s->lines, &s->suites,
                           s->a.evidence);
    *t_written = cli_mono();
    if (rc == 0 && stop_signal) rc = -1; /* stopped while writing: the temporary dir goes */
    if (rc == 0 && !stop_signal && cts_package_seal(s->tmp, digest, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && s->a.sign && cts_package_sign(s->tmp, s->a.sign, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: %s\n", err);
        rc = -1;
    }
    if (rc == 0 && chmod(s->tmp, 0755) != 0) rc = -1; /* mkdtemp made it private */
    if (rc == 0 && !stop_signal && rename(s->tmp, s->out) != 0) {
        fprintf(stderr, "aclcts: error: certify: %s -> %s: %s\n", s->tmp, s->out,
                strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        *s->tmp = 0;
        s->placed = true;
    }
    if (rc == 0 && !stop_signal && cts_package_tar(s->out, s->tar, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: certify: writing %s\n", err);
        rc = -1;
    }
    if (rc != 0) remove_outputs(s); /* a package without its archive is no package */
    return rc;
}

/* A waiver as the run used it, then its own fields (the tracking reference first). */
static void print_waiver(const cts_manifest_waiver *w)
{
    printf("  waiver: %s: %s\n", w->case_id, w->reason);
    printf("    tracking %s; owner %s; expires %s; %s\n", *w->tracking ? w->tracking : "-",
           *w->owner ? w->owner : "-", *w->expires ? w->expires : "-",
           w->expired ? "EXPIRED: the case fails" : "in force");
}

static void print_outcome(const certify_state *s, const cts_tally *t, const char *digest,
                          bool sealed)
{
    printf("\n%s: %s (%zu cases", s->a.product, s->m.verdict, t->total);
    for (int st = 0; st < CTS_STATUS_COUNT; st++)
        if (t->count[st]) printf(", %zu %s", t->count[st], cts_status_name((cts_status)st));
    printf(")%s%s\n", *s->m.verdict_reason ? ": " : "", s->m.verdict_reason);
    for (size_t i = 0; i < s->m.nwaivers; i++)
        print_waiver(&s->m.waivers[i]);
    if (sealed)
        printf("suite set: %s\npackage: %s  %s\npackage digest (SHA-256 of SHA256SUMS): %s\n",
               s->m.canonical ? "canonical" : "NOT the canonical set of this aclcts", s->out,
               s->tar, digest);
    if (sealed && s->a.sign)
        printf("signature: %s/%s (Ed25519 of SHA256SUMS by %s)\n", s->out,
               CTS_PACKAGE_SIGNATURE, s->a.sign);
}

/* The end of a certify that wrote no package: whatever it made removed, why said once. */
static int no_package(certify_state *s, int rc)
{
    remove_outputs(s);
    bool partial = *s->tmp != 0;
    state_free(s);
    if (rc > 128)
        fprintf(stderr, "aclcts: certify: interrupted by %s: no package written%s\n",
                rc == 128 + SIGINT ? "SIGINT" : "SIGTERM",
                partial ? " (the partial one is removed)" : "");
    else if (rc == CLI_EXIT_USAGE && partial)
        fprintf(stderr, "aclcts: certify: no package written (the partial one is removed)\n");
    return rc;
}

int cli_certify(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(certify_help, stdout);
            return CLI_EXIT_OK;
        }
    certify_state s;
    memset(&s, 0, sizeof s);
    s.lock_fd = -1;
    if (parse(argc, argv, &s.a) != 0) return CLI_EXIT_USAGE;
    stop_signal = 0;
    catch_stop_signals();
    int rc = refuse_partial_run(&s.a);
    if (rc == 0) rc = choose_paths(&s);
    if (rc) return no_package(&s, rc);
    cts_selection sel;
    rc = selection_of(&s.a, &sel);
    double tl = cli_mono();
    if (rc == 0) rc = cts_selection_load(&sel, &s.l) ? CLI_EXIT_USAGE : 0;
    if (rc == 0) s.git = start_commit_query(&s.l);
    double t0 = cli_mono();
    if (rc == 0 && !(rc = stop_code())) rc = gather(&s);
    double t1 = cli_mono();
    if (rc == 0 && !(rc = stop_code())) rc = check_complete(&s);
    if (rc == 0 && suite_set(&s.a, &s.m, &s.suites) != 0) rc = CLI_EXIT_USAGE;
    if (rc == 0) rc = stop_code();
    if (rc) return no_package(&s, rc);
    cts_tally t;
    conclude(&s, argc, argv, &t);
    char digest[65] = "";
    double t2 = cli_mono(), t3;
    if (seal_package(&s, digest, &t3) != 0)
        return no_package(&s, stop_code() ? stop_code() : CLI_EXIT_USAGE);
    if ((rc = stop_code())) return no_package(&s, rc);
    print_outcome(&s, &t, digest, true);
    /* tools/bench-suite reads this line */
    printf("time: load %.3f s, run %.3f s, verdict %.3f s, audit, reports and manifest %.3f s, "
           "seal and tar %.3f s\n", t0 - tl, t1 - t0, t2 - t1, t3 - t2, cli_mono() - t3);
    bool conformant = strcmp(s.m.verdict, "CONFORMANT") == 0;
    state_free(&s);
    return conformant ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* `aclcts certify`: the certification run of one product. Runs the certification suite set with
 * the run subcommand (in process, so it is the same machinery as `aclcts run`), builds the
 * precision audit from the element statistics in its results.jsonl, then writes the package: manifest.json,
 * results.jsonl, junit.xml, summary.md, audit.md, audit.csv, report.html, the suites as run,
 * SHA256SUMS, and DIR.tar.gz. Exit 0 CONFORMANT, 1 NOT CONFORMANT, 2 usage. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "backend.h"
#include "package.h"
#include "report_html.h"
#include "sha256.h"

static const char certify_help[] =
    "usage: aclcts certify --product ID [OPTIONS] [SUITE.yaml|DIR]...\n"
    "\n"
    "Runs the certification suite set (default: every suite in ./suites) for one product and\n"
    "writes a package a third party can re-check with `aclcts verify-package`:\n"
    "  DIR/manifest.json   aclcts version and commit, suites and backend libraries with SHA-256,\n"
    "                      SoC, host, seed, start and end time, command line, verdict, counts,\n"
    "                      waivers used with their reasons\n"
    "  DIR/results.jsonl, junit.xml, summary.md, audit.md, audit.csv, report.html, suites/\n"
    "  DIR/SHA256SUMS      every file's SHA-256 (sha256sum -c format); its own SHA-256 is the\n"
    "                      package digest printed at the end\n"
    "  DIR.tar.gz          the same directory, made with the system tar\n"
    "\n"
    "Options:\n"
    "  --product ID       the product certified (required; one product)\n"
    "  --backend SPEC     emu (default), cann[:DIR], torch: as for run\n"
    "  --out DIR          package directory (default certification-PRODUCT); must not exist\n"
    "  --jobs N           workers (default: online CPUs)\n"
    "  --seed S           override the suites' seeds\n"
    "  --timeout S        seconds per case (default 60)\n"
    "  --keep-dump DIR    also --dump the run's tensors there (not needed by the audit)\n"
    "\n"
    "Across machines (docs/certification.md): run the shards with `aclcts run --shard K/N`\n"
    "(or a Slurm array / Kubernetes Indexed Job), then package them here:\n"
    "  --results F        a shard's results.jsonl (repeatable): merged as `aclcts merge` does\n"
    "                     instead of running; a case recorded differently twice is an error;\n"
    "                     the audit comes from the records' element statistics\n"
    "  --dump DIR         accepted and ignored (older recipes passed the shards' dumps)\n"
    "\n"
    "Exit 0 when the verdict is CONFORMANT (no FAIL, CRASH, TIMEOUT, ERROR, RESOURCE_ERROR), 1\n"
    "otherwise, 2 for usage or suite errors.\n";

typedef struct {
    const char *product, *backend, *out, *jobs, *seed, *timeout, *keep_dump;
    const char *paths[CLI_MAX_ARGS];
    int npaths;
    const char *results[CLI_MAX_ARGS];
    int nresults;
} certify_args;

static int parse(int argc, char **argv, certify_args *a)
{
    memset(a, 0, sizeof *a);
    a->backend = "emu";
    for (int i = 1; i < argc; i++) {
        static const char *const names[] = {"--product", "--backend", "--out", "--jobs",
                                            "--seed", "--timeout", "--keep-dump"};
        const char **dst[] = {&a->product, &a->backend, &a->out, &a->jobs, &a->seed,
                              &a->timeout, &a->keep_dump};
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
        if ((r = cli_opt_value(argc, argv, &i, "--dump", &v)) != 0) {
            if (r < 0) return -1;
            continue; /* the audit needs no dump any more */
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
    return 0;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void now_iso(char *out, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The SoC name the backend reports for the product, asked in a child process so this process
 * never initializes the runtime (the workers do). */
static void soc_name(const cts_backend *b, const char *product, char *out, size_t len)
{
    int fd[2];
    snprintf(out, len, "unknown");
    if (pipe(fd) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (b->emulated) setenv("ACLCTS_SOC", product, 1);
        const char *s = NULL;
        if (b->aclInit(NULL) == 0 && b->aclrtSetDevice(0) == 0) s = b->aclrtGetSocName();
        if (s && write(fd[1], s, strlen(s)) < 0) _exit(1);
        _exit(0);
    }
    close(fd[1]);
    ssize_t n = pid > 0 ? read(fd[0], out, len - 1) : -1;
    if (n > 0) out[n] = 0;
    close(fd[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n) rc = -1;
    if (in) fclose(in);
    if (out && fclose(out) != 0) rc = -1;
    return rc;
}

/* Hash DIR/name into the manifest under role. */
static int add_hashed(cts_manifest *m, const char *dir, const char *role, const char *name,
                      const char *source)
{
    char path[PATH_MAX * 2], hex[65];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (cts_sha256_file(path, hex) != 0) {
        fprintf(stderr, "aclcts: error: hashing %s: %s\n", path, strerror(errno));
        return -1;
    }
    cts_manifest_add_file(m, role, name, source, hex);
    return 0;
}

/* Copies each suite file that defined cases into DIR/suites/ and lists it. */
static int add_suites(cts_manifest *m, const char *dir, const cli_loaded *l)
{
    char sdir[PATH_MAX + 16], dst[PATH_MAX * 2], name[PATH_MAX];
    snprintf(sdir, sizeof sdir, "%s/suites", dir);
    if (mkdir(sdir, 0777) != 0 && errno != EEXIST) return -1;
    for (size_t i = 0; i < l->all.ncases; i++) {
        const char *file = l->all.cases[i].mark.file;
        if (!file) continue;
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        snprintf(name, sizeof name, "suites/%s", base);
        bool seen = false;
        for (size_t k = 0; k < m->nfiles && !seen; k++) seen = !strcmp(m->files[k].path, name);
        if (seen) continue;
        snprintf(dst, sizeof dst, "%s/%s", dir, name);
        char shown[PATH_MAX];
        cli_display_path(file, shown, sizeof shown);
        if (copy_file(file, dst) != 0 || add_hashed(m, dir, "suite", name, shown) != 0) {
            fprintf(stderr, "aclcts: error: copying %s to %s\n", file, dst);
            return -1;
        }
    }
    return 0;
}

static void add_backend_libs(cts_manifest *m, const cts_backend *b)
{
    static const char *const libs[] = {"libascendcl.so", "libnnopbase.so", "libopapi.so",
                                       "libopapi_nn.so", "libopapi_cv.so"};
    for (size_t k = 0; k < sizeof libs / sizeof libs[0]; k++) {
        char path[PATH_MAX * 2], real[PATH_MAX], hex[65];
        snprintf(path, sizeof path, "%s/%s", b->dir, libs[k]);
        if (!realpath(path, real) || cts_sha256_file(real, hex) != 0) continue;
        cts_manifest_add_file(m, "backend", real, libs[k], hex);
    }
}

static int write_text(const char *dir, const char *name, void (*fn)(FILE *, const void *),
                      const void *arg)
{
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fn(f, arg);
    return fclose(f);
}

static void audit_md(FILE *f, const void *a)
{
    fprintf(f, "# aclcts precision audit\n\n");
    cts_audit_write_markdown(f, a);
}
static void audit_csv(FILE *f, const void *a) { cts_audit_write_csv(f, a); }
static void report(FILE *f, const void *r) { cts_report_html_write(f, r); }

int cli_certify(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(certify_help, stdout);
            return CLI_EXIT_OK;
        }
    certify_args a;
    if (parse(argc, argv, &a) != 0) return CLI_EXIT_USAGE;
    char out[PATH_MAX], err[1200];
    snprintf(out, sizeof out, "%s", a.out ? a.out : "");
    if (!*out) snprintf(out, sizeof out, "certification-%s", a.product);
    struct stat st;
    if (stat(out, &st) == 0) {
        fprintf(stderr, "aclcts: error: certify: %s exists; a package is written to a new "
                "directory (remove it or choose --out)\n", out);
        return CLI_EXIT_USAGE;
    }
    cts_backend b;
    memset(&b, 0, sizeof b);
    if (cts_backend_open(a.backend, &b, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: --backend %s: %s\n", a.backend, err);
        return CLI_EXIT_USAGE;
    }
    cts_manifest m;
    memset(&m, 0, sizeof m);
    now_iso(m.start, sizeof m.start);

    /* The run itself: `aclcts run` with the package directory as --out. */
    char *rargv[CLI_MAX_ARGS + 24];
    int rn = 0;
    rargv[rn++] = "run";
    const char *pairs[][2] = {{"--product", a.product}, {"--backend", a.backend},
                              {"--out", out}, {"--dump", a.keep_dump}, {"--jobs", a.jobs},
                              {"--seed", a.seed}, {"--timeout", a.timeout}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        if (pairs[k][1]) {
            rargv[rn++] = (char *)pairs[k][0];
            rargv[rn++] = (char *)pairs[k][1];
        }
    rargv[rn++] = "--quiet";
    for (int k = 0; k < a.npaths; k++) rargv[rn++] = (char *)a.paths[k];
    rargv[rn] = NULL;
    int rc;
    double t_run = mono();
    if (a.nresults) { /* shards run elsewhere: merge their records into the package */
        char *margv[CLI_MAX_ARGS + 3];
        int mn = 0;
        margv[mn++] = "merge";
        margv[mn++] = out;
        for (int k = 0; k < a.nresults; k++) margv[mn++] = (char *)a.results[k];
        margv[mn] = NULL;
        rc = cli_merge(mn, margv);
    } else {
        rc = cli_run(rn, rargv);
    }
    now_iso(m.end, sizeof m.end);
    double t_reports = mono();
    if (rc == CLI_EXIT_USAGE) {
        cts_backend_close(&b);
        return rc;
    }

    /* The cases as the run loaded them (suites to package), the records, the audit. */
    cli_selection sel;
    memset(&sel, 0, sizeof sel);
    sel.product = a.product;
    for (int k = 0; k < a.npaths; k++) sel.paths[sel.npaths++] = a.paths[k];
    if (a.seed) {
        sel.have_seed = true;
        sel.seed = strtoull(a.seed, NULL, 0);
    }
    cli_loaded l;
    cts_audit au;
    cts_result_list res = {0};
    memset(&au, 0, sizeof au);
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/results.jsonl", out);
    rc = cli_selection_load(&sel, &l);
    if (rc == 0 && cts_jsonl_read(path, &res, NULL, stderr) != 0) rc = CLI_EXIT_USAGE;
    if (rc != 0) {
        fprintf(stderr, "aclcts: error: certify: cannot read back %s\n", path);
        cli_loaded_free(&l);
        cts_backend_close(&b);
        return CLI_EXIT_USAGE;
    }
    cts_audit_results(&au, &res, stderr);

    /* The manifest's facts. */
    char srcdir[PATH_MAX], cmd[PATH_MAX + 64];
    snprintf(srcdir, sizeof srcdir, "%s", l.all.ncases && l.all.cases[0].mark.file
                                               ? l.all.cases[0].mark.file : ".");
    if (strrchr(srcdir, '/')) *strrchr(srcdir, '/') = 0;
    else snprintf(srcdir, sizeof srcdir, ".");
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse HEAD 2>/dev/null", srcdir);
    cts_command_line_output(cmd, m.commit, sizeof m.commit);
    snprintf(cmd, sizeof cmd, "git -C '%s' describe --tags --always --dirty 2>/dev/null",
             srcdir);
    cts_command_line_output(cmd, m.version, sizeof m.version);
    if (!*m.commit) snprintf(m.commit, sizeof m.commit, "unknown");
    if (!*m.version) snprintf(m.version, sizeof m.version, "unknown");
    snprintf(m.product, sizeof m.product, "%s", a.product);
    snprintf(m.backend, sizeof m.backend, "%s", a.backend);
    snprintf(m.backend_dir, sizeof m.backend_dir, "%s", b.dir);
    soc_name(&b, a.product, m.soc, sizeof m.soc);
    if (gethostname(m.host, sizeof m.host - 1) != 0) snprintf(m.host, sizeof m.host, "unknown");
    snprintf(m.seed, sizeof m.seed, "%s", a.seed ? a.seed : "suite");
    size_t n = (size_t)snprintf(m.command, sizeof m.command, "aclcts");
    for (int i = 0; i < argc && n < sizeof m.command; i++)
        n += (size_t)snprintf(m.command + n, sizeof m.command - n, " %s", argv[i]);
    cts_tally t;
    cts_tally_results(res.r, res.count, &t);
    memcpy(m.counts, t.count, sizeof m.counts);
    m.total = t.total;
    snprintf(m.verdict, sizeof m.verdict, "%s", cts_certification_verdict(t.count, t.total));
    for (size_t i = 0; i < res.count; i++)
        if (res.r[i].v.status == CTS_WAIVED)
            cts_manifest_add_waiver(&m, res.r[i].v.case_id, res.r[i].v.message);

    /* Reports, suites, manifest, seal, tar. */
    char counts[256] = "";
    for (int s = 0, k = 0; s < CTS_STATUS_COUNT; s++)
        if (t.count[s])
            k += snprintf(counts + k, sizeof counts - (size_t)k, "%s%zu %s", k ? ", " : "",
                          t.count[s], cts_status_name((cts_status)s));
    char title[128];
    snprintf(title, sizeof title, "aclcts certification: %s", a.product);
    const char *keys[] = {"product", "SoC", "backend", "backend libraries", "host",
                          "aclcts commit", "seed", "start", "end", "cases", "command"};
    const char *vals[] = {m.product, m.soc, m.backend, m.backend_dir, m.host, m.commit, m.seed,
                          m.start, m.end, counts, m.command};
    cts_report rep = {.title = title, .verdict = m.verdict, .info_keys = keys,
                      .info_values = vals, .ninfo = (int)(sizeof keys / sizeof keys[0]),
                      .results = res.r, .nresults = res.count, .audit = &au};
    int werr = write_text(out, "audit.md", audit_md, &au) |
               write_text(out, "audit.csv", audit_csv, &au) |
               write_text(out, "report.html", report, &rep);
    werr |= add_suites(&m, out, &l);
    static const char *const produced[] = {"results.jsonl", "junit.xml", "summary.md",
                                           "audit.md", "audit.csv", "report.html"};
    for (size_t k = 0; k < sizeof produced / sizeof produced[0]; k++)
        werr |= add_hashed(&m, out, k < 3 ? "result" : "report", produced[k], NULL);
    add_backend_libs(&m, &b);
    snprintf(path, sizeof path, "%s/manifest.json", out);
    FILE *f = fopen(path, "w");
    werr |= !f || cts_manifest_write(f, &m) != 0;
    if (f) werr |= fclose(f) != 0;
    char digest[65] = "", tar[PATH_MAX];
    double t_package = mono();
    if (!werr && cts_package_seal(out, digest, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: %s\n", err);
        werr = 1;
    }
    if (!werr && cts_package_tar(out, tar, sizeof tar) != 0) {
        fprintf(stderr, "aclcts: error: tar could not write %s\n", tar);
        werr = 1;
    }
    printf("\n%s: %s (%s)\n", a.product, m.verdict, counts);
    for (size_t i = 0; i < m.nwaivers; i++)
        printf("  waiver: %s: %s\n", m.waivers[i].case_id, m.waivers[i].reason);
    if (!werr)
        printf("package: %s  %s\npackage digest (SHA-256 of SHA256SUMS): %s\n", out, tar,
               digest);
    /* tools/bench-suite reads this line */
    printf("time: run %.3f s, audit, reports and manifest %.3f s, seal and tar %.3f s\n",
           t_reports - t_run, t_package - t_reports, mono() - t_package);
    bool conformant = strcmp(m.verdict, "CONFORMANT") == 0;
    cts_audit_free(&au);
    cts_result_list_free(&res);
    cts_manifest_free(&m);
    cli_loaded_free(&l);
    cts_backend_close(&b);
    if (werr) return CLI_EXIT_USAGE;
    return conformant ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

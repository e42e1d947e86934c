/* `aclcts audit --standard`: the standards' files loaded before anything runs, the benchmark
 * device's run, and the standards' audit of the dump (report/standard_audit.c) as Markdown for
 * audit.md and report.html, as standards.csv (per row) and standards_outputs.csv (per output). */
#include "cli.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int cli_standards_load(const char *list, const char *dir, const char *golden, cli_standards *s)
{
    memset(s, 0, sizeof *s);
    int golden_dtype = cts_std_golden_parse(golden);
    if (golden && golden_dtype < 0) {
        fprintf(stderr, "aclcts: error: audit: --golden %s: expected dtype or exact\n", golden);
        return -1;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (s->n == CTS_STD_MAX) {
            fprintf(stderr, "aclcts: error: audit: at most %d standards\n", CTS_STD_MAX);
            return -1;
        }
        if (cts_standard_load(dir, t, &s->std[s->n], stderr)) return -1;
        cts_standard *x = &s->std[s->n++];
        if (golden) x->golden_dtype = golden_dtype == 1;
        s->need_dump |= x->method != CTS_STD_BOUND;
        s->need_bench |= x->method == CTS_STD_BENCHMARK || x->method == CTS_STD_ULP;
    }
    if (!s->n) {
        fprintf(stderr, "aclcts: error: audit: --standard names no standard\n");
        return -1;
    }
    return 0;
}

/* The benchmark's dump: DIR as given, or the suites run again on the torch backend. */
int cli_standards_benchmark(const char *bench, const char *out, char **pass, int npass,
                            char *dir, size_t len)
{
    if (strcmp(bench, "torch") != 0) {
        snprintf(dir, len, "%s", bench);
        return 0;
    }
    char bout[PATH_MAX];
    snprintf(bout, sizeof bout, "%s/benchmark", out);
    snprintf(dir, len, "%s/dump", bout);
    char *argv[CLI_MAX_ARGS + 16];
    int n = 0;
    argv[n++] = "run";
    argv[n++] = "--backend";
    argv[n++] = "torch";
    argv[n++] = "--out";
    argv[n++] = bout;
    argv[n++] = "--dump";
    argv[n++] = dir;
    argv[n++] = "--quiet";
    for (int k = 0; k < npass; k++) argv[n++] = pass[k];
    argv[n] = NULL;
    fprintf(stderr, "aclcts: audit: the benchmark device: the same cases on --backend torch\n");
    /* the emulator's switches (faults, shuffles) are the device under test's, not the
     * benchmark's: its run goes without them */
    extern char **environ;
    char *saved[64];
    int nsaved = 0;
    for (char **e = environ; e && *e;) {
        if (strncmp(*e, "ACLNN_EMU_", 10) || nsaved == 64) { e++; continue; }
        saved[nsaved] = strdup(*e);
        if (!saved[nsaved]) abort();
        saved[nsaved][strcspn(saved[nsaved], "=")] = 0;
        unsetenv(saved[nsaved++]);
    }
    int rc = cli_run(n, argv) == CLI_EXIT_USAGE ? -1 : 0;
    for (int i = 0; i < nsaved; i++) {
        setenv(saved[i], saved[i] + strlen(saved[i]) + 1, 1);
        free(saved[i]);
    }
    return rc;
}

void cli_standards_audit_init(const cli_standards *s, cts_std_audit *a, const char *bench_dir)
{
    memset(a, 0, sizeof *a);
    a->std = s->std;
    a->nstd = s->n;
    a->bench_label = s->need_bench ? bench_dir : NULL;
}

static uint64_t tree_sum;
static int add_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)path, (void)ftw;
    if (type == FTW_F) tree_sum += (uint64_t)sb->st_size;
    return 0;
}

/* The bytes of the files under path (0 if none). */
static uint64_t tree_bytes(const char *path)
{
    tree_sum = 0;
    nftw(path, add_file, 16, FTW_PHYS);
    return tree_sum;
}

void cli_standards_stream_case(void *stream, const cts_result *r)
{
    cli_standards_stream *st = stream;
    char dir[PATH_MAX * 2];
    snprintf(dir, sizeof dir, "%s/%s", st->dump, r->v.case_id);
    uint64_t all = tree_bytes(st->dump), one = tree_bytes(dir);
    if (all > st->peak_bytes) st->peak_bytes = all;
    st->total_bytes += one;
    cts_std_audit_case(st->a, r, st->dump, st->a->bench_label, stderr);
    cts_remove_tree(dir);
}

char *cli_standards_audit(cts_std_audit *a, bool streamed, const cts_result_list *res,
                          const char *dump_dir, const char *out)
{
    char path[PATH_MAX + 32], opath[PATH_MAX + 32], *md = NULL;
    size_t len = 0;
    snprintf(opath, sizeof opath, "%s/standards_outputs.csv", out);
    a->outputs_csv = fopen(opath, "w");
    if (a->outputs_csv) cts_std_outputs_csv_header(a->outputs_csv);
    int rc = 0;
    if (streamed)
        cts_std_audit_finish(a);
    else
        rc = cts_std_audit_run(a, res, dump_dir, a->bench_label, stderr);
    if (!a->outputs_csv || fclose(a->outputs_csv) != 0)
        fprintf(stderr, "aclcts: error: writing %s: %s\n", opath, strerror(errno));
    a->outputs_csv = NULL;
    if (rc) {
        cts_std_audit_free(a);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/standards.csv", out);
    FILE *f = fopen(path, "w");
    if (f) cts_std_audit_csv(f, a);
    if (!f || fclose(f) != 0)
        fprintf(stderr, "aclcts: error: writing %s: %s\n", path, strerror(errno));
    FILE *m = open_memstream(&md, &len);
    if (m) {
        cts_std_audit_markdown(m, a);
        fclose(m);
    }
    cts_std_audit_free(a);
    return md;
}

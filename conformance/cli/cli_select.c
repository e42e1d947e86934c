/* The options that choose cases, shared by run, list and show: suites, --product, --filter,
 * --shard/--shards (and the scheduler's environment), --seed, --quick. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suite/suite.h"

const char cli_selection_help[] =
    "  --product ID|all   only cases of this product (ascend910, ascend910b, ascend910_93,\n"
    "                     ascend310p, ascend310b, ascend950); default all\n"
    "  --filter GLOB      only case ids matching the fnmatch(3) glob; repeatable (any matches)\n"
    "  --shard K/N        only shard K of N, 0-based (0/4 .. 3/4); a case's shard is a hash of\n"
    "                     its id, so the N shards together run every case exactly once. Without\n"
    "                     --shard: SLURM_ARRAY_TASK_ID (minus SLURM_ARRAY_TASK_MIN) of\n"
    "                     SLURM_ARRAY_TASK_COUNT, JOB_COMPLETION_INDEX of --shards N, or\n"
    "                     GTEST_SHARD_INDEX of GTEST_TOTAL_SHARDS\n"
    "  --shards N         shard count for a Kubernetes Indexed Job (JOB_COMPLETION_INDEX)\n"
    "  --seed S           data seed for every suite instead of each suite's own seed\n"
    "  --quick            only the cases marked quick (the fixed fast subset)\n"
    "  --contract C       judge by contract C: doc (the documents, default), vendor@9.2 (alias\n"
    "                     vendor), vendor@9.1, vendor@9.0 or vendor@8.5 (alias vendor-old), the\n"
    "                     vendor's code of that release (docs/contract.md); cases written for\n"
    "                     another contract\n"
    "                     (`spec:`) are not selected\n";

int cli_parse_contract(const char *text, ref_spec *out)
{
    if (ref_spec_from_name(text, out) == 0)
        return 0;
    fprintf(stderr, "aclcts: error: --contract %s: expected doc, vendor@9.2, vendor@9.1, "
            "vendor@9.0, vendor@8.5, vendor (vendor@9.2) or vendor-old (vendor@8.5)\n", text);
    return -1;
}

void cli_print_other_contract(FILE *f, const cts_loaded *l, ref_spec contract)
{
    if (l->other_contract > 0)
        fprintf(f, "aclcts: %zu cases written for another contract than %s are not selected "
                "(their suites' `spec:`; --contract chooses)\n", l->other_contract,
                ref_spec_contract(contract));
}

int cli_opt_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *value = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "aclcts: error: %s needs a value\n", name);
        return -1;
    }
    *value = argv[++*i];
    return 1;
}

int cli_parse_long(const char *name, const char *text, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "aclcts: error: %s %s: expected a whole number in [%ld, %ld]\n", name,
                text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_selection_arg(cts_selection *s, int argc, char **argv, int *i)
{
    const char *v;
    int r;
    if ((r = cli_opt_value(argc, argv, i, "--product", &v)) != 0) {
        if (r < 0)
            return -1;
        s->product = v; /* the loader checks it */
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--filter", &v)) != 0) {
        if (r < 0)
            return -1;
        if (s->nfilters == CLI_MAX_ARGS) {
            fprintf(stderr, "aclcts: error: more than %d --filter options\n", CLI_MAX_ARGS);
            return -1;
        }
        s->filters[s->nfilters++] = v;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--shard", &v)) != 0) {
        if (r < 0)
            return -1;
        cts_shard sh;
        char err[160];
        if (s->shard) {
            fprintf(stderr, "aclcts: error: --shard given twice (%s, then %s); a run is one "
                    "shard\n", s->shard, v);
            return -1;
        }
        if (cts_shard_parse(v, &sh, err, sizeof err) != 0) {
            fprintf(stderr, "aclcts: error: %s\n", err);
            return -1;
        }
        s->shard = v;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--shards", &v)) != 0) {
        long n;
        if (r < 0 || cli_parse_long("--shards", v, 1, 1000000, &n))
            return -1;
        if (s->shards) {
            fprintf(stderr, "aclcts: error: --shards given twice (%d, then %ld)\n", s->shards, n);
            return -1;
        }
        s->shards = (int)n;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--seed", &v)) != 0) {
        char *end;
        if (r < 0)
            return -1;
        errno = 0;
        s->seed = strtoull(v, &end, 0);
        if (errno || end == v || *end || *v == '-') {
            fprintf(stderr, "aclcts: error: --seed %s: expected a whole number >= 0\n", v);
            return -1;
        }
        s->have_seed = true;
        return 1;
    }
    if ((r = cli_opt_value(argc, argv, i, "--contract", &v)) != 0)
        return r < 0 || cli_parse_contract(v, &s->contract) ? -1 : 1;
    if (strcmp(argv[*i], "--quick") == 0) {
        s->quick = true;
        return 1;
    }
    if (argv[*i][0] == '-' && argv[*i][1] != '\0')
        return 0;
    if (s->npaths == CLI_MAX_ARGS) {
        fprintf(stderr, "aclcts: error: more than %d suite paths\n", CLI_MAX_ARGS);
        return -1;
    }
    s->paths[s->npaths++] = argv[*i];
    return 1;
}

void cli_display_path(const char *path, char *out, size_t len)
{
    char abs[PATH_MAX], cwd[PATH_MAX];
    if (!realpath(path, abs)) {
        snprintf(out, len, "%s", path);
        return;
    }
    size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (n > 1 && strncmp(abs, cwd, n) == 0 && abs[n] == '/')
        snprintf(out, len, "%s", abs + n + 1);
    else
        snprintf(out, len, "%s", abs);
}

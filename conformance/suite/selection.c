/* Which cases of the suites a command works on (suite.h): the loader's options, --filter
 * globs, the shard and the contract. */
#include "suite.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *env(const char *name)
{
    return getenv(name);
}

int cts_selection_load(const cts_selection *s, cts_loaded *l)
{
    memset(l, 0, sizeof *l);
    const char *deflt = "suites";
    const char *const *paths = s->npaths ? s->paths : &deflt;
    int npaths = s->npaths ? s->npaths : 1;
    struct stat st;
    char err[256], cwd[4096];
    if (!s->npaths && stat(deflt, &st) != 0) {
        fprintf(stderr, "aclcts: error: no suites found: no suite was given and the default, "
                "./suites, does not exist in %s; name suite files or directories (e.g. the "
                "suites/ folder of the aclcts source tree)\n",
                getcwd(cwd, sizeof cwd) ? cwd : "the working directory");
        return -1;
    }
    if (cts_shard_resolve(s->shard, s->shards, env, &l->shard, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: %s\n", err);
        return -1;
    }

    cts_load_options opt = {.product = s->product, .have_seed = s->have_seed, .seed = s->seed,
                            .quick = s->quick};
    if (cts_load_suites(paths, npaths, &opt, &l->all, stderr) != 0)
        return -1;

    l->sel = malloc((l->all.ncases ? l->all.ncases : 1) * sizeof *l->sel);
    if (!l->sel)
        abort();
    for (size_t k = 0; k < l->all.ncases; k++) {
        cts_case *c = &l->all.cases[k];
        if (!cts_filter_match(s->filters, s->nfilters, c->id) || !cts_shard_has(&l->shard, c->id))
            continue;
        /* A case written for one contract runs only under it; every other case is judged by
         * the run's contract. */
        if (s->all_contracts) {
            l->sel[l->nsel++] = c;
            continue;
        }
        if (c->spec_fixed && c->spec != s->contract) {
            l->other_contract++;
            continue;
        }
        c->spec = s->contract;
        l->sel[l->nsel++] = c;
    }
    return 0;
}

void cts_loaded_free(cts_loaded *l)
{
    cts_case_list_free(&l->all);
    free(l->sel);
    memset(l, 0, sizeof *l);
}

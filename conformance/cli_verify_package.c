/* `aclcts verify-package DIR|TAR`: re-checks a certification package. Every file against
 * SHA256SUMS and manifest.json, the verdict and counts recomputed from results.jsonl, and the
 * set of case ids in results.jsonl against the cases the packaged suites define for the
 * product (so a deleted or invented record shows). Each problem names the file. */
#include "cli.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "package.h"

static const char verify_help[] =
    "usage: aclcts verify-package [--check-backend] [--digest HEX] DIR|PACKAGE.tar.gz\n"
    "\n"
    "Re-hashes every file of a package made by `aclcts certify` against SHA256SUMS and\n"
    "manifest.json, recomputes the verdict and the counts by status from results.jsonl, and\n"
    "checks that results.jsonl holds exactly the cases the packaged suites define for the\n"
    "product. Prints one line per problem, naming the file.\n"
    "\n"
    "  --check-backend  also re-hash the backend libraries at the paths the manifest records\n"
    "                   (only meaningful on the machine that ran the certification)\n"
    "  --digest HEX     the package digest the vendor published (SHA-256 of SHA256SUMS)\n"
    "\n"
    "Exit 0 when the package verifies, 1 when something differs, 2 for usage errors.\n";

/* The cases the packaged suites define for the product, against the result ids. */
static int check_case_set(const char *dir, const cts_manifest *m, const cts_result_list *res)
{
    cli_selection sel;
    memset(&sel, 0, sizeof sel);
    sel.product = m->product;
    char paths[64][PATH_MAX * 2];
    for (size_t i = 0; i < m->nfiles && sel.npaths < 64; i++)
        if (!strcmp(m->files[i].role, "suite")) {
            snprintf(paths[sel.npaths], sizeof paths[0], "%s/%s", dir, m->files[i].path);
            sel.paths[sel.npaths] = paths[sel.npaths];
            sel.npaths++;
        }
    if (strcmp(m->seed, "suite") != 0) {
        sel.have_seed = true;
        sel.seed = strtoull(m->seed, NULL, 0);
    }
    if (sel.npaths == 0) {
        printf("manifest.json: lists no suite\n");
        return 1;
    }
    cli_loaded l;
    if (cli_selection_load(&sel, &l) != 0) {
        printf("suites/: the packaged suites do not load (messages above)\n");
        cli_loaded_free(&l);
        return 1;
    }
    int bad = 0;
    cts_id_set want = {0}, got = {0};
    for (size_t k = 0; k < l.nsel; k++) cts_id_set_add(&want, l.sel[k]->id);
    for (size_t i = 0; i < res->count; i++) {
        const char *id = res->r[i].v.case_id;
        if (!cts_id_set_add(&got, id)) {
            printf("results.jsonl: case %s recorded twice\n", id);
            bad++;
        } else if (!cts_id_set_has(&want, id)) {
            printf("results.jsonl: case %s is not defined by the packaged suites\n", id);
            bad++;
        }
    }
    for (size_t k = 0; k < l.nsel; k++)
        if (!cts_id_set_has(&got, l.sel[k]->id) && bad++ < 20)
            printf("results.jsonl: case %s of the packaged suites has no result\n",
                   l.sel[k]->id);
    cts_id_set_free(&want);
    cts_id_set_free(&got);
    cli_loaded_free(&l);
    return bad;
}

int cli_verify_package(int argc, char **argv)
{
    const char *target = NULL, *digest_want = NULL;
    bool check_backend = false;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(verify_help, stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--check-backend")) {
            check_backend = true;
        } else if ((r = cli_opt_value(argc, argv, &i, "--digest", &digest_want)) != 0) {
            if (r < 0) return CLI_EXIT_USAGE;
        } else if (argv[i][0] != '-' && !target) {
            target = argv[i];
        } else {
            fprintf(stderr, "aclcts: error: verify-package: unexpected argument %s\n%s",
                    argv[i], verify_help);
            return CLI_EXIT_USAGE;
        }
    }
    if (!target) {
        fprintf(stderr, "aclcts: error: verify-package needs a package\n%s", verify_help);
        return CLI_EXIT_USAGE;
    }
    char tmp[PATH_MAX] = "", dir[PATH_MAX * 2], err[1200], digest[65];
    size_t tl = strlen(target);
    bool is_tar = (tl > 7 && !strcmp(target + tl - 7, ".tar.gz")) ||
                  (tl > 4 && !strcmp(target + tl - 4, ".tgz"));
    if (is_tar) {
        if (cts_package_extract(target, tmp, sizeof tmp, dir, sizeof dir, err, sizeof err)) {
            fprintf(stderr, "aclcts: error: %s\n", err);
            return CLI_EXIT_USAGE;
        }
    } else {
        snprintf(dir, sizeof dir, "%s", target);
    }
    cts_manifest m;
    cts_result_list res = {0};
    int bad = cts_package_verify(dir, check_backend, stdout, &m, &res, digest);
    if (bad >= 0 && m.product[0]) bad += check_case_set(dir, &m, &res);
    if (digest_want && strcmp(digest_want, digest) != 0) {
        printf("SHA256SUMS: package digest %s differs from the published %s\n", digest,
               digest_want);
        bad++;
    }
    if (bad == 0)
        printf("verified: %s: product %s, %s (%zu cases, %zu PASS, %zu FAIL, %zu WAIVED), "
               "digest %s\n", target, m.product, m.verdict, m.total, m.counts[CTS_PASS],
               m.counts[CTS_FAIL], m.counts[CTS_WAIVED], digest);
    else
        printf("NOT VERIFIED: %s: %d problem%s\n", target, bad, bad == 1 ? "" : "s");
    cts_manifest_free(&m);
    cts_result_list_free(&res);
    if (*tmp) {
        char *rm[] = {"rm", "-rf", tmp, NULL};
        cts_run_command(rm);
    }
    return bad == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

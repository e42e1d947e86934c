/* `aclcts verify-package DIR|TAR`: re-checks a certification package (package_verify.c). An
 * archive is unpacked with libarchive into a temporary directory that is removed on every exit,
 * including SIGINT, SIGTERM and SIGHUP. */
#include "cli.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "package/package.h"

static const char verify_help[] =
    "usage: aclcts verify-package [--check-backend] [--digest HEX] [--pubkey PUB.pem]\n"
    "                             [--rejudge] DIR|PACKAGE.tar.gz\n"
    "\n"
    "Re-checks a package made by `aclcts certify`; one line per problem, naming the file:\n"
    "  - a closed package: only regular files, known by lstat before anything is read (a link,\n"
    "    device, FIFO or socket is refused by its type; an archive entry leaving the package is\n"
    "    refused); every file against SHA256SUMS and manifest.json, the two lists one set of\n"
    "    files a package holds, nothing else but SHA256SUMS and its signature\n"
    "  - manifest.json read strictly (a key twice, an unknown key, a wrong type are errors)\n"
    "  - results.jsonl holds exactly the cases the packaged suites define for the product, once\n"
    "    each, from one backend, contract and aclcts version (records and run sessions); each\n"
    "    record agrees with its own figures (a PASS over its tolerance is named)\n"
    "  - the packaged suites against the canonical suite set built into this aclcts: prints\n"
    "    \"canonical\" or names each difference\n"
    "  - verdict and counts recomputed (only a canonical, complete package can be CONFORMANT)\n"
    "  - summary.md, junit.xml, audit.md, audit.csv and report.html re-derived from\n"
    "    results.jsonl and manifest.json and compared byte for byte\n"
    "\n"
    "  --check-backend  also re-hash the backend libraries at the paths each run session\n"
    "                   recorded (only meaningful on the machines that ran); each library\n"
    "                   compared is listed with its outcome\n"
    "  --rejudge        re-judge every case whose outputs were judged from evidence.tar.gz:\n"
    "                   inputs regenerated from the suites' seeds, the device's outputs\n"
    "                   checked against each record's output_hash, the reference and the\n"
    "                   output checks run again; each record whose status, check, worst\n"
    "                   errors or counts differ is named (costs about a run without device)\n"
    "  --digest HEX     the package digest the vendor published (SHA-256 of SHA256SUMS)\n"
    "  --pubkey PUB.pem the signer's Ed25519 public key: SHA256SUMS.sig must be its signature\n"
    "                   of SHA256SUMS (certify --sign); without it a signature is not checked\n"
    "\n"
    "Exit 0 when the package verifies, 1 when something differs, 2 for usage errors or an\n"
    "archive that is not a package.\n";

static char tmp_dir[PATH_MAX];

static void cleanup(void)
{
    if (*tmp_dir) cts_remove_tree(tmp_dir);
    *tmp_dir = 0;
}

static void on_signal(int sig)
{
    cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

static bool is_archive(const char *path)
{
    size_t n = strlen(path);
    return (n > 7 && !strcmp(path + n - 7, ".tar.gz")) || (n > 4 && !strcmp(path + n - 4, ".tgz"));
}

/* What --check-backend compared: each backend library a run session recorded, by its path on
 * this machine, and whether its SHA-256 is the recorded one (the differences are also counted by
 * cts_package_verify). */
static void print_backend_compared(const cts_manifest *m)
{
    int nlibs = 0;
    for (size_t s = 0; s < m->nshards; s++)
        nlibs += m->shards[s].nlibs;
    printf("backend: %d librar%s recorded by %zu run session%s, re-hashed on this machine:\n",
           nlibs, nlibs == 1 ? "y" : "ies", m->nshards, m->nshards == 1 ? "" : "s");
    for (size_t s = 0; s < m->nshards; s++) {
        const cts_provenance *p = &m->shards[s];
        for (int k = 0; k < p->nlibs; k++) {
            char hex[65] = "";
            bool read = cts_sha256_file(p->libs[k].path, hex) == 0;
            printf("  %s (session %zu: host %s, backend %s): %s\n", p->libs[k].path, s + 1,
                   p->host, p->backend, !read ? "cannot be read"
                   : strcmp(hex, p->libs[k].sha256) ? "differs" : "same SHA-256");
        }
    }
}

/* The signature: checked with --pubkey (and then required); otherwise only noted. */
static int signature(const char *dir, const char *pubkey)
{
    if (pubkey) return cts_package_check_signature(dir, pubkey, stdout);
    char path[PATH_MAX * 2 + 32];
    snprintf(path, sizeof path, "%s/%s", dir, CTS_PACKAGE_SIGNATURE);
    if (access(path, F_OK) == 0)
        printf("%s: present, not checked (give the signer's public key with --pubkey)\n",
               CTS_PACKAGE_SIGNATURE);
    return 0;
}

int cli_verify_package(int argc, char **argv)
{
    const char *target = NULL, *digest_want = NULL, *pubkey = NULL;
    bool check_backend = false, rejudge = false;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(verify_help, stdout);
            return CLI_EXIT_OK;
        } else if (!strcmp(argv[i], "--check-backend")) {
            check_backend = true;
        } else if (!strcmp(argv[i], "--rejudge")) {
            rejudge = true;
        } else if ((r = cli_opt_value(argc, argv, &i, "--digest", &digest_want)) != 0 ||
                   (r = cli_opt_value(argc, argv, &i, "--pubkey", &pubkey)) != 0) {
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
    char dir[PATH_MAX * 2], err[PATH_MAX + 400], digest[65];
    if (is_archive(target)) {
        struct sigaction sa = {.sa_handler = on_signal};
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        if (cts_package_extract(target, tmp_dir, sizeof tmp_dir, dir, sizeof dir, err,
                                sizeof err)) {
            fprintf(stderr, "aclcts: error: %s\n", err);
            return CLI_EXIT_USAGE;
        }
    } else {
        snprintf(dir, sizeof dir, "%s", target);
    }
    cts_manifest m;
    int bad = cts_package_verify(dir, check_backend, stdout, &m, digest);
    bad += signature(dir, pubkey);
    if (rejudge && *m.product) bad += cli_rejudge(dir, &m, stdout);
    cleanup();
    if (check_backend)
        print_backend_compared(&m);
    if (digest_want && strcmp(digest_want, digest) != 0) {
        printf("SHA256SUMS: package digest %s differs from the published %s\n", digest,
               digest_want);
        bad++;
    }
    if (bad == 0)
        printf("verified: %s: product %s, %s (%zu cases, %zu PASS, %zu FAIL, %zu WAIVED), "
               "suite set %s, digest %s\n", target, m.product, m.verdict, m.total,
               m.counts[CTS_PASS], m.counts[CTS_FAIL], m.counts[CTS_WAIVED],
               m.canonical ? "canonical" : "NOT canonical", digest);
    for (size_t i = 0; bad == 0 && i < m.nwaivers; i++) /* the waivers, references first */
        printf("  waiver: %s: tracking %s; owner %s; expires %s%s\n", m.waivers[i].case_id,
               *m.waivers[i].tracking ? m.waivers[i].tracking : "-",
               *m.waivers[i].owner ? m.waivers[i].owner : "-",
               *m.waivers[i].expires ? m.waivers[i].expires : "-",
               m.waivers[i].expired ? " (EXPIRED: the case fails)" : "");
    if (bad != 0)
        printf("NOT VERIFIED: %s: %d problem%s\n", target, bad, bad == 1 ? "" : "s");
    cts_manifest_free(&m);
    return bad == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

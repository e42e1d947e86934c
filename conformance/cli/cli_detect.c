/* `aclcts detect-contract`: which contract a device follows. A few calls whose first-phase
 * status tells the contracts apart (docs/contract.md: the documents against the vendor
 * releases) run under each contract's status model; a contract is followed when every probe
 * passes under it. The evidence (the device's status and each contract's expectation) is printed
 * per probe, and a device that matches no contract is named as such with the probes that rule
 * each contract out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "suite/suite.h"
#include "run/run.h"

static const char detect_help[] =
    "usage: aclcts detect-contract [--backend emu|cann[:DIR]|torch] [--product ID]\n"
    "\n"
    "Runs the discriminating probes on the device and prints, per probe, the status the device\n"
    "returned and the one each contract (doc, vendor@9.0, vendor@8.5) expects, then the\n"
    "contract(s) the device follows, or that it follows none (with the probes that rule each\n"
    "out). On the emulated device the contract is its ACLNN_EMU_SPEC (default doc).\n"
    "  --backend B        the device (default emu)\n"
    "  --product ID       the device's product (default ascend910b)\n"
    "Exit 0 when exactly one contract matches, 1 when none or several do, 2 for usage errors.\n";

enum { NCONTRACTS = 3 };
static const ref_spec contracts[NCONTRACTS] = {REF_SPEC_DOC, REF_SPEC_VENDOR,
                                               REF_SPEC_VENDOR_OLD};

typedef struct {
    cts_verdict *v; /* [contract][probe] */
    size_t n;
    int contract;
} detect_ctx;

static void on_done(void *ctx, size_t index, const cts_verdict *v, const char *log)
{
    (void)log;
    detect_ctx *d = ctx;
    d->v[(size_t)d->contract * d->n + index] = *v;
}

static int load_probes(const char *product, cts_case_list *cases)
{
    char path[] = "/tmp/aclcts-detect-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("aclcts: error: detect-contract: temporary file");
        return -1;
    }
    /* every operator's probes (its driver's), one YAML document each */
    FILE *f = fdopen(fd, "w");
    bool ok = f != NULL, first = true;
    for (int i = 0; ok && i < cts_nops; i++)
        if (cts_ops[i]->contract_probes) {
            ok = (first || fputs("---\n", f) != EOF) &&
                 fputs(cts_ops[i]->contract_probes, f) != EOF;
            first = false;
        }
    if (f && fclose(f) != 0) ok = false;
    if (!ok) {
        perror("aclcts: error: detect-contract: writing the probes");
        unlink(path);
        return -1;
    }
    const char *paths[1] = {path};
    cts_load_options opt = {.product = product};
    int rc = cts_load_suites(paths, 1, &opt, cases, stderr);
    unlink(path);
    return rc;
}

static const char *code_text(int32_t s, char *buf, size_t len)
{
    snprintf(buf, len, "%d", (int)s);
    return buf;
}

/* One line per probe: the device's status, then each contract's expectation and verdict. */
static void print_evidence(const detect_ctx *d, const cts_case_list *cases)
{
    char b1[16], b2[16];
    for (size_t i = 0; i < d->n; i++) {
        const cts_verdict *v0 = &d->v[i];
        printf("  %-48s device %s", cases->cases[i].id,
               v0->status == CTS_PASS || v0->status == CTS_FAIL
                   ? code_text(v0->got_status, b1, sizeof b1)
                   : cts_status_name(v0->status));
        for (int c = 0; c < NCONTRACTS; c++) {
            const cts_verdict *v = &d->v[(size_t)c * d->n + i];
            printf("  | %s expects %s: %s%s%s", ref_spec_contract(contracts[c]),
                   code_text(v->expected_status, b2, sizeof b2), cts_status_name(v->status),
                   *v->check ? " " : "", v->check);
        }
        printf("\n");
    }
}

/* The summary: the matching contract(s), or none with what rules each out. Returns the exit
 * code. */
static int print_verdict(const detect_ctx *d, const cts_case_list *cases)
{
    int matches = 0, match = -1;
    for (int c = 0; c < NCONTRACTS; c++) {
        bool all = true;
        for (size_t i = 0; i < d->n; i++)
            all &= d->v[(size_t)c * d->n + i].status == CTS_PASS;
        if (all) {
            matches++;
            match = c;
        }
    }
    if (matches == 1) {
        printf("the device follows contract %s\n", ref_spec_contract(contracts[match]));
        return CLI_EXIT_OK;
    }
    if (matches > 1) {
        printf("the probes cannot tell apart on this product:");
        for (int c = 0; c < NCONTRACTS; c++) {
            bool all = true;
            for (size_t i = 0; i < d->n; i++)
                all &= d->v[(size_t)c * d->n + i].status == CTS_PASS;
            if (all)
                printf(" %s", ref_spec_contract(contracts[c]));
        }
        printf(" (try another product)\n");
        return CLI_EXIT_FAIL;
    }
    printf("the device follows none of the contracts:\n");
    for (int c = 0; c < NCONTRACTS; c++) {
        printf("  %s is ruled out by", ref_spec_contract(contracts[c]));
        for (size_t i = 0; i < d->n; i++)
            if (d->v[(size_t)c * d->n + i].status != CTS_PASS)
                printf(" %s", cases->cases[i].name);
        printf("\n");
    }
    return CLI_EXIT_FAIL;
}

int cli_detect_contract(int argc, char **argv)
{
    const char *backend_spec = "emu", *product = "ascend910b";
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(detect_help, stdout);
            return CLI_EXIT_OK;
        }
        if ((r = cli_opt_value(argc, argv, &i, "--backend", &backend_spec)) ||
            (r = cli_opt_value(argc, argv, &i, "--product", &product))) {
            if (r < 0)
                return CLI_EXIT_USAGE;
            continue;
        }
        fprintf(stderr, "aclcts: error: detect-contract: unknown argument %s (see aclcts "
                "detect-contract --help)\n", argv[i]);
        return CLI_EXIT_USAGE;
    }
    if (ref_product_from_id(product, NULL) != 0) {
        fprintf(stderr, "aclcts: error: --product %s: not a product id\n", product);
        return CLI_EXIT_USAGE;
    }
    cts_backend b;
    char err[1024];
    memset(&b, 0, sizeof b);
    if (cts_backend_open(backend_spec, &b, err, sizeof err) != 0) {
        fprintf(stderr, "aclcts: error: --backend %s: %s\n", backend_spec, err);
        return CLI_EXIT_USAGE;
    }
    /* The emulation plays the contract it was set to, not the one each probe is judged by. */
    if (b.emulated && !getenv("ACLNN_EMU_SPEC"))
        setenv("ACLNN_EMU_SPEC", "doc", 1);
    cts_case_list cases = {0};
    if (load_probes(product, &cases) != 0) {
        cts_backend_close(&b);
        return CLI_EXIT_USAGE;
    }
    detect_ctx d = {.n = cases.ncases, .v = calloc(NCONTRACTS * (cases.ncases + 1), sizeof *d.v)};
    const cts_case **todo = calloc(cases.ncases + 1, sizeof *todo);
    if (!d.v || !todo)
        abort();
    for (size_t i = 0; i < cases.ncases; i++)
        todo[i] = &cases.cases[i];
    cts_worker_options wo = {.backend = &b, .run = {.threads = 1}, .jobs = 2, .timeout = 60};
    for (d.contract = 0; d.contract < NCONTRACTS; d.contract++) {
        for (size_t i = 0; i < cases.ncases; i++)
            cases.cases[i].spec = contracts[d.contract];
        cts_worker_run(todo, cases.ncases, &wo, on_done, &d);
    }
    printf("aclcts detect-contract: backend %s (%s), product %s, %zu probes\n", backend_spec,
           b.dir, product, cases.ncases);
    print_evidence(&d, &cases);
    int rc = print_verdict(&d, &cases);
    free(todo);
    free(d.v);
    cts_case_list_free(&cases);
    cts_backend_close(&b);
    return rc;
}

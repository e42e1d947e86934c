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
    "usage: aclcts detect-contract [--backend emu|cann[:DIR]|torch] [--product ID] [--confirm]\n"
    "\n"
    "Runs discriminating probes on the device, one at a time, each the one whose expected\n"
    "statuses split the contracts still possible (doc, vendor@9.2, vendor@9.1, vendor@9.0,\n"
    "vendor@8.5) most, until one is left; prints per probe run the status the device returned and\n"
    "the one each such contract expects, then the contract the device follows and the probe\n"
    "that decided, or that it follows none (with the probes that rule each out). vendor@9.1 and\n"
    "vendor@9.2 have the same rules (docs/contract.md): the device is named as following both.\n"
    "On the emulated device the contract is its ACLNN_EMU_SPEC (default doc).\n"
    "  --backend B        the device (default emu)\n"
    "  --product ID       the device's product (default ascend910b)\n"
    "  --confirm          then run every other probe too: a device that follows no contract\n"
    "                     but agrees with one on the deciding probes is named as following none\n"
    "Exit 0 when exactly one contract (or the 9.1/9.2 pair) matches, 1 when none or several do,\n"
    "2 for usage errors.\n";

enum { NCONTRACTS = 5 };
static const ref_spec contracts[NCONTRACTS] = {REF_SPEC_DOC, REF_SPEC_VENDOR_92,
                                               REF_SPEC_VENDOR_91, REF_SPEC_VENDOR,
                                               REF_SPEC_VENDOR_OLD};

typedef struct {
    cts_verdict *v;   /* [contract][probe] */
    bool *run;        /* [contract][probe]: judged under that contract */
    size_t n;
    bool alive[NCONTRACTS];
    int ruled_by[NCONTRACTS]; /* the probe that ruled the contract out, -1 while possible */
    int contract;
} detect_ctx;

static void on_done(void *ctx, size_t index, const cts_verdict *v, const char *log)
{
    (void)log;
    detect_ctx *d = ctx;
    d->v[(size_t)d->contract * d->n + index] = *v;
    d->run[(size_t)d->contract * d->n + index] = true;
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

/* One line per probe run: the device's status, then each judged contract's expectation. */
static void print_probe(const detect_ctx *d, const cts_case_list *cases, size_t i)
{
    char b1[16], b2[16];
    const cts_verdict *v0 = NULL;
    for (int c = 0; c < NCONTRACTS && !v0; c++)
        if (d->run[(size_t)c * d->n + i])
            v0 = &d->v[(size_t)c * d->n + i];
    printf("  %-48s device %s", cases->cases[i].id,
           v0->status == CTS_PASS || v0->status == CTS_FAIL
               ? code_text(v0->got_status, b1, sizeof b1)
               : cts_status_name(v0->status));
    for (int c = 0; c < NCONTRACTS; c++) {
        if (!d->run[(size_t)c * d->n + i])
            continue;
        const cts_verdict *v = &d->v[(size_t)c * d->n + i];
        printf("  | %s expects %s: %s%s%s", ref_spec_contract(contracts[c]),
               code_text(v->expected_status, b2, sizeof b2), cts_status_name(v->status),
               *v->check ? " " : "", v->check);
    }
    printf("\n");
}

/* How probe i splits the contracts still possible by their expected outcome (the status
 * model answers without the device): *groups outcomes, the largest shared by *largest. The
 * probe whose largest group is smallest is run next (most groups on a tie). */
static void split_of(const detect_ctx *d, cts_case *probe, int *groups, int *largest)
{
    int32_t key[NCONTRACTS];
    int n = 0;
    for (int c = 0; c < NCONTRACTS; c++) {
        if (!d->alive[c])
            continue;
        probe->spec = contracts[c];
        ref_status_query q = cts_status_query(probe);
        ref_status st = ref_expected_status(&q);
        key[n++] = st.status * 2 + (st.runs ? 1 : 0);
    }
    *groups = 0;
    *largest = 0;
    for (int i = 0; i < n; i++) {
        int same = 0, first = 1;
        for (int j = 0; j < n; j++) {
            same += key[j] == key[i];
            if (j < i && key[j] == key[i])
                first = 0;
        }
        *groups += first;
        if (same > *largest)
            *largest = same;
    }
}

static int nalive(const detect_ctx *d)
{
    int n = 0;
    for (int c = 0; c < NCONTRACTS; c++)
        n += d->alive[c];
    return n;
}

/* 9.1 and 9.2 have the same rules: no probe can part them, so they are one answer. */
static bool only_9_1_and_9_2(const detect_ctx *d)
{
    for (int c = 0; c < NCONTRACTS; c++)
        if (d->alive[c] && contracts[c] != REF_SPEC_VENDOR_91 && contracts[c] != REF_SPEC_VENDOR_92)
            return false;
    return nalive(d) > 0;
}

/* Runs probe i under every contract still possible and rules out those it fails. */
static void run_probe(detect_ctx *d, cts_case_list *cases, size_t i, cts_worker_options *wo)
{
    const cts_case *todo[1] = {&cases->cases[i]};
    fflush(stdout); /* the workers are forked */
    for (d->contract = 0; d->contract < NCONTRACTS; d->contract++) {
        if (!d->alive[d->contract])
            continue;
        cases->cases[i].spec = contracts[d->contract];
        /* the verdict lands at index 0: move it to the probe's slot */
        detect_ctx one = *d;
        one.n = 1;
        one.v = &d->v[(size_t)d->contract * d->n + i];
        one.run = &d->run[(size_t)d->contract * d->n + i];
        one.contract = 0;
        cts_worker_run(todo, 1, wo, on_done, &one);
    }
    for (int c = 0; c < NCONTRACTS; c++)
        if (d->alive[c] && d->v[(size_t)c * d->n + i].status != CTS_PASS) {
            d->alive[c] = false;
            d->ruled_by[c] = (int)i;
        }
}

/* Probes in order of their split until at most one answer is left (with confirm, then every
 * other probe too); returns the deciding probe's index (-1 when none ran) and counts the probes
 * run. */
static int run_probes(detect_ctx *d, cts_case_list *cases, cts_worker_options *wo, bool confirm,
                      int *nrun)
{
    bool *used = calloc(d->n + 1, sizeof *used);
    if (!used)
        abort();
    int last = -1;
    *nrun = 0;
    while (nalive(d) > 1 && !only_9_1_and_9_2(d)) {
        int best = -1, best_groups = 1, best_largest = NCONTRACTS + 1;
        for (size_t i = 0; i < d->n; i++) {
            if (used[i])
                continue;
            int groups, largest;
            split_of(d, &cases->cases[i], &groups, &largest);
            if (groups > 1 && (largest < best_largest ||
                               (largest == best_largest && groups > best_groups))) {
                best = (int)i;
                best_groups = groups;
                best_largest = largest;
            }
        }
        if (best < 0)
            break; /* no probe parts the contracts left on this product */
        used[best] = true;
        run_probe(d, cases, (size_t)best, wo);
        print_probe(d, cases, (size_t)best);
        last = best;
        (*nrun)++;
    }
    for (size_t i = 0; confirm && i < d->n && nalive(d) > 0; i++)
        if (!used[i]) {
            run_probe(d, cases, i, wo);
            print_probe(d, cases, i);
            (*nrun)++;
        }
    free(used);
    return last;
}

/* The summary: the matching contract, or none with what rules each out. Returns the exit
 * code. */
static int print_verdict(const detect_ctx *d, const cts_case_list *cases, int decider)
{
    const char *by = decider >= 0 ? cases->cases[decider].name : "no probe";
    if (only_9_1_and_9_2(d) && nalive(d) == 2) {
        printf("the device follows contract vendor@9.2 (the same rules as vendor@9.1), "
               "decided by %s\n", by);
        return CLI_EXIT_OK;
    }
    if (nalive(d) == 1) {
        for (int c = 0; c < NCONTRACTS; c++)
            if (d->alive[c])
                printf("the device follows contract %s, decided by %s\n",
                       ref_spec_contract(contracts[c]), by);
        return CLI_EXIT_OK;
    }
    if (nalive(d) > 1) {
        printf("the probes cannot tell apart on this product:");
        for (int c = 0; c < NCONTRACTS; c++)
            if (d->alive[c])
                printf(" %s", ref_spec_contract(contracts[c]));
        printf(" (try another product)\n");
        return CLI_EXIT_FAIL;
    }
    printf("the device follows none of the contracts:\n");
    for (int c = 0; c < NCONTRACTS; c++)
        printf("  %s is ruled out by %s\n", ref_spec_contract(contracts[c]),
               cases->cases[d->ruled_by[c]].name);
    return CLI_EXIT_FAIL;
}

int cli_detect_contract(int argc, char **argv)
{
    const char *backend_spec = "emu", *product = "ascend910b";
    bool confirm = false;
    for (int i = 1; i < argc; i++) {
        int r;
        if (!strcmp(argv[i], "--confirm")) {
            confirm = true;
            continue;
        }
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
    detect_ctx d = {.n = cases.ncases,
                    .v = calloc(NCONTRACTS * (cases.ncases + 1), sizeof *d.v),
                    .run = calloc(NCONTRACTS * (cases.ncases + 1), sizeof *d.run)};
    if (!d.v || !d.run)
        abort();
    for (int c = 0; c < NCONTRACTS; c++) {
        d.alive[c] = true;
        d.ruled_by[c] = -1;
    }
    cts_worker_options wo = {.backend = &b, .run = {.threads = 1}, .jobs = 1, .timeout = 60};
    printf("aclcts detect-contract: backend %s (%s), product %s, %zu probes\n", backend_spec,
           b.dir, product, cases.ncases);
    int nrun = 0;
    int decider = run_probes(&d, &cases, &wo, confirm, &nrun);
    printf("%d of %zu probes run\n", nrun, cases.ncases);
    int rc = print_verdict(&d, &cases, decider);
    free(d.run);
    free(d.v);
    cts_case_list_free(&cases);
    cts_backend_close(&b);
    return rc;
}

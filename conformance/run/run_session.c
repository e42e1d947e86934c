/* The device session of a case: aclInit, the product check, device, stream, determinism. */
#include "run_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double run_now(void)
{
    return clock_seconds(CLOCK_MONOTONIC);
}

double run_thread_cpu(void)
{
    return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

run_clock run_clock_now(void)
{
    struct rusage ch;
    double children = 0;
    if (getrusage(RUSAGE_CHILDREN, &ch) == 0)
        children = (double)(ch.ru_utime.tv_sec + ch.ru_stime.tv_sec) +
                   1e-6 * (double)(ch.ru_utime.tv_usec + ch.ru_stime.tv_usec);
    return (run_clock){run_now(), clock_seconds(CLOCK_PROCESS_CPUTIME_ID) + children};
}

void run_stage_add(double *wall, double *cpu, run_clock since)
{
    run_clock now = run_clock_now();
    *wall += now.wall - since.wall;
    *cpu += now.cpu - since.cpu;
}

/* The product of a SoC name ("Ascend910B3", "Ascend910_9391") or of a profile id: the product
 * whose id (ref_product_id, lower case) is the longest prefix of the name in lower case. */
static int soc_product(const char *soc, ref_product *out)
{
    if (!soc) return -1;
    char low[64];
    size_t n = 0, best = 0;
    for (; soc[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)soc[n]);
    low[n] = 0;
    for (int p = 0; p < REF_PRODUCT_COUNT; p++) {
        const char *id = ref_product_id((ref_product)p);
        size_t len = strlen(id);
        if (len > best && strncmp(low, id, len) == 0) {
            best = len;
            *out = (ref_product)p;
        }
    }
    return best ? 0 : -1;
}

/* True when the user set ACLNN_EMU_SPEC: the emulated device then keeps that contract whatever
 * the run judges by (how a device that follows another contract is shown). Read once, before
 * this process sets the variable itself. */
static bool emu_spec_pinned(void)
{
    static int pinned = -1;
    if (pinned < 0) {
        const char *v = getenv("ACLNN_EMU_SPEC");
        pinned = v != NULL && *v != '\0';
    }
    return pinned;
}

/* aclInit (product chosen by ACLCTS_SOC on emulated backends), device 0, a stream and the
 * determinism option. Non-zero: the verdict says why (ERROR or NOT_SUPPORTED). */
int run_session_open(session *s, cts_verdict *v)
{
    const cts_backend *b = s->b;
    const cts_case *c = s->c;
    if (!b->op_first[cts_op_index(c->op)]) {
        cts_verdict_fail(v, CTS_NOT_SUPPORTED, "setup", "the device has no %s (no symbol %s in "
                         "%s)", c->op->api, c->op->first_phase, b->dir);
        return -1;
    }
    if (b->emulated) {
        /* The emulated device plays the product and the release the case describes. */
        setenv("ACLCTS_SOC", ref_product_id(c->product), 1);
        if (!emu_spec_pinned())
            setenv("ACLNN_EMU_SPEC", ref_spec_name(c->spec), 1);
        /* Scatter-add order varies between runs on a real device even on one core; ask the
         * emulation for that too (unless the user chose a seed), so determinism and spread
         * checks mean the same thing on any machine. */
        setenv("ACLNN_EMU_SHUFFLE", "1", 0);
    }
    aclError e = b->aclInit(NULL);
    if (e != ACL_SUCCESS && (b->emulated || e != ACL_ERROR_REPEAT_INITIALIZE)) {
        const char *m = b->aclGetRecentErrMsg(); /* reading it clears it: once */
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclInit failed with %d: %s", e,
                         m ? m : "no message");
        return -1;
    }
    s->initialized = e == ACL_SUCCESS;
    const char *soc = b->aclrtGetSocName();
    ref_product p;
    bool known = soc_product(soc, &p) == 0;
    if (!known || p != c->product) {
        cts_verdict_fail(v, b->emulated ? CTS_ERROR : CTS_NOT_SUPPORTED, "setup",
                         "the device is %s (%s) and the case is for %s", soc ? soc : "(null)",
                         known ? ref_product_id(p) : "unknown product", ref_product_id(c->product));
        return -1;
    }
    if ((e = b->aclrtSetDevice(0)) != ACL_SUCCESS) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtSetDevice(0) failed with %d", e);
        return -1;
    }
    s->device_set = true;
    if ((e = b->aclrtCreateStream(&s->stream)) != ACL_SUCCESS) {
        s->stream = NULL;
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtCreateStream failed with %d", e);
        return -1;
    }
    if ((e = b->aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, c->deterministic ? 1 : 0)) !=
        ACL_SUCCESS) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "aclrtCtxSetSysParamOpt(DETERMINISTIC) failed "
                         "with %d", e);
        return -1;
    }
    return 0;
}

void run_session_close(session *s)
{
    if (s->stream) s->b->aclrtDestroyStream(s->stream);
    if (s->device_set) s->b->aclrtResetDevice(0);
    /* A real runtime stays initialized for the process (aclInit once per process); the
     * emulation is finalized so the next case's aclInit reads its product. */
    if (s->initialized && s->b->emulated) s->b->aclFinalize();
}

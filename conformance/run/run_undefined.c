/* A case whose contract defines no outcome (ref_status.undefined: the vendor's code dereferences
 * a NULL pointer there). No code can be demanded, so nothing is judged: the call runs in a child
 * process, where a crash costs nothing, and the verdict UNDEFINED records what it did. */
#include "run_internal.h"

#include <errno.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the child reports through its pipe when the call returned. */
typedef struct {
    int harness_rc;          /* non-zero when the harness could not call: */
    cts_status setup_status; /* ... the session's verdict (NOT_SUPPORTED on another product) */
    char setup_check[32];
    int32_t status;
    char text[1024];         /* the device's error message, or the harness's */
} outcome;

static void write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return;
        p += k;
        n -= (size_t)k;
    }
}

/* The child: its own device session, the call on the case's data, the outcome, _exit (no
 * atexit handler of the worker runs twice). It dies with the worker (PDEATHSIG), so a call that
 * hangs ends with the worker's timeout. One OpenMP thread: the worker's pool did not survive
 * the fork. */
static void child(const case_run *r, int fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    omp_set_num_threads(1);
    session s = r->s;
    cts_verdict v;
    memset(&v, 0, sizeof v);
    outcome out = {0};
    out.setup_status = CTS_ERROR;
    snprintf(out.setup_check, sizeof out.setup_check, "setup");
    if (run_session_open(&s, &v) != 0) {
        out.harness_rc = -1;
        out.setup_status = v.status;
        snprintf(out.setup_check, sizeof out.setup_check, "%s", v.check);
        snprintf(out.text, sizeof out.text, "%s", v.message);
    } else {
        device_run d;
        run_clock gen = {0, 0};
        out.harness_rc = run_device_once(&s, NULL, &d, &gen, out.text, sizeof out.text);
        if (out.harness_rc == 0) {
            out.status = d.status;
            snprintf(out.text, sizeof out.text, "%s", d.errmsg);
        }
        run_device_free(s.b, s.c, &d);
    }
    write_all(fd, &out, sizeof out);
    run_session_close(&s);
    _exit(0);
}

/* Reads the child's report (false: it wrote none, it died first) and waits for it. */
static bool collect(pid_t pid, int fd, outcome *out, int *wstatus)
{
    size_t got = 0;
    while (got < sizeof *out) {
        ssize_t k = read(fd, (char *)out + got, sizeof *out - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR) {
    }
    out->text[sizeof out->text - 1] = 0;
    return got == sizeof *out;
}

static void describe(const case_run *r, outcome *out, bool reported, int wstatus,
                     cts_verdict *v)
{
    char what[700];
    if (reported && out->harness_rc != 0) {
        out->setup_check[sizeof out->setup_check - 1] = 0;
        cts_verdict_fail(v, (unsigned)out->setup_status < CTS_STATUS_COUNT ? out->setup_status
                         : CTS_ERROR, out->setup_check, "%s", out->text);
        return;
    }
    if (reported) {
        v->got_status = out->status;
        snprintf(what, sizeof what, "returned %d%s%.600s", out->status,
                 out->text[0] ? ": " : "", out->text);
    } else if (WIFSIGNALED(wstatus)) {
        char sig[32];
        snprintf(what, sizeof what, "died of %s",
                 cts_signal_name(WTERMSIG(wstatus), sig, sizeof sig));
    } else {
        snprintf(what, sizeof what, "exited with status %d without returning",
                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
    }
    v->status = CTS_UNDEFINED;
    snprintf(v->check, sizeof v->check, "undefined");
    snprintf(v->message, sizeof v->message,
             "no outcome is defined (%.255s); the call, run in a child process, %.650s",
             r->st.reason, what);
}

void run_undefined_case(case_run *r, cts_verdict *v)
{
    int fds[2];
    fflush(NULL);
    if (pipe(fds) != 0) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "pipe: %s", strerror(errno));
        return;
    }
    run_clock t = run_clock_now();
    pid_t pid = fork();
    if (pid < 0) {
        cts_verdict_fail(v, CTS_ERROR, "setup", "fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child(r, fds[1]);
    }
    close(fds[1]);
    outcome out;
    memset(&out, 0, sizeof out);
    int wstatus = 0;
    bool reported = collect(pid, fds[0], &out, &wstatus);
    close(fds[0]);
    run_stage_add(&v->t_device, &v->c_device, t); /* the child's CPU once it is reaped */
    describe(r, &out, reported, wstatus, v);
}

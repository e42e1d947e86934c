/* Forked workers with a poll/waitpid loop: up to `jobs` children, each with a verdict pipe and an
 * output pipe (stdout and stderr of the child, kept as a tail for the report). A stop request
 * (SIGINT, a write error) ends the loop at once: running workers are killed, not judged. */
#include "worker.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

typedef struct {
    pid_t pid;               /* 0: free slot */
    size_t index;
    int vfd, lfd;            /* read ends; -1 once at EOF */
    unsigned char vbuf[sizeof(cts_verdict)];
    size_t vlen;
    bool vextra;             /* more bytes than one verdict */
    char log[CTS_WORKER_LOG_MAX];
    size_t loglen;
    double start, deadline;
    bool killed;
} slot;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *cts_signal_name(int sig, char *buf, size_t len)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"},
        {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
        {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"}, {SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"},
        {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    snprintf(buf, len, "signal %d", sig);
    return buf;
}

static void write_all(int fd, const void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = write(fd, (const char *)p + done, n - done);
        if (w < 0 && errno != EINTR)
            return;
        if (w > 0)
            done += (size_t)w;
    }
}

/* The child: run the case, send the verdict, leave without running exit handlers (the parent's
 * stdio buffers and atexit work are not ours to flush). */
static void child(const cts_case *c, const cts_worker_options *o, int vfd, int lfd)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed harness leaves no hung children behind */
#endif
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_IGN); /* the parent decides: it stops the run and kills its workers */
    signal(SIGTERM, SIG_IGN);
    dup2(lfd, STDOUT_FILENO);
    dup2(lfd, STDERR_FILENO);
    close(lfd);
    cts_verdict v;
    memset(&v, 0, sizeof v);
    cts_run_case(o->backend, c, &o->run, &v);
    fflush(stdout);
    fflush(stderr);
    write_all(vfd, &v, sizeof v);
    close(vfd);
    _exit(0);
}

static void setup_error(cts_verdict *v, const char *what)
{
    memset(v, 0, sizeof *v);
    v->status = CTS_ERROR;
    snprintf(v->check, sizeof v->check, "setup");
    snprintf(v->message, sizeof v->message, "%s: %s", what, strerror(errno));
}

static int start(slot *s, size_t index, const cts_case *c, const cts_worker_options *o,
                 cts_verdict *err)
{
    int vp[2], lp[2];
    if (pipe(vp) != 0) {
        setup_error(err, "pipe");
        return -1;
    }
    if (pipe(lp) != 0) {
        setup_error(err, "pipe");
        close(vp[0]), close(vp[1]);
        return -1;
    }
    fflush(NULL); /* or the child would inherit, and one day print, our buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        setup_error(err, "fork");
        close(vp[0]), close(vp[1]), close(lp[0]), close(lp[1]);
        return -1;
    }
    if (pid == 0) {
        close(vp[0]);
        close(lp[0]);
        child(c, o, vp[1], lp[1]);
    }
    close(vp[1]);
    close(lp[1]);
    memset(s, 0, sizeof *s);
    s->pid = pid;
    s->index = index;
    s->vfd = vp[0];
    s->lfd = lp[0];
    s->start = now();
    s->deadline = o->timeout > 0 ? s->start + o->timeout : 0;
    return 0;
}

static void read_verdict(slot *s)
{
    unsigned char tmp[4096];
    size_t room = sizeof s->vbuf - s->vlen;
    ssize_t r = read(s->vfd, room ? s->vbuf + s->vlen : tmp, room ? room : sizeof tmp);
    if (r < 0 && errno == EINTR)
        return;
    if (r <= 0) {
        close(s->vfd);
        s->vfd = -1;
    } else if (room) {
        s->vlen += (size_t)r;
    } else {
        s->vextra = true;
    }
}

static void read_log(slot *s)
{
    char tmp[4096];
    ssize_t r = read(s->lfd, tmp, sizeof tmp);
    if (r < 0 && errno == EINTR)
        return;
    if (r <= 0) {
        close(s->lfd);
        s->lfd = -1;
        return;
    }
    /* keep the tail: the end of a crash report is the part that says what happened */
    size_t cap = sizeof s->log - 1, n = (size_t)r;
    const char *src = tmp;
    if (n >= cap) {
        src += n - cap;
        n = cap;
        s->loglen = 0;
    } else if (s->loglen + n > cap) {
        size_t drop = s->loglen + n - cap;
        memmove(s->log, s->log + drop, s->loglen - drop);
        s->loglen -= drop;
    }
    memcpy(s->log + s->loglen, src, n);
    s->loglen += n;
    s->log[s->loglen] = '\0';
}

/* The verdict of a reaped child from its wait status and what it sent. */
static void judge(slot *s, int wstatus, double timeout, cts_verdict *v)
{
    bool have = s->vlen == sizeof *v && !s->vextra;
    memset(v, 0, sizeof *v);
    if (have) {
        memcpy(v, s->vbuf, sizeof *v);
        v->case_id[sizeof v->case_id - 1] = v->check[sizeof v->check - 1] = '\0';
        v->message[sizeof v->message - 1] = v->status_reason[sizeof v->status_reason - 1] = '\0';
        v->path[sizeof v->path - 1] = v->worst_output[sizeof v->worst_output - 1] = '\0';
        if ((unsigned)v->status >= CTS_STATUS_COUNT)
            have = false;
    }
    double elapsed = now() - s->start;
    char buf[32];
    if (s->killed) {
        memset(v, 0, sizeof *v);
        v->status = CTS_TIMEOUT;
        snprintf(v->check, sizeof v->check, "timeout");
        snprintf(v->message, sizeof v->message,
                 "no verdict within the %g s timeout; the worker was killed with SIGKILL",
                 timeout);
    } else if (WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) {
        /* Nobody here sent it: the kernel's out-of-memory killer (or an administrator) did. */
        memset(v, 0, sizeof *v);
        v->status = CTS_RESOURCE_ERROR;
        snprintf(v->check, sizeof v->check, "memory");
        snprintf(v->message, sizeof v->message,
                 "the worker was killed with SIGKILL, which the harness did not send: the "
                 "system ran out of memory (OOM killer) or an operator killed it; see "
                 "--max-memory and --jobs");
    } else if (WIFSIGNALED(wstatus)) {
        int sig = WTERMSIG(wstatus);
        cts_verdict got = *v;
        memset(v, 0, sizeof *v);
        v->status = CTS_CRASH;
        snprintf(v->check, sizeof v->check, "crash");
        snprintf(v->message, sizeof v->message, "worker killed by %s (%s)%s%s",
                 cts_signal_name(sig, buf, sizeof buf), strsignal(sig),
                 have ? " after its verdict: " : "", have ? cts_status_name(got.status) : "");
    } else if (!have) {
        memset(v, 0, sizeof *v);
        v->status = CTS_ERROR;
        snprintf(v->check, sizeof v->check, "setup");
        snprintf(v->message, sizeof v->message,
                 "worker exited with status %d without a verdict (%zu of %zu bytes)",
                 WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, s->vlen, sizeof *v);
    }
    if (v->t_total <= 0)
        v->t_total = elapsed;
}

/* A stop request: kill every running worker and reap it; its case gets no verdict. */
static void abandon(slot *slots, int jobs)
{
    for (int k = 0; k < jobs; k++)
        if (slots[k].pid) {
            kill(slots[k].pid, SIGKILL);
            while (waitpid(slots[k].pid, NULL, 0) < 0 && errno == EINTR)
                continue;
            if (slots[k].vfd >= 0)
                close(slots[k].vfd);
            if (slots[k].lfd >= 0)
                close(slots[k].lfd);
            slots[k].pid = 0;
        }
}

static bool stopping(const cts_worker_options *o)
{
    return o->stop && *o->stop;
}

void cts_worker_run(const cts_case *const *cases, size_t n, const cts_worker_options *o,
                    cts_worker_done_fn done, void *ctx)
{
    int jobs = o->jobs > 0 ? o->jobs : 1;
    slot *slots = calloc((size_t)jobs, sizeof *slots);
    struct pollfd *pfd = calloc(2 * (size_t)jobs, sizeof *pfd);
    slot **owner = calloc(2 * (size_t)jobs, sizeof *owner);
    if (!slots || !pfd || !owner)
        abort();
    size_t next = 0;
    int running = 0;
    cts_verdict v;
    while ((next < n || running > 0) && !stopping(o)) {
        for (int k = 0; k < jobs && next < n && !stopping(o); k++) {
            if (slots[k].pid)
                continue;
            size_t i = next++;
            if (start(&slots[k], i, cases[i], o, &v) != 0) {
                snprintf(v.case_id, sizeof v.case_id, "%s", cases[i]->id);
                done(ctx, i, &v, "");
                continue;
            }
            running++;
        }
        if (!running)
            continue;

        int np = 0, wait_ms = -1;
        double t = now();
        for (int k = 0; k < jobs; k++) {
            slot *s = &slots[k];
            if (!s->pid)
                continue;
            if (s->vfd >= 0)
                pfd[np] = (struct pollfd){.fd = s->vfd, .events = POLLIN}, owner[np++] = s;
            if (s->lfd >= 0)
                pfd[np] = (struct pollfd){.fd = s->lfd, .events = POLLIN}, owner[np++] = s;
            int ms = -1;
            if (s->vfd < 0 && s->lfd < 0)
                ms = 1; /* pipes closed: the child is exiting; reap it promptly */
            else if (s->deadline > 0 && !s->killed)
                ms = s->deadline <= t ? 0 : (int)((s->deadline - t) * 1000) + 1;
            if (ms >= 0 && (wait_ms < 0 || ms < wait_ms))
                wait_ms = ms;
        }
        int r = poll(pfd, (nfds_t)np, wait_ms);
        if (r < 0 && errno != EINTR)
            abort();
        for (int p = 0; r > 0 && p < np; p++) {
            if (!pfd[p].revents)
                continue;
            if (pfd[p].fd == owner[p]->vfd)
                read_verdict(owner[p]);
            else
                read_log(owner[p]);
        }

        t = now();
        for (int k = 0; k < jobs && !stopping(o); k++) {
            slot *s = &slots[k];
            if (!s->pid)
                continue;
            if (s->deadline > 0 && !s->killed && t >= s->deadline) {
                kill(s->pid, SIGKILL);
                s->killed = true;
            }
            if (s->vfd >= 0 || s->lfd >= 0)
                continue;
            int ws;
            pid_t w = waitpid(s->pid, &ws, WNOHANG);
            if (w == 0 || (w < 0 && errno == EINTR))
                continue;
            if (w < 0)
                ws = 0; /* lost child: judged as an exit without a verdict below */
            judge(s, ws, o->timeout, &v);
            snprintf(v.case_id, sizeof v.case_id, "%s", cases[s->index]->id);
            s->pid = 0;
            running--;
            done(ctx, s->index, &v, s->log);
        }
    }
    abandon(slots, jobs);
    free(owner);
    free(pfd);
    free(slots);
}

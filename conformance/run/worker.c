/* Pre-forked workers fed over a socket: up to `jobs` children, each running case after case.
 * The parent sends a case index on the child's command socket together with the write end of a
 * new output pipe for that case (SCM_RIGHTS); the child points stdout and stderr at it, runs the
 * case, closes it and answers with the verdict on its verdict pipe, so the output tail kept for
 * the report is exactly that case's. Each worker has WORKER_DEPTH cases sent ahead, so it never
 * waits while the parent writes results. A child that dies or hangs costs only the case it was
 * running (CRASH, TIMEOUT, ERROR exactly as with one fork per case); the cases queued behind it
 * go back to the queue and the child is replaced. A child whose case did not pass (FAIL, ERROR)
 * is retired (killed if a queued case already started there; that case is run again on a new
 * worker), as is one that has run CTS_WORKER_MAX_CASES (it is sent no more and exits once they
 * are done), so nothing a failing or long-lived device left behind (heap damage, leaked
 * memory, runtime state) reaches another case. A stop request (SIGINT, a write error) ends the
 * loop at once: running workers are killed, not judged. */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#endif

#define WORKER_DEPTH 2 /* cases sent ahead to a worker: the running one and the next */

typedef struct {
    pid_t pid;               /* 0: no worker */
    int cfd;                 /* command socket; -1 once the worker is retired */
    int vfd;                 /* verdict pipe; -1 at EOF (the worker has exited) */
    size_t sent[WORKER_DEPTH]; /* case indices sent, in order: sent[0] is running */
    int lfds[WORKER_DEPTH];  /* their output pipes (-1 at EOF) */
    int nsent;
    bool doomed;             /* killed to retire it: its cases go back to the queue */
    size_t ncases;           /* cases this worker has finished */
    unsigned char vbuf[sizeof(cts_verdict)];
    size_t vlen;
    char log[CTS_WORKER_LOG_MAX]; /* output tail of the running case */
    size_t loglen;
    double start, deadline;  /* of the running case */
    bool killed;             /* by its timeout */
} slot;

/* Work queue of a run: cases[0..n), the next one not yet started, and cases given back by
 * workers that ended before reaching them. */
typedef struct {
    const cts_case *const *cases;
    size_t n, next;
    size_t *back;
    size_t nback;
} queue;

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

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* A case index and its output pipe from the command socket; false at the end of commands. */
static bool receive(int cfd, uint64_t *index, int *lfd)
{
    char ctl[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {index, sizeof *index};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    ssize_t r;
    while ((r = recvmsg(cfd, &m, MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (r != (ssize_t)sizeof *index || !c || c->cmsg_type != SCM_RIGHTS)
        return false;
    memcpy(lfd, CMSG_DATA(c), sizeof *lfd);
    return true;
}

/* glibc keeps what a case freed in its threads' arenas (the reference's and the emulated
 * kernel's OpenMP teams), and the next case's peak adds to it: on the vendor's grid cases the
 * worker carried 60-200 MB from case to case, and its peak RSS rose by as much, past the memory
 * goal of the largest case. Given back between cases, a case's peak is its own. */
static void release_freed_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The child: run each case that arrives with its output going to the case's pipe, close that
 * pipe, send the verdict; leave at the end of commands without running exit handlers (the
 * parent's stdio buffers and atexit work are not ours). */
static void child(const cts_case *const *cases, size_t n, const cts_worker_options *o, int cfd,
                  int vfd)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed harness leaves no hung children behind */
#endif
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_IGN); /* the parent decides: it stops the run and kills its workers */
    signal(SIGTERM, SIG_IGN);
    int null = open("/dev/null", O_WRONLY);
    uint64_t index;
    int lfd;
    while (receive(cfd, &index, &lfd) && index < n) {
        dup2(lfd, STDOUT_FILENO);
        dup2(lfd, STDERR_FILENO);
        close(lfd);
        cts_verdict v;
        memset(&v, 0, sizeof v);
        cts_run_case(o->backend, cases[index], &o->run, &v);
        fflush(stdout);
        fflush(stderr);
        dup2(null, STDOUT_FILENO); /* the case's output is complete when its verdict arrives */
        dup2(null, STDERR_FILENO);
        write_all(vfd, &v, sizeof v);
        release_freed_memory();
    }
    _exit(0);
}

static void setup_error(cts_verdict *v, const char *what)
{
    memset(v, 0, sizeof *v);
    v->status = CTS_ERROR;
    snprintf(v->check, sizeof v->check, "setup");
    snprintf(v->message, sizeof v->message, "%s: %s", what, strerror(errno));
}

/* A new worker in slot k. The child closes every other worker's descriptors: a command socket
 * it kept open would hide that worker's end of commands. */
static int spawn(slot *slots, int jobs, int k, const cts_case *const *cases, size_t n,
                 const cts_worker_options *o, cts_verdict *err)
{
    int cp[2], vp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, cp) != 0) {
        setup_error(err, "socketpair");
        return -1;
    }
    if (pipe(vp) != 0) {
        setup_error(err, "pipe");
        close(cp[0]), close(cp[1]);
        return -1;
    }
    fflush(NULL); /* or the child would inherit, and one day print, our buffered output */
    pid_t pid = fork();
    if (pid < 0) {
        setup_error(err, "fork");
        close(cp[0]), close(cp[1]), close(vp[0]), close(vp[1]);
        return -1;
    }
    if (pid == 0) {
        for (int j = 0; j < jobs; j++) {
            if (!slots[j].pid)
                continue;
            close_fd(&slots[j].cfd), close_fd(&slots[j].vfd);
            for (int d = 0; d < slots[j].nsent; d++)
                close_fd(&slots[j].lfds[d]);
        }
        close(cp[0]), close(vp[0]);
        child(cases, n, o, cp[1], vp[1]);
    }
    close(cp[1]), close(vp[1]);
    slot *s = &slots[k];
    memset(s, 0, sizeof *s);
    s->pid = pid;
    s->cfd = cp[0];
    s->vfd = vp[0];
    return 0;
}

/* The running case's clock and output start now. */
static void start_case(slot *s, const cts_worker_options *o)
{
    s->vlen = 0;
    s->loglen = 0;
    s->log[0] = '\0';
    s->killed = false;
    s->start = now();
    s->deadline = o->timeout > 0 ? s->start + o->timeout : 0;
}

/* Sends case index and a new output pipe to the worker of s; false when the worker is gone
 * (or no pipe could be made): the case stays with the caller. */
static bool assign(slot *s, size_t index, const cts_worker_options *o)
{
    int lp[2];
    if (pipe(lp) != 0)
        return false;
    uint64_t i = index;
    char ctl[CMSG_SPACE(sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = {&i, sizeof i};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &lp[1], sizeof(int));
    bool sent = sendmsg(s->cfd, &m, MSG_NOSIGNAL) == (ssize_t)sizeof i;
    close(lp[1]);
    if (!sent) {
        close(lp[0]);
        close_fd(&s->cfd);
        return false;
    }
    fcntl(lp[0], F_SETFL, fcntl(lp[0], F_GETFL) | O_NONBLOCK);
    s->sent[s->nsent] = index;
    s->lfds[s->nsent++] = lp[0];
    if (s->nsent == 1)
        start_case(s, o);
    return true;
}

static void read_verdict(slot *s)
{
    ssize_t r = read(s->vfd, s->vbuf + s->vlen, sizeof s->vbuf - s->vlen);
    if (r < 0 && errno == EINTR)
        return;
    if (r <= 0)
        close_fd(&s->vfd);
    else
        s->vlen += (size_t)r;
}

/* Reads what the running case wrote; false when nothing is there now (or at EOF). */
static bool read_log(slot *s)
{
    char tmp[4096];
    ssize_t r = read(s->lfds[0], tmp, sizeof tmp);
    if (r < 0 && (errno == EINTR || errno == EAGAIN))
        return errno == EINTR;
    if (r <= 0) {
        close_fd(&s->lfds[0]);
        return false;
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
    return true;
}

/* The verdict of a reaped child from its wait status and what it sent. */
static void judge(slot *s, int wstatus, double timeout, cts_verdict *v)
{
    bool have = s->vlen == sizeof *v;
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

static bool has_work(const queue *q)
{
    return q->nback > 0 || q->next < q->n;
}

static size_t take(queue *q)
{
    return q->nback > 0 ? q->back[--q->nback] : q->next++;
}

/* Cases not yet sent to a worker. */
static size_t remaining(const queue *q)
{
    return q->nback + (q->n - q->next);
}

/* The worker of s gets cases until WORKER_DEPTH are sent (a case ahead only while more cases
 * remain than workers, so none waits behind a long case at the end while another worker is
 * idle) and none beyond its share of CTS_WORKER_MAX_CASES (so retiring it kills no case it has
 * started); one with nothing to run and no more cases, or its share done, is retired (it exits
 * at the end of its commands). */
static void feed(slot *s, queue *q, const cts_worker_options *o)
{
    while (s->cfd >= 0 && !s->doomed && has_work(q) &&
           s->ncases + (size_t)s->nsent < CTS_WORKER_MAX_CASES &&
           (s->nsent == 0 || (s->nsent < WORKER_DEPTH && remaining(q) > (size_t)o->jobs))) {
        size_t i = take(q);
        if (!assign(s, i, o)) {
            q->back[q->nback++] = i;
            break;
        }
    }
    if (s->cfd >= 0 && s->nsent == 0 && (!has_work(q) || s->ncases >= CTS_WORKER_MAX_CASES))
        close_fd(&s->cfd);
}

/* The first case sent to s is done (verdict or end of the worker); the next one is running. */
static size_t pop_case(slot *s, const cts_worker_options *o)
{
    size_t index = s->sent[0];
    close_fd(&s->lfds[0]);
    for (int d = 1; d < s->nsent; d++)
        s->sent[d - 1] = s->sent[d], s->lfds[d - 1] = s->lfds[d];
    if (--s->nsent > 0)
        start_case(s, o);
    return index;
}

/* The verdict of slot s's running case goes out. A worker whose case did not pass is retired:
 * killed if it has already started the next case (which goes back to the queue when the
 * worker is reaped). One that has run its share has nothing queued (feed) and just exits. */
static void finish(slot *s, queue *q, int wstatus, const cts_worker_options *o,
                   cts_worker_done_fn done, void *ctx)
{
    cts_verdict v;
    judge(s, wstatus, o->timeout, &v);
    char log[CTS_WORKER_LOG_MAX];
    memcpy(log, s->log, s->loglen + 1);
    size_t index = pop_case(s, o);
    snprintf(v.case_id, sizeof v.case_id, "%s", q->cases[index]->id);
    bool retire = ++s->ncases >= CTS_WORKER_MAX_CASES || v.status == CTS_FAIL ||
                  v.status == CTS_ERROR;
    if (s->pid && retire) {
        close_fd(&s->cfd);
        if (s->nsent > 0) {
            kill(s->pid, SIGKILL);
            s->doomed = true;
        }
    }
    if (s->pid)
        feed(s, q, o);
    done(ctx, index, &v, log);
}

/* Reaps the worker of s once it has exited (verdict pipe at EOF, running case's output read):
 * the running case gets its verdict from how the worker ended, the cases behind it go back to
 * the queue (all of them when the parent killed it to retire it). */
static void reap(slot *s, queue *q, const cts_worker_options *o, cts_worker_done_fn done,
                 void *ctx)
{
    int ws;
    pid_t w = waitpid(s->pid, &ws, WNOHANG);
    if (w == 0 || (w < 0 && errno == EINTR))
        return;
    if (w < 0)
        ws = 0; /* lost child: judged as an exit without a verdict */
    close_fd(&s->cfd);
    s->pid = 0;
    if (s->nsent > 0 && !s->doomed)
        finish(s, q, ws, o, done, ctx);
    while (s->nsent > 0)
        q->back[q->nback++] = pop_case(s, o);
}

/* Milliseconds poll may sleep for slot s: until its deadline, or briefly while its worker exits. */
static int wait_ms_for(const slot *s, double t)
{
    if (s->vfd < 0)
        return 1; /* the worker is exiting; reap it promptly */
    if (s->nsent > 0 && !s->doomed && s->deadline > 0 && !s->killed)
        return s->deadline <= t ? 0 : (int)((s->deadline - t) * 1000) + 1;
    return -1;
}

/* Where the slot's worker stands after a poll: verdict, timeout, end. */
static void step(slot *s, queue *q, int *live, const cts_worker_options *o,
                 cts_worker_done_fn done, void *ctx)
{
    bool running = s->nsent > 0 && !s->doomed;
    if (running && s->vlen == sizeof(cts_verdict)) {
        while (s->lfds[0] >= 0 && read_log(s)) /* the output the case wrote before its verdict */
            ;
        finish(s, q, 0, o, done, ctx);
        return;
    }
    if (running && s->deadline > 0 && !s->killed && now() >= s->deadline) {
        kill(s->pid, SIGKILL);
        s->killed = true;
    }
    if (s->vfd < 0 && (s->nsent == 0 || s->lfds[0] < 0 || s->doomed)) {
        reap(s, q, o, done, ctx);
        *live -= !s->pid;
    }
}

/* A stop request: kill every worker and reap it; its cases get no verdict. */
static void abandon(slot *slots, int jobs)
{
    for (int k = 0; k < jobs; k++) {
        slot *s = &slots[k];
        if (!s->pid)
            continue;
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
            continue;
        close_fd(&s->cfd), close_fd(&s->vfd);
        for (int d = 0; d < s->nsent; d++)
            close_fd(&s->lfds[d]);
        s->pid = 0;
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
    queue q = {cases, n, 0, calloc((size_t)jobs * WORKER_DEPTH, sizeof(size_t)), 0};
    if (!slots || !pfd || !owner || !q.back)
        abort();
    int live = 0;
    cts_verdict v;
    while ((has_work(&q) || live > 0) && !stopping(o)) {
        for (int k = 0; k < jobs && !stopping(o); k++) {
            slot *s = &slots[k];
            if (!s->pid && has_work(&q)) {
                if (spawn(slots, jobs, k, cases, n, o, &v) != 0) {
                    size_t i = take(&q); /* the case that had no worker to run on */
                    snprintf(v.case_id, sizeof v.case_id, "%s", cases[i]->id);
                    done(ctx, i, &v, "");
                    continue;
                }
                live++;
            }
            if (s->pid)
                feed(s, &q, o);
        }
        if (!live)
            continue;

        int np = 0, wait_ms = -1;
        double t = now();
        for (int k = 0; k < jobs; k++) {
            slot *s = &slots[k];
            if (!s->pid)
                continue;
            if (s->vfd >= 0)
                pfd[np] = (struct pollfd){.fd = s->vfd, .events = POLLIN}, owner[np++] = s;
            if (s->nsent > 0 && s->lfds[0] >= 0)
                pfd[np] = (struct pollfd){.fd = s->lfds[0], .events = POLLIN}, owner[np++] = s;
            int ms = wait_ms_for(s, t);
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
        for (int k = 0; k < jobs && !stopping(o); k++)
            if (slots[k].pid)
                step(&slots[k], &q, &live, o, done, ctx);
    }
    abandon(slots, jobs);
    free(q.back);
    free(owner);
    free(pfd);
    free(slots);
}

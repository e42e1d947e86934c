/* Console progress: a live line on terminals, periodic plain lines elsewhere. */
#include "results.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

double cts_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cts_progress_start(cts_progress *p, FILE *out, bool quiet, size_t total)
{
    *p = (cts_progress){0};
    p->out = out;
    p->quiet = quiet;
    p->tty = isatty(fileno(out));
    p->period = 10;
    p->redraw_period = 0.25;
    p->total = total;
    p->t_start = p->t_last = cts_now();
}

static void fmt_duration(char *buf, size_t len, double s)
{
    long t = (long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60)
        snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else
        snprintf(buf, len, "%lds", t);
}

static void status_text(const cts_progress *p, char *buf, size_t len)
{
    double el = cts_now() - p->t_start;
    char eta[32] = "?";
    if (p->work_total > 0 && p->work_done > 0)
        fmt_duration(eta, sizeof eta, el / p->work_done * (p->work_total - p->work_done));
    else if (p->work_total <= 0 && p->done)
        fmt_duration(eta, sizeof eta, el / (double)p->done * (double)(p->total - p->done));
    snprintf(buf, len, "%zu/%zu done, %zu failing, ETA %s", p->done, p->total, p->failing, eta);
}

static void clear_line(cts_progress *p)
{
    if (p->line_shown) {
        fputs("\r\033[K", p->out);
        p->line_shown = false;
    }
}

void cts_failing_case_print(FILE *f, const cts_result *r)
{
    fprintf(f, "%-8s %s", cts_status_name(r->v.status), r->v.case_id);
    if (r->v.check[0])
        fprintf(f, " [%s]", r->v.check);
    fprintf(f, ": %s\n", r->v.message);
    if (r->repro[0])
        fprintf(f, "    %s\n", r->repro);
}

void cts_progress_case(cts_progress *p, const cts_result *r)
{
    cts_progress_case_work(p, r, 1.0);
}

void cts_progress_case_work(cts_progress *p, const cts_result *r, double work)
{
    p->done++;
    p->work_done += work;
    bool fails = cts_status_fails(r->v.status);
    p->failing += fails;
    if (fails) {
        clear_line(p);
        cts_failing_case_print(p->out, r);
        if (r->log[0] && !p->quiet)
            fprintf(p->out, "  output:\n%s%s", r->log,
                    r->log[strlen(r->log) - 1] == '\n' ? "" : "\n");
    }
    if (p->quiet) {
        fflush(p->out);
        return;
    }
    char text[128];
    double now = cts_now();
    if (p->tty) {
        /* At most ~4 redraws a second (thousands of short cases would otherwise flood the
         * terminal), but always when no line is on screen (the first case, or a failing
         * case's lines were just printed) and for the last case. */
        if (now - p->t_drawn >= p->redraw_period || !p->line_shown || p->done == p->total) {
            status_text(p, text, sizeof text);
            fprintf(p->out, "\r\033[K%s", text);
            p->line_shown = true;
            p->t_drawn = now;
        }
    } else if (now - p->t_last >= p->period || p->done == p->total) {
        status_text(p, text, sizeof text);
        fprintf(p->out, "aclcts: %s\n", text);
        p->t_last = now;
    }
    fflush(p->out);
}

void cts_progress_end(cts_progress *p)
{
    clear_line(p);
    fflush(p->out);
}

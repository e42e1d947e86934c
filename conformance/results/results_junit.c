/* junit.xml: what CI systems (Jenkins, GitLab, GitHub reporters) read. One <testsuite> per suite
 * in the order suites first appear, classname = suite, name = the case id without the suite. */
#include "results.h"

#include <stdlib.h>
#include <string.h>

void cts_xml_escape(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* XML 1.0 allows no control characters but tab, newline and carriage return. */
            if ((*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r') || *p == 0x7f)
                fputc('?', f);
            else
                fputc(*p, f);
        }
    }
}

static const char *case_name(const cts_result *r)
{
    size_t n = strlen(r->suite);
    const char *id = r->v.case_id;
    return n && strncmp(id, r->suite, n) == 0 && id[n] == '.' ? id + n + 1 : id;
}

static void write_case(FILE *f, const cts_result *r)
{
    fputs("    <testcase classname=\"", f);
    cts_xml_escape(f, r->suite);
    fputs("\" name=\"", f);
    cts_xml_escape(f, case_name(r));
    fprintf(f, "\" time=\"%.6f\"", r->v.t_total);
    cts_status s = r->v.status;
    if (s == CTS_PASS) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    const char *tag = s == CTS_FAIL ? "failure" : cts_status_fails(s) ? "error" : "skipped";
    fprintf(f, "      <%s type=\"%s\" message=\"", tag, cts_status_name(s));
    if (r->v.check[0]) {
        cts_xml_escape(f, r->v.check);
        fputs(": ", f);
    }
    cts_xml_escape(f, r->v.message);
    fputs("\">", f);
    if (r->v.status_reason[0]) {
        fputs("status model: ", f);
        cts_xml_escape(f, r->v.status_reason);
        fputc('\n', f);
    }
    if (r->repro[0]) {
        fputs("repro: ", f);
        cts_xml_escape(f, r->repro);
        fputc('\n', f);
    }
    fprintf(f, "</%s>\n", tag);
    if (r->log[0]) {
        fputs("      <system-out>", f);
        cts_xml_escape(f, r->log);
        fputs("</system-out>\n", f);
    }
    fputs("    </testcase>\n", f);
}

int cts_junit_write(FILE *f, const cts_result *r, size_t n)
{
    cts_tally all;
    cts_tally_results(r, n, &all);
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += r[i].v.t_total;
    size_t failures = all.count[CTS_FAIL];
    size_t errors = all.count[CTS_CRASH] + all.count[CTS_TIMEOUT] + all.count[CTS_ERROR] +
                    all.count[CTS_RESOURCE_ERROR];
    size_t skipped =
        all.count[CTS_NOT_SUPPORTED] + all.count[CTS_WAIVED] + all.count[CTS_UNDEFINED];
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"aclcts\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\" time=\"%.3f\">\n", n, failures, errors, skipped, total);

    bool *done = calloc(n ? n : 1, sizeof *done);
    if (!done)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        cts_tally t = {0};
        double time = 0;
        for (size_t j = i; j < n; j++)
            if (strcmp(r[j].suite, r[i].suite) == 0) {
                t.count[r[j].v.status]++;
                t.total++;
                time += r[j].v.t_total;
            }
        fputs("  <testsuite name=\"", f);
        cts_xml_escape(f, r[i].suite);
        fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                "time=\"%.3f\">\n", t.total, t.count[CTS_FAIL],
                t.count[CTS_CRASH] + t.count[CTS_TIMEOUT] + t.count[CTS_ERROR] +
                    t.count[CTS_RESOURCE_ERROR],
                t.count[CTS_NOT_SUPPORTED] + t.count[CTS_WAIVED] + t.count[CTS_UNDEFINED], time);
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(r[j].suite, r[i].suite) == 0) {
                write_case(f, &r[j]);
                done[j] = true;
            }
        fputs("  </testsuite>\n", f);
    }
    free(done);
    fputs("</testsuites>\n", f);
    return ferror(f) ? -1 : 0;
}

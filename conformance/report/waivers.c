/* The waivers a run used or found expired, each field in its own column: audit.md's section,
 * waivers.csv and (through cts_waiver_failure) report.html. */
#include "report.h"

#include <string.h>

bool cts_is_waiver_record(const cts_result *r)
{
    return r->v.status == CTS_WAIVED ||
           (r->v.status == CTS_FAIL && !strcmp(r->v.check, "waiver"));
}

const char *cts_waiver_failure(const cts_waiver_row *w)
{
    char desc[600], needle[640];
    cts_waiver_describe_fields(w->reason, w->tracking, w->owner, w->expires, desc, sizeof desc);
    snprintf(needle, sizeof needle, "(%s): ", desc);
    const char *p = *desc ? strstr(w->message, needle) : NULL;
    return p ? p + strlen(needle) : w->message;
}

static const char *field(const char *s) { return s && *s ? s : "-"; }

/* A Markdown table cell: a pipe would split it, a newline end the row. */
static void md_cell(FILE *f, const char *s)
{
    fputs(" ", f);
    for (; *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputs(" |", f);
}

void cts_waivers_markdown(FILE *f, const cts_waiver_row *w, size_t n)
{
    fputs("\n## Waivers\n\n", f);
    if (!n) {
        fputs("none\n", f);
        return;
    }
    fputs("| case | status | reason | tracking | owner | expires | failure |\n"
          "| --- | --- | --- | --- | --- | --- | --- |\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "| `%s` | %s |", w[i].case_id, cts_status_name(w[i].status));
        const char *cells[5] = {field(w[i].reason), field(w[i].tracking), field(w[i].owner),
                                field(w[i].expires), cts_waiver_failure(&w[i])};
        for (int k = 0; k < 5; k++) md_cell(f, cells[k]);
        fputc('\n', f);
    }
}

/* A CSV field, quoted (RFC 4180: a quote doubled). */
static void csv_field(FILE *f, const char *s, const char *sep)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fprintf(f, "\"%s", sep);
}

void cts_waivers_csv(FILE *f, const cts_waiver_row *w, size_t n)
{
    fputs("case,status,reason,tracking,owner,expires,failure\n", f);
    for (size_t i = 0; i < n; i++) {
        csv_field(f, w[i].case_id, ",");
        csv_field(f, cts_status_name(w[i].status), ",");
        csv_field(f, w[i].reason, ",");
        csv_field(f, w[i].tracking, ",");
        csv_field(f, w[i].owner, ",");
        csv_field(f, w[i].expires, ",");
        csv_field(f, cts_waiver_failure(&w[i]), "\n");
    }
}

/* The waivers a run used or let expire, as certify and audit list them. A waiver's reason,
 * tracking reference, owner and expiry date are in its record's message (run/run_case.c). */
#include "cli.h"

#include <string.h>

bool cli_is_waiver_record(const cts_result *r)
{
    return r->v.status == CTS_WAIVED ||
           (r->v.status == CTS_FAIL && !strcmp(r->v.check, "waiver"));
}

void cli_waivers_markdown(FILE *f, const cts_result *r, size_t n)
{
    size_t k = 0;
    fputs("\n## Waivers\n\n", f);
    for (size_t i = 0; i < n; i++) {
        if (!cli_is_waiver_record(&r[i])) continue;
        if (!k++) fputs("| case | status | waiver and failure |\n| --- | --- | --- |\n", f);
        fprintf(f, "| `%s` | %s | ", r[i].v.case_id, cts_status_name(r[i].v.status));
        for (const char *p = r[i].v.message; *p; p++) { /* a pipe would split the cell */
            if (*p == '|') fputc('\\', f);
            fputc(*p, f);
        }
        fputs(" |\n", f);
    }
    if (!k) fputs("none\n", f);
}

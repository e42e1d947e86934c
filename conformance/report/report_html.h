/* report.html: one self-contained page (no network, no scripts, no external fonts) with the
 * verdict, the status counts and summary tables, waivers, failures with their repro lines, the
 * precision audit and pictures drawn by svg.c. All text is escaped. */
#ifndef ACLCTS_CONFORMANCE_REPORT_HTML_H_
#define ACLCTS_CONFORMANCE_REPORT_HTML_H_

#include <stddef.h>
#include <stdio.h>

#include "audit.h"
#include "results.h"

typedef struct {
    const char *title;               /* page title and heading */
    const char *verdict;             /* "CONFORMANT", "NOT CONFORMANT", or NULL (audit only) */
    const char *const *info_keys;    /* key/value lines of the header table (manifest facts) */
    const char *const *info_values;
    int ninfo;
    const cts_result *results;
    size_t nresults;
    const cts_audit *audit;          /* or NULL */
} cts_report;

/* 0, or -1 on a write error. */
int cts_report_html_write(FILE *f, const cts_report *r);

/* Markdown as aclcts writes it (headings, pipe tables, paragraphs) as escaped HTML. */
void cts_markdown_to_html(FILE *f, const char *md);

#endif

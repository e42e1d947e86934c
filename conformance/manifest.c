/* manifest.json (manifest.h). */
#include "manifest.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void cts_manifest_add_file(cts_manifest *m, const char *role, const char *path,
                           const char *source, const char *sha256)
{
    if (m->nfiles == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->files = realloc(m->files, m->cap * sizeof *m->files);
        if (!m->files) abort();
    }
    cts_manifest_file *e = &m->files[m->nfiles++];
    snprintf(e->role, sizeof e->role, "%s", role);
    snprintf(e->path, sizeof e->path, "%s", path);
    snprintf(e->source, sizeof e->source, "%s", source ? source : "");
    snprintf(e->sha256, sizeof e->sha256, "%s", sha256);
}

void cts_manifest_add_waiver(cts_manifest *m, const char *case_id, const char *reason)
{
    if (m->nwaivers == m->wcap) {
        m->wcap = m->wcap ? 2 * m->wcap : 8;
        m->waivers = realloc(m->waivers, m->wcap * sizeof *m->waivers);
        if (!m->waivers) abort();
    }
    cts_manifest_waiver *w = &m->waivers[m->nwaivers++];
    snprintf(w->case_id, sizeof w->case_id, "%s", case_id);
    snprintf(w->reason, sizeof w->reason, "%s", reason);
}

void cts_manifest_free(cts_manifest *m)
{
    free(m->files);
    free(m->waivers);
    memset(m, 0, sizeof *m);
}

const char *cts_certification_verdict(const size_t counts[CTS_STATUS_COUNT], size_t total)
{
    bool bad = total == 0 || counts[CTS_FAIL] || counts[CTS_CRASH] || counts[CTS_TIMEOUT] ||
               counts[CTS_ERROR] || counts[CTS_RESOURCE_ERROR];
    return bad ? "NOT CONFORMANT" : "CONFORMANT";
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void kv(FILE *f, const char *key, const char *value)
{
    fprintf(f, "  \"%s\": ", key);
    jstr(f, value);
    fputs(",\n", f);
}

int cts_manifest_write(FILE *f, const cts_manifest *m)
{
    fputs("{\n  \"format\": \"aclcts-certification-package/1\",\n", f);
    kv(f, "aclcts_version", m->version);
    kv(f, "aclcts_commit", m->commit);
    kv(f, "product", m->product);
    kv(f, "backend", m->backend);
    kv(f, "backend_dir", m->backend_dir);
    kv(f, "soc", m->soc);
    kv(f, "host", m->host);
    kv(f, "seed", m->seed);
    kv(f, "start", m->start);
    kv(f, "end", m->end);
    kv(f, "command", m->command);
    kv(f, "verdict", m->verdict);
    fputs("  \"counts\": {", f);
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        fprintf(f, "\"%s\": %zu, ", cts_status_name((cts_status)s), m->counts[s]);
    fprintf(f, "\"total\": %zu},\n  \"waivers\": [\n", m->total);
    for (size_t i = 0; i < m->nwaivers; i++) {
        fputs("    {\"case\": ", f);
        jstr(f, m->waivers[i].case_id);
        fputs(", \"reason\": ", f);
        jstr(f, m->waivers[i].reason);
        fprintf(f, "}%s\n", i + 1 < m->nwaivers ? "," : "");
    }
    fputs("  ],\n  \"files\": [\n", f);
    for (size_t i = 0; i < m->nfiles; i++) {
        const cts_manifest_file *e = &m->files[i];
        fputs("    {\"role\": ", f);
        jstr(f, e->role);
        fputs(", \"path\": ", f);
        jstr(f, e->path);
        fputs(", \"source\": ", f);
        jstr(f, e->source);
        fprintf(f, ", \"sha256\": \"%s\"}%s\n", e->sha256, i + 1 < m->nfiles ? "," : "");
    }
    fputs("  ]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* The string value of "key": "..." in line (unescaped into out); false when absent. */
static bool get_str(const char *line, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": \"", key);
    const char *p = strstr(line, pat);
    if (!p) return false;
    p += strlen(pat);
    size_t n = 0;
    for (; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p[1] == 'u') {
            c = (char)strtol((char[5]){p[2], p[3], p[4], p[5], 0}, NULL, 16);
            p += 5;
        } else if (c == '\\' && p[1]) {
            c = *++p;
        }
        if (n + 1 < len) out[n++] = c;
    }
    out[n] = 0;
    return *p == '"';
}

int cts_manifest_read(const char *path, cts_manifest *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    static const struct { const char *key; size_t off, size; } keys[] = {
#define K(k, m) {k, offsetof(cts_manifest, m), sizeof(((cts_manifest *)0)->m)}
        K("aclcts_version", version), K("aclcts_commit", commit), K("product", product),
        K("backend", backend), K("backend_dir", backend_dir), K("soc", soc), K("host", host),
        K("seed", seed), K("start", start), K("end", end), K("command", command),
        K("verdict", verdict),
#undef K
    };
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    bool saw_format = false, saw_counts = false;
    enum { TOP, WAIVERS, FILES } where = TOP;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (strstr(line, "\"format\": \"aclcts-certification-package/1\"")) saw_format = true;
        if (strstr(line, "\"waivers\": [")) { where = WAIVERS; continue; }
        if (strstr(line, "\"files\": [")) { where = FILES; continue; }
        if (where == FILES && strstr(line, "{\"role\"")) {
            cts_manifest_file e;
            if (!get_str(line, "role", e.role, sizeof e.role) ||
                !get_str(line, "path", e.path, sizeof e.path) ||
                !get_str(line, "source", e.source, sizeof e.source) ||
                !get_str(line, "sha256", e.sha256, sizeof e.sha256)) {
                snprintf(err, errlen, "%s:%d: malformed file entry", path, lineno);
                rc = -1;
                break;
            }
            cts_manifest_add_file(m, e.role, e.path, e.source, e.sha256);
        } else if (where == WAIVERS && strstr(line, "{\"case\"")) {
            cts_manifest_waiver w;
            get_str(line, "case", w.case_id, sizeof w.case_id);
            get_str(line, "reason", w.reason, sizeof w.reason);
            cts_manifest_add_waiver(m, w.case_id, w.reason);
        } else if (strstr(line, "\"counts\": {")) {
            saw_counts = true;
            for (int s = 0; s <= CTS_STATUS_COUNT; s++) {
                char pat[48];
                snprintf(pat, sizeof pat, "\"%s\": ",
                         s < CTS_STATUS_COUNT ? cts_status_name((cts_status)s) : "total");
                const char *p = strstr(line, pat);
                size_t v = p ? strtoull(p + strlen(pat), NULL, 10) : 0;
                if (s < CTS_STATUS_COUNT) m->counts[s] = v;
                else m->total = v;
            }
        } else if (where == TOP) {
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                get_str(line, keys[k].key, (char *)m + keys[k].off, keys[k].size);
        }
    }
    free(line);
    fclose(f);
    if (rc == 0 && (!saw_format || !saw_counts || !m->verdict[0])) {
        snprintf(err, errlen, "%s: not an aclcts certification manifest (format, counts or "
                 "verdict missing)", path);
        rc = -1;
    }
    return rc;
}

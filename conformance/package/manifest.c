/* manifest.json (package.h). */
#include "package.h"

#include <stdlib.h>
#include <string.h>

#include "results/results.h"

void cts_manifest_add_file(cts_manifest *m, const char *role, const char *path,
                           const char *source, const char *sha256)
{
    m->files = cts_grow(m->files, &m->cap, m->nfiles, sizeof *m->files);
    cts_manifest_file *e = &m->files[m->nfiles++];
    snprintf(e->role, sizeof e->role, "%s", role);
    snprintf(e->path, sizeof e->path, "%s", path);
    snprintf(e->source, sizeof e->source, "%s", source ? source : "");
    snprintf(e->sha256, sizeof e->sha256, "%s", sha256);
}

void cts_manifest_add_waiver_of(cts_manifest *m, const cts_manifest_waiver *w)
{
    m->waivers = cts_grow(m->waivers, &m->wcap, m->nwaivers, sizeof *m->waivers);
    m->waivers[m->nwaivers++] = *w;
}

void cts_manifest_add_waiver(cts_manifest *m, const char *case_id, const char *reason)
{
    cts_manifest_waiver w = {0};
    snprintf(w.case_id, sizeof w.case_id, "%s", case_id);
    snprintf(w.reason, sizeof w.reason, "%s", reason);
    cts_manifest_add_waiver_of(m, &w);
}

/* One waiver's object: case, reason (the record's message), and the waiver's own fields
 * where the suite gave them. */
static json_t *waiver_json(const cts_manifest_waiver *w)
{
    json_t *o = json_pack("{s:s, s:s, s:b}", "case", w->case_id, "reason", w->reason, "expired",
                          w->expired);
    const char *k[] = {"waiver_reason", "tracking", "owner", "expires"};
    const char *v[] = {w->waiver_reason, w->tracking, w->owner, w->expires};
    for (int i = 0; i < 4; i++)
        if (*v[i]) json_object_set_new(o, k[i], json_string(v[i]));
    return o;
}

void cts_manifest_add_shard(cts_manifest *m, const cts_provenance *p)
{
    m->shards = realloc(m->shards, (m->nshards + 1) * sizeof *m->shards);
    if (!m->shards) abort();
    m->shards[m->nshards++] = *p;
}

void cts_manifest_free(cts_manifest *m)
{
    free(m->files);
    free(m->waivers);
    free(m->shards);
    memset(m, 0, sizeof *m);
}

const char *cts_certification_verdict(const size_t counts[CTS_STATUS_COUNT], size_t total,
                                      bool canonical, bool complete, char *reason,
                                      size_t reasonlen)
{
    const char *why = !canonical ? "the suite set is not the canonical one of this aclcts"
                    : !complete ? "not every case of the suite set has exactly one result"
                    : total == 0 ? "no case ran"
                    : "";
    for (int s = 0; s < CTS_STATUS_COUNT && !*why; s++)
        if (counts[s] && cts_status_fails((cts_status)s))
            why = "cases FAIL, CRASH, TIMEOUT, ERROR or RESOURCE_ERROR";
    if (reason) snprintf(reason, reasonlen, "%s", why);
    return *why ? "NOT CONFORMANT" : "CONFORMANT";
}

static json_t *counts_json(const cts_manifest *m)
{
    json_t *c = json_object();
    for (int s = 0; s < CTS_STATUS_COUNT; s++)
        json_object_set_new(c, cts_status_name((cts_status)s),
                            json_integer((json_int_t)m->counts[s]));
    json_object_set_new(c, "total", json_integer((json_int_t)m->total));
    return c;
}

int cts_manifest_write(FILE *f, const cts_manifest *m)
{
    json_t *shards = json_array(), *files = json_array(), *waivers = json_array();
    for (size_t i = 0; i < m->nshards; i++)
        json_array_append_new(shards, cts_provenance_to_json(&m->shards[i]));
    for (size_t i = 0; i < m->nwaivers; i++)
        json_array_append_new(waivers, waiver_json(&m->waivers[i]));
    for (size_t i = 0; i < m->nfiles; i++) {
        const cts_manifest_file *e = &m->files[i];
        json_array_append_new(files, json_pack("{s:s, s:s, s:s, s:s}", "role", e->role, "path",
                                               e->path, "source", e->source, "sha256",
                                               e->sha256));
    }
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:b}, s:b, s:s, s:s, s:o, s:o, "
        "s:{s:s, s:s, s:s, s:s}, s:o, s:o}",
        "format", CTS_MANIFEST_FORMAT, "aclcts_version", m->version, "aclcts_commit", m->commit,
        "product", m->product, "contract", m->contract, "backend", m->backend, "seed", m->seed,
        "suite_set", "digest", m->suite_set, "canonical_digest", m->canonical_set, "canonical",
        m->canonical, "complete", m->complete, "verdict", m->verdict, "verdict_reason",
        m->verdict_reason, "counts", counts_json(m), "waivers", waivers, "packaging", "host",
        m->host, "start", m->start, "end", m->end, "command", m->command, "shards", shards,
        "files", files);
    if (!o) abort();
    int rc = cts_json_dump_file(o, f);
    json_decref(o);
    return rc;
}

/* ---- reading ---- */

typedef struct {
    const char *key;
    size_t off, size;
} str_key;

#define K(k, mem) {k, offsetof(cts_manifest, mem), sizeof(((cts_manifest *)0)->mem)}
static const str_key top_strings[] = {
    K("aclcts_version", version), K("aclcts_commit", commit), K("product", product),
    K("contract", contract), K("backend", backend), K("seed", seed), K("verdict", verdict),
    K("verdict_reason", verdict_reason)};
static const str_key packaging_strings[] = {K("host", host), K("start", start), K("end", end),
                                            K("command", command)};
#undef K

static int read_strings(const json_t *o, const char *where, const str_key *k, size_t n,
                        cts_manifest *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++)
        if (cts_json_str(o, where, k[i].key, (char *)m + k[i].off, k[i].size, err, errlen))
            return -1;
    return 0;
}

static int read_counts(const json_t *c, cts_manifest *m, char *err, size_t errlen)
{
    const char *keys[CTS_STATUS_COUNT + 2];
    for (int s = 0; s < CTS_STATUS_COUNT; s++) keys[s] = cts_status_name((cts_status)s);
    keys[CTS_STATUS_COUNT] = "total";
    keys[CTS_STATUS_COUNT + 1] = NULL;
    if (!json_is_object(c) || cts_json_only_keys(c, "counts: ", keys, err, errlen)) {
        if (!json_is_object(c)) snprintf(err, errlen, "\"counts\": not an object");
        return -1;
    }
    for (int s = 0; s <= CTS_STATUS_COUNT; s++) {
        long long v = 0;
        /* UNDEFINED came later: a package made before it has none */
        if (s == CTS_UNDEFINED && !json_object_get(c, keys[s])) {
            m->counts[s] = 0;
            continue;
        }
        if (cts_json_count(c, "counts: ", keys[s], &v, err, errlen)) return -1;
        if (s < CTS_STATUS_COUNT) m->counts[s] = (size_t)v;
        else m->total = (size_t)v;
    }
    return 0;
}

static int read_suite_set(const json_t *o, cts_manifest *m, char *err, size_t errlen)
{
    static const char *const keys[] = {"digest", "canonical_digest", "canonical", NULL};
    if (!json_is_object(o)) return snprintf(err, errlen, "\"suite_set\": not an object"), -1;
    return cts_json_only_keys(o, "suite_set: ", keys, err, errlen) ||
                   cts_json_str(o, "suite_set: ", "digest", m->suite_set, sizeof m->suite_set,
                                err, errlen) ||
                   cts_json_str(o, "suite_set: ", "canonical_digest", m->canonical_set,
                                sizeof m->canonical_set, err, errlen) ||
                   cts_json_bool(o, "suite_set: ", "canonical", &m->canonical, err, errlen)
               ? -1 : 0;
}

static int read_list(const json_t *o, const char *key, char *err, size_t errlen)
{
    if (json_is_array(json_object_get(o, key))) return 0;
    snprintf(err, errlen, "\"%s\": not a list", key);
    return -1;
}

/* An optional string key: absent leaves out empty. */
static int optional_str(const json_t *o, const char *key, char *out, size_t n, char *err,
                        size_t errlen)
{
    if (!json_object_get(o, key)) return 0;
    return cts_json_str(o, "waivers: ", key, out, n, err, errlen);
}

static int read_waivers(const json_t *a, cts_manifest *m, char *err, size_t errlen)
{
    static const char *const keys[] = {"case",  "reason",   "expired", "waiver_reason",
                                       "tracking", "owner", "expires", NULL};
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *w = json_array_get(a, i);
        cts_manifest_waiver x = {0};
        if (!json_is_object(w) || cts_json_only_keys(w, "waivers: ", keys, err, errlen) ||
            cts_json_str(w, "waivers: ", "case", x.case_id, sizeof x.case_id, err, errlen) ||
            cts_json_str(w, "waivers: ", "reason", x.reason, sizeof x.reason, err, errlen) ||
            optional_str(w, "waiver_reason", x.waiver_reason, sizeof x.waiver_reason, err,
                         errlen) ||
            optional_str(w, "tracking", x.tracking, sizeof x.tracking, err, errlen) ||
            optional_str(w, "owner", x.owner, sizeof x.owner, err, errlen) ||
            optional_str(w, "expires", x.expires, sizeof x.expires, err, errlen)) {
            if (!json_is_object(w)) snprintf(err, errlen, "\"waivers\": not an object");
            return -1;
        }
        const json_t *e = json_object_get(w, "expired");
        if (e && !json_is_boolean(e)) {
            snprintf(err, errlen, "waivers: \"expired\": not true or false");
            return -1;
        }
        x.expired = json_is_true(e);
        cts_manifest_add_waiver_of(m, &x);
    }
    return 0;
}

static int read_files(const json_t *a, cts_manifest *m, char *err, size_t errlen)
{
    static const char *const keys[] = {"role", "path", "source", "sha256", NULL};
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *e = json_array_get(a, i);
        cts_manifest_file x;
        const char *w = "files: ";
        if (!json_is_object(e) || cts_json_only_keys(e, w, keys, err, errlen) ||
            cts_json_str(e, w, "role", x.role, sizeof x.role, err, errlen) ||
            cts_json_str(e, w, "path", x.path, sizeof x.path, err, errlen) ||
            cts_json_str(e, w, "source", x.source, sizeof x.source, err, errlen) ||
            cts_json_str(e, w, "sha256", x.sha256, sizeof x.sha256, err, errlen)) {
            if (!json_is_object(e)) snprintf(err, errlen, "\"files\": not an object");
            return -1;
        }
        cts_manifest_add_file(m, x.role, x.path, x.source, x.sha256);
    }
    return 0;
}

static int read_shards(const json_t *a, cts_manifest *m, char *err, size_t errlen)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        cts_provenance p;
        if (cts_provenance_from_json(json_array_get(a, i), &p, err, errlen)) return -1;
        cts_manifest_add_shard(m, &p);
    }
    return 0;
}

static int read_object(const json_t *o, cts_manifest *m, char *err, size_t errlen)
{
    static const char *const keys[] = {"format", "aclcts_version", "aclcts_commit", "product",
                                       "contract", "backend", "seed", "suite_set", "complete",
                                       "verdict", "verdict_reason", "counts", "waivers",
                                       "packaging", "shards", "files", NULL};
    static const char *const pkeys[] = {"host", "start", "end", "command", NULL};
    char format[64];
    if (!json_is_object(o)) return snprintf(err, errlen, "not a JSON object"), -1;
    if (cts_json_str(o, "", "format", format, sizeof format, err, errlen)) return -1;
    if (strcmp(format, CTS_MANIFEST_FORMAT) != 0)
        return snprintf(err, errlen, "\"format\": %s, expected %s", format, CTS_MANIFEST_FORMAT),
               -1;
    const json_t *pk = json_object_get(o, "packaging");
    if (cts_json_only_keys(o, "", keys, err, errlen) ||
        read_strings(o, "", top_strings, sizeof top_strings / sizeof *top_strings, m, err,
                     errlen) ||
        cts_json_bool(o, "", "complete", &m->complete, err, errlen) ||
        read_suite_set(json_object_get(o, "suite_set"), m, err, errlen) ||
        read_counts(json_object_get(o, "counts"), m, err, errlen) ||
        read_list(o, "waivers", err, errlen) || read_list(o, "shards", err, errlen) ||
        read_list(o, "files", err, errlen))
        return -1;
    if (!json_is_object(pk)) return snprintf(err, errlen, "\"packaging\": not an object"), -1;
    if (cts_json_only_keys(pk, "packaging: ", pkeys, err, errlen) ||
        read_strings(pk, "packaging: ", packaging_strings,
                     sizeof packaging_strings / sizeof *packaging_strings, m, err, errlen))
        return -1;
    return read_waivers(json_object_get(o, "waivers"), m, err, errlen) ||
                   read_shards(json_object_get(o, "shards"), m, err, errlen) ||
                   read_files(json_object_get(o, "files"), m, err, errlen)
               ? -1 : 0;
}

int cts_manifest_read(const char *path, cts_manifest *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    json_t *o = cts_json_load_file(path, err, errlen);
    if (!o) return -1;
    int rc = read_object(o, m, err, errlen);
    json_decref(o);
    return rc;
}

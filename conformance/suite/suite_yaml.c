/* Event-stream reader of suite files (see suite_yaml.h). Anchors and aliases are refused: a
 * suite shares values through `defaults:` and `matrix:`, which keep every error pointing at the
 * one place a value is written. */
#include "suite_yaml.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static void *xcalloc(size_t n, size_t s)
{
    void *p = calloc(n ? n : 1, s);
    if (!p)
        abort();
    return p;
}

static cts_ynode *node_new(cts_yn_kind k, yaml_mark_t m)
{
    cts_ynode *n = xcalloc(1, sizeof *n);
    n->kind = k;
    n->line = (int)m.line + 1;
    n->col = (int)m.column + 1;
    return n;
}

static void node_push(cts_ynode *parent, cts_ynode *child, size_t *cap)
{
    if (parent->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        cts_ynode **it = realloc(parent->items, *cap * sizeof *it);
        if (!it)
            abort();
        parent->items = it;
    }
    parent->items[parent->n++] = child;
}

void cts_yaml_free(cts_ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        cts_yaml_free(n->items[i]);
    free(n->items);
    free(n->text);
    free(n);
}

typedef struct {
    yaml_parser_t p;
    const char *file;
    cts_diag *d;
    bool failed;
} reader;

static bool next(reader *r, yaml_event_t *e)
{
    if (yaml_parser_parse(&r->p, e))
        return true;
    const char *what = r->p.problem ? r->p.problem : "malformed YAML";
    if (r->p.context)
        cts_diag_error(r->d, r->file, (int)r->p.problem_mark.line + 1,
                       (int)r->p.problem_mark.column + 1, "yaml", "%s %s", r->p.context, what);
    else
        cts_diag_error(r->d, r->file, (int)r->p.problem_mark.line + 1,
                       (int)r->p.problem_mark.column + 1, "yaml", "%s", what);
    r->failed = true;
    return false;
}

#define CORE_TAG "tag:yaml.org,2002:"

/* The explicit tag of a node: true when it is one the suite format understands for that kind
 * (scalars: !!str, !, !!int, !!float, !!bool, !!null; lists !!seq; maps !!map), else an error. */
static bool read_tag(reader *r, const yaml_event_t *e, const unsigned char *tag, cts_ynode *n)
{
    static const struct {
        const char *name;
        cts_yn_kind kind;
        cts_yn_tag tag;
    } known[] = {{CORE_TAG "str", CTS_YN_SCALAR, CTS_YT_STR},
                 {"!", CTS_YN_SCALAR, CTS_YT_STR},
                 {CORE_TAG "int", CTS_YN_SCALAR, CTS_YT_INT},
                 {CORE_TAG "float", CTS_YN_SCALAR, CTS_YT_FLOAT},
                 {CORE_TAG "bool", CTS_YN_SCALAR, CTS_YT_BOOL},
                 {CORE_TAG "null", CTS_YN_SCALAR, CTS_YT_NULL},
                 {CORE_TAG "seq", CTS_YN_SEQ, CTS_YT_NONE},
                 {CORE_TAG "map", CTS_YN_MAP, CTS_YT_NONE}};
    if (!tag)
        return true;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp((const char *)tag, known[i].name) && known[i].kind == n->kind) {
            n->tag = known[i].tag;
            return true;
        }
    const char *t = (const char *)tag;
    bool core = !strncmp(t, CORE_TAG, strlen(CORE_TAG));
    cts_diag_error(r->d, r->file, (int)e->start_mark.line + 1, (int)e->start_mark.column + 1,
                   "yaml", "tag '%s%s' is not supported on %s (scalars: !!str, !!int, !!float, "
                   "!!bool, !!null; lists: !!seq; maps: !!map)",
                   core ? "!!" : "", core ? t + strlen(CORE_TAG) : t, cts_yaml_kind_name(n));
    r->failed = true;
    return false;
}

/* A string holding a control character (NUL, which C would cut it at, a newline, an escape
 * sequence...) would reach case ids, file names and terminal lines: refused where it is written.
 * Tab is allowed. True when the scalar is clean. */
static bool scalar_printable(reader *r, const yaml_event_t *e, const char *field)
{
    const unsigned char *s = e->data.scalar.value;
    for (size_t i = 0; i < e->data.scalar.length; i++) {
        if ((s[i] >= 0x20 && s[i] != 0x7f) || s[i] == '\t')
            continue;
        cts_diag_error(r->d, r->file, (int)e->start_mark.line + 1,
                       (int)e->start_mark.column + 1, field,
                       "the string holds control character 0x%02x at byte %zu of %zu; strings "
                       "are printable text on one line", s[i], i + 1, e->data.scalar.length);
        r->failed = true;
        return false;
    }
    return true;
}

/* Reads the node whose first event is e (already consumed), at nesting depth `depth` (the
 * document's root is 1), the value of `field` (its key, for errors). The recursion is bounded by
 * CTS_YAML_MAX_DEPTH, never by the input. NULL on error. */
static cts_ynode *read_node(reader *r, yaml_event_t *e, int depth, const char *field)
{
    if (depth > CTS_YAML_MAX_DEPTH && (e->type == YAML_SEQUENCE_START_EVENT ||
                                       e->type == YAML_MAPPING_START_EVENT)) {
        cts_diag_error(r->d, r->file, (int)e->start_mark.line + 1,
                       (int)e->start_mark.column + 1, "yaml",
                       "nested deeper than %d levels (a suite needs a handful)",
                       CTS_YAML_MAX_DEPTH);
        r->failed = true;
        return NULL;
    }
    switch (e->type) {
    case YAML_SCALAR_EVENT: {
        if (!scalar_printable(r, e, field))
            return NULL;
        cts_ynode *n = node_new(CTS_YN_SCALAR, e->start_mark);
        n->text = strndup((const char *)e->data.scalar.value, e->data.scalar.length);
        if (!n->text)
            abort();
        if (!read_tag(r, e, e->data.scalar.tag, n)) {
            cts_yaml_free(n);
            return NULL;
        }
        n->plain = n->tag == CTS_YT_NONE ? e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
                                         : n->tag != CTS_YT_STR;
        return n;
    }
    case YAML_ALIAS_EVENT:
        cts_diag_error(r->d, r->file, (int)e->start_mark.line + 1,
                       (int)e->start_mark.column + 1, "yaml",
                       "aliases are not supported (use defaults: or matrix:)");
        r->failed = true;
        return NULL;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool map = e->type == YAML_MAPPING_START_EVENT;
        cts_ynode *n = node_new(map ? CTS_YN_MAP : CTS_YN_SEQ, e->start_mark);
        if (!read_tag(r, e, map ? e->data.mapping_start.tag : e->data.sequence_start.tag, n)) {
            cts_yaml_free(n);
            return NULL;
        }
        size_t cap = 0;
        for (;;) {
            yaml_event_t c;
            if (!next(r, &c)) {
                cts_yaml_free(n);
                return NULL;
            }
            if (c.type == YAML_SEQUENCE_END_EVENT || c.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&c);
                return n;
            }
            const char *child_field = !map ? field : n->n % 2 == 0 ? "key"
                                                   : n->items[n->n - 1]->text;
            cts_ynode *child = read_node(r, &c, depth + 1, child_field ? child_field : field);
            yaml_event_delete(&c);
            if (!child) {
                cts_yaml_free(n);
                return NULL;
            }
            if (map && n->n % 2 == 0) {
                if (child->kind != CTS_YN_SCALAR) {
                    cts_diag_error(r->d, r->file, child->line, child->col, "yaml",
                                   "mapping keys must be plain scalars");
                    r->failed = true;
                } else if (cts_yaml_get(n, child->text)) {
                    cts_diag_error(r->d, r->file, child->line, child->col, child->text,
                                   "duplicate key (first at line %d)",
                                   cts_yaml_get(n, child->text)->line);
                    r->failed = true;
                }
            }
            node_push(n, child, &cap);
        }
    }
    default:
        return NULL;
    }
}

/* A document that is only a stray `---` (an empty plain scalar): nothing to load. */
static bool empty_document(const cts_ynode *n)
{
    return n->kind == CTS_YN_SCALAR && n->plain && !n->text[0];
}

cts_ynode *cts_yaml_load(const char *file, cts_diag *d)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        cts_diag_error(d, file, 1, 1, "file", "cannot open: %s", strerror(errno));
        return NULL;
    }
    reader r = {.file = file, .d = d};
    yaml_parser_initialize(&r.p);
    yaml_parser_set_input_file(&r.p, f);
    yaml_mark_t start = {0};
    cts_ynode *docs = node_new(CTS_YN_SEQ, start);
    size_t cap = 0;
    yaml_event_t e;
    while (!r.failed && next(&r, &e)) {
        yaml_event_type_t t = e.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT ||
            t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT) {
            cts_ynode *root = read_node(&r, &e, 1, "yaml");
            if (root && empty_document(root))
                cts_yaml_free(root);
            else if (root)
                node_push(docs, root, &cap);
        }
        yaml_event_delete(&e);
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&r.p);
    fclose(f);
    if (r.failed) {
        cts_yaml_free(docs);
        return NULL;
    }
    if (docs->n == 0) {
        cts_diag_error(d, file, 1, 1, "suite", "empty file");
        cts_yaml_free(docs);
        return NULL;
    }
    return docs;
}

const cts_ynode *cts_yaml_get(const cts_ynode *map, const char *key)
{
    if (!map || map->kind != CTS_YN_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (map->items[i]->text && strcmp(map->items[i]->text, key) == 0) /* NULL: not a scalar */
            return map->items[i + 1];
    return NULL;
}

bool cts_yaml_is_null(const cts_ynode *n)
{
    if (!n || n->kind != CTS_YN_SCALAR || !n->plain)
        return false;
    if (n->tag != CTS_YT_NONE)
        return n->tag == CTS_YT_NULL;
    return !strcmp(n->text, "null") || !strcmp(n->text, "~") || !strcmp(n->text, "Null") ||
           !strcmp(n->text, "NULL") || n->text[0] == 0;
}

bool cts_yaml_equal(const cts_ynode *a, const cts_ynode *b)
{
    if (a->kind != b->kind || a->n != b->n)
        return false;
    if (a->kind == CTS_YN_SCALAR)
        return strcmp(a->text, b->text) == 0;
    for (size_t i = 0; i < a->n; i++)
        if (!cts_yaml_equal(a->items[i], b->items[i]))
            return false;
    return true;
}

const char *cts_yaml_kind_name(const cts_ynode *n)
{
    return n->kind == CTS_YN_SCALAR ? "a scalar" : n->kind == CTS_YN_SEQ ? "a list" : "a map";
}

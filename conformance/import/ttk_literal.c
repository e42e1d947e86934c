/* The cells of the vendor's TTK case files hold Python literals (tuples, lists, dicts,
 * strings, numbers, True/False/None): a small parser of exactly that grammar. */
#include "ttk.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static void skip(const char **p)
{
    while (isspace((unsigned char)**p)) (*p)++;
}

static ttk_val *node(ttk_kind k)
{
    ttk_val *v = calloc(1, sizeof *v);
    if (!v) abort();
    v->kind = k;
    return v;
}

static void push(ttk_val *list, ttk_val *item)
{
    list->items = realloc(list->items, (list->n + 1) * sizeof *list->items);
    if (!list->items) abort();
    list->items[list->n++] = item;
}

static ttk_val *parse(const char **p, int depth);

/* [a, b], (a, b) or {k: v, ...}: items in order (a dict: key, value, key, value ...). */
static ttk_val *parse_seq(const char **p, char close, ttk_kind kind, int depth)
{
    ttk_val *v = node(kind);
    (*p)++;
    for (skip(p); **p != close;) {
        ttk_val *item = parse(p, depth + 1);
        if (!item) goto bad;
        push(v, item);
        skip(p);
        if (kind == TTK_DICT) {
            if (**p != ':') goto bad; /* not past the text's end on a truncated dict */
            (*p)++;
            if (!(item = parse(p, depth + 1))) goto bad;
            push(v, item);
            skip(p);
        }
        if (**p == ',') (*p)++;
        else if (**p != close) goto bad;
        skip(p);
    }
    (*p)++;
    return v;
bad:
    ttk_free(v);
    return NULL;
}

static ttk_val *parse_str(const char **p)
{
    char q = *(*p)++;
    const char *end = strchr(*p, q);
    if (!end) return NULL;
    ttk_val *v = node(TTK_STR);
    v->str = strndup(*p, (size_t)(end - *p));
    if (!v->str) abort();
    *p = end + 1;
    return v;
}

static ttk_val *parse(const char **p, int depth)
{
    skip(p);
    if (depth > 16) return NULL;
    if (**p == '(') return parse_seq(p, ')', TTK_LIST, depth);
    if (**p == '[') return parse_seq(p, ']', TTK_LIST, depth);
    if (**p == '{') return parse_seq(p, '}', TTK_DICT, depth);
    if (**p == '\'' || **p == '"') return parse_str(p);
    static const struct { const char *w; ttk_kind k; double x; } words[] = {
        {"True", TTK_BOOL, 1}, {"False", TTK_BOOL, 0}, {"None", TTK_NONE, 0}};
    for (size_t i = 0; i < 3; i++)
        if (!strncmp(*p, words[i].w, strlen(words[i].w))) {
            *p += strlen(words[i].w);
            ttk_val *v = node(words[i].k);
            v->num = words[i].x;
            return v;
        }
    char *end;
    double x = strtod(*p, &end);
    if (end == *p) return NULL;
    *p = end;
    ttk_val *v = node(TTK_NUM);
    v->num = x;
    return v;
}

ttk_val *ttk_parse(const char *text)
{
    const char *p = text;
    ttk_val *v = parse(&p, 0);
    if (!v) return NULL;
    skip(&p);
    if (*p) {
        ttk_free(v);
        v = NULL;
    }
    return v;
}

void ttk_free(ttk_val *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) ttk_free(v->items[i]);
    free(v->items);
    free(v->str);
    free(v);
}

const ttk_val *ttk_get(const ttk_val *dict, const char *key)
{
    for (size_t i = 0; dict && dict->kind == TTK_DICT && i + 1 < dict->n; i += 2)
        if (dict->items[i]->kind == TTK_STR && !strcmp(dict->items[i]->str, key))
            return dict->items[i + 1];
    return NULL;
}

/* One CSV record (RFC 4180: commas, double quotes doubled inside quoted fields, records end
 * at an unquoted newline) from *p into fields; -1 at the end of the text. */
int ttk_csv_record(const char **p, char ***fields, size_t *n)
{
    *fields = NULL;
    *n = 0;
    if (!**p) return -1;
    for (;;) {
        char *f = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&f, &len);
        if (!m) abort();
        bool quoted = **p == '"';
        if (quoted) (*p)++;
        while (**p) {
            if (quoted && **p == '"' && (*p)[1] == '"') { fputc('"', m); *p += 2; continue; }
            if (quoted && **p == '"') { quoted = false; (*p)++; continue; }
            if (!quoted && (**p == ',' || **p == '\n' || **p == '\r')) break;
            fputc(*(*p)++, m);
        }
        fclose(m);
        *fields = realloc(*fields, (*n + 1) * sizeof **fields);
        if (!*fields) abort();
        (*fields)[(*n)++] = f;
        if (**p != ',') break;
        (*p)++;
    }
    if (**p == '\r') (*p)++;
    if (**p == '\n') (*p)++;
    return 0;
}

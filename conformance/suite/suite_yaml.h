/* A suite file as a small tree built from libyaml's event stream (yaml_parser_parse), every node
 * keeping the 1-based line and column of its start mark so later errors can point at it. */
#ifndef ACLCTS_CONFORMANCE_SUITE_YAML_H_
#define ACLCTS_CONFORMANCE_SUITE_YAML_H_

#include <stdbool.h>
#include <stddef.h>

#include "suite_diag.h"

/* Deepest nesting of lists and maps a suite file may have (a suite uses about 6). */
#define CTS_YAML_MAX_DEPTH 64

typedef enum { CTS_YN_SCALAR, CTS_YN_SEQ, CTS_YN_MAP } cts_yn_kind;

/* A scalar's explicit YAML core tag. Any other tag is refused when the file is read, so no tag
 * is silently ignored; `!` (the non-specific tag) reads as !!str. */
typedef enum {
    CTS_YT_NONE, /* untagged: resolved by style (quoted = string) and text */
    CTS_YT_STR,  /* !!str: a string whatever it looks like */
    CTS_YT_INT,  /* !!int, !!float, !!bool, !!null: typed scalars, read as if unquoted */
    CTS_YT_FLOAT,
    CTS_YT_BOOL,
    CTS_YT_NULL
} cts_yn_tag;

typedef struct cts_ynode {
    cts_yn_kind kind;
    int line, col;              /* 1-based start mark */
    char *text;                 /* scalar value */
    bool plain;                 /* unquoted, untagged or with a typed core tag: may be a
                                   number, bool or null; quoted or !!str: a string */
    cts_yn_tag tag;             /* scalar's explicit core tag */
    struct cts_ynode **items;   /* SEQ: values; MAP: key, value, key, value ... */
    size_t n;                   /* number of items (MAP: 2 x entries) */
} cts_ynode;

/* Parses a file: a SEQ node whose items are its documents (`---` separates suites in one
 * file; empty documents, such as a trailing `---`, are skipped). On a YAML syntax error, a
 * duplicate key, an alias or nesting deeper than CTS_YAML_MAX_DEPTH, reports to d and returns
 * NULL. A file without documents gives NULL with an error too. */
cts_ynode *cts_yaml_load(const char *file, cts_diag *d);
void cts_yaml_free(cts_ynode *n);

/* Map lookup by key text; NULL when absent (or n is not a map). */
const cts_ynode *cts_yaml_get(const cts_ynode *map, const char *key);
/* Plain null: `null`, `~` or empty, or anything tagged !!null. */
bool cts_yaml_is_null(const cts_ynode *n);
/* Structural equality (scalars by text). */
bool cts_yaml_equal(const cts_ynode *a, const cts_ynode *b);
const char *cts_yaml_kind_name(const cts_ynode *n);

#endif

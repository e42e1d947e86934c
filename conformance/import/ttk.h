/* Private to import/: the cells of a TTK case file (CSV of Python literals). */
#ifndef ACLCTS_CONFORMANCE_IMPORT_TTK_H_
#define ACLCTS_CONFORMANCE_IMPORT_TTK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { TTK_NUM, TTK_STR, TTK_BOOL, TTK_NONE, TTK_LIST, TTK_DICT } ttk_kind;

typedef struct ttk_val {
    ttk_kind kind;
    double num;                 /* NUM; BOOL 0/1 */
    char *str;                  /* STR */
    struct ttk_val **items;     /* LIST (tuples too); DICT: key, value, key, value ... */
    size_t n;
} ttk_val;

/* A whole cell as one Python literal; NULL when it is not one. */
ttk_val *ttk_parse(const char *text);
void ttk_free(ttk_val *v);
/* A dict's value for a string key, or NULL. */
const ttk_val *ttk_get(const ttk_val *dict, const char *key);
/* The next CSV record of the text at *p: 0 with its fields (malloc'd, free each and the
 * array), -1 at the end. */
int ttk_csv_record(const char **p, char ***fields, size_t *n);

#endif

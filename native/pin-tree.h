#ifndef FORAGE_PIN_TREE_H
#define FORAGE_PIN_TREE_H
/* forage-mounts pin ROOT {ro PATH "" | rw PATH "" | link PATH "" | from PATH SOURCE}...: see pin-tree.c. */
int pin_tree(const char *root, int count, char **triples);
#endif

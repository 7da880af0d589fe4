/* relative_link.h - the path from one output file to another, for the
 * link a Markdown report makes to its chart (compare, merge). */
#ifndef KB_RELATIVE_LINK_H
#define KB_RELATIVE_LINK_H

#include <stddef.h>

/* The path of target relative to the folder of from, into buf: both
 * folders must exist (the files need not).  Can't fail: when a folder
 * cannot be resolved, target as given. */
void kb_relative_link(const char *from, const char *target, char *buf, size_t len);

#endif

/* junit.h - `kbench check`'s verdicts as JUnit XML, the format ReFrame's
 * --report-junit writes and CI servers (Jenkins, GitLab) read. */
#ifndef KB_JUNIT_H
#define KB_JUNIT_H

#include "drivers/acceptance/verdict.h"

#include <stdio.h>

/* s XML-escaped onto out, fit for text and attribute values: & < > " '
 * as entities, tab and newlines as character references (attribute
 * normalisation would turn them into spaces), other control characters
 * and invalid UTF-8, which XML 1.0 cannot hold, as '?'.  Can't fail.
 * (Stricter than the SVG writer's kb_xml_escape: the strings here come
 * from input files, not from kbench.) */
void kb_junit_escape(FILE *out, const char *s);

/* The JUnit XML of nodes[n] (judged against bands_path) at path, written
 * atomically (acceptance.h): <testsuites>, one <testsuite> per node, one
 * <testcase> per item (results/SCHEMA.md, "check's JUnit XML").  Returns
 * 0, or -1 with err naming the file and the reason. */
int kb_junit_write(const kb_check_node *nodes, size_t n,
                   const char *bands_path, const char *path, char *err,
                   size_t len);

#endif

/* junit.h - `kbench check`'s verdicts as JUnit XML, the format ReFrame's
 * --report-junit writes and CI servers (Jenkins, GitLab) read. */
#ifndef KB_JUNIT_H
#define KB_JUNIT_H

#include "drivers/acceptance/verdict.h"

#include <stdio.h>

/* The JUnit XML of nodes[n] (judged against bands_path) at path, written
 * atomically (drivers/common/atomic_file.h): <testsuites>, one <testsuite> per node, one
 * <testcase> per item (results/SCHEMA.md, "check's JUnit XML").  Returns
 * 0, or -1 with err naming the file and the reason. */
int kb_junit_write(const kb_check_node *nodes, size_t n,
                   const char *bands_path, const char *path, char *err,
                   size_t len);

#endif

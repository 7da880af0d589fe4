/* report.h - `kbench report`: result files (JSON Lines) placed on the
 * machine's roofline, written as roofline.svg, report.md and a
 * self-contained report.html. */
#ifndef KB_REPORT_H
#define KB_REPORT_H

/* The verb (report_cmd.c):
 *   kbench report RESULTS... [--peaks FILE]... [--level L] --out DIR
 * One or two result files (two are overlaid); --peaks once for all, or
 * once per result file.  argv[0] is "report"; returns an exit code of
 * drivers/commands.h: 0 written, 2 bad option or unreadable/invalid
 * results or ceilings file, 3 the outputs could not be written. */
int kb_cmd_report(int argc, char **argv);

#endif

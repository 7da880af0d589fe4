/* io.h - the `kbench io` verb: synthetic training datasets, the input
 * pipeline that reads them (gen, run, verify, checkpoint). */
#ifndef KB_IO_H
#define KB_IO_H

/* The verb and its sub-verbs, declared as data (drivers/common/options.h).
 * Its exit codes: 0 ok, 1 a verification failed (corrupt data, a sample
 * delivered twice or never), 2 usage or input error, 3 runtime error
 * (I/O, a missing library), 128+N interrupted by signal N. */
struct kb_verb;
extern const struct kb_verb kb_verb_io;

#endif

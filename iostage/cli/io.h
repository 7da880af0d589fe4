/* io.h - the `kbench io` verb: synthetic training datasets, the input
 * pipeline that reads them (gen, run, verify, checkpoint). */
#ifndef KB_IO_H
#define KB_IO_H

/* argv[0] == "io", argv[1] the sub-verb.  Returns the exit codes of
 * drivers/commands.h: 0 ok, 1 a verification failed (corrupt data, a
 * sample delivered twice or never), 2 usage or input error, 3 runtime
 * error (I/O, a missing library), 130/143 interrupted. */
int kb_cmd_io(int argc, char **argv);

#endif

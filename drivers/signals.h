/* signals.h - SIGINT/SIGTERM turn into a flag the run loop polls.
 *
 * The handler only records the signal, so the run can finish writing the
 * case it is on, write the summary, close its files and exit 128+signo.
 * A second signal gets the default action, so a stuck run still dies. */
#ifndef KB_SIGNALS_H
#define KB_SIGNALS_H

#include <stdbool.h>

/* Install the handlers, clearing any earlier caught signal.  Returns 0,
 * or -1 (errno set by sigaction) when they cannot be installed. */
int kb_signals_install(void);

/* Put back the actions that were there before kb_signals_install. */
void kb_signals_restore(void);

/* The signal caught since install, or 0. */
int kb_signal_caught(void);

/* kb_signal_caught() != 0, in the shape kb_rep_opts.stop wants. */
bool kb_signal_stop(void);

#endif

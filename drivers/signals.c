/* signals.c - SIGINT/SIGTERM handling for `kbench run` (see signals.h). */
#include "drivers/signals.h"

#include <signal.h>
#include <stddef.h>

static volatile sig_atomic_t caught;
static struct sigaction old_int, old_term;

/* Async-signal-safe: stores the number and resets both signals to their
 * default action (sigaction is on POSIX's safe list), so the next one
 * terminates the process even if the run loop never looks again. */
static void on_signal(int signo)
{
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
    caught = signo;
}

int kb_signals_install(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: a result write interrupted by the signal must complete,
     * not fail with EINTR and leave a torn record. */
    sa.sa_flags = SA_RESTART;
    caught = 0;
    if (sigaction(SIGINT, &sa, &old_int) != 0)
        return -1;
    if (sigaction(SIGTERM, &sa, &old_term) != 0) {
        sigaction(SIGINT, &old_int, NULL);
        return -1;
    }
    return 0;
}

void kb_signals_restore(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}

int kb_signal_caught(void)
{
    return caught;
}

bool kb_signal_stop(void)
{
    return caught != 0;
}

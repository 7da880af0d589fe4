#!/usr/bin/env python3
"""throttle.py - run a command with its CPU cut to a fraction, to inject a slow node.

    throttle.py FRACTION COMMAND [ARG...]

The command runs FRACTION (0 < FRACTION < 1) of every 0.5 ms period and is
stopped (SIGSTOP) for the rest, as cpulimit does but with a period short
enough that every timed repetition of half a millisecond or more spans
whole periods: each is slowed by about 1 / FRACTION, not only the unlucky ones
(a scheduler-based slowdown, a competing busy loop or `nice`, hands out
whole time slices, which leaves the median repetition at full speed).
The throttle itself runs SCHED_FIFO where it may (root), so that a busy
machine cannot delay its stops and its sleeps are not rounded up by timer
slack; elsewhere the slowdown is smaller.
Exits with the command's status; TERM or INT is passed on to it.
"""
import os
import signal
import subprocess
import sys
import time

PERIOD_S = 0.0005


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: throttle.py FRACTION COMMAND [ARG...]")
    try:
        fraction = float(sys.argv[1])
    except ValueError:
        sys.exit(f"throttle.py: FRACTION {sys.argv[1]!r} is not a number")
    if not 0 < fraction < 1:
        sys.exit(f"throttle.py: FRACTION {fraction} is not in (0, 1)")
    try:
        child = subprocess.Popen(sys.argv[2:])
    except OSError as e:
        sys.exit(f"throttle.py: cannot run {sys.argv[2]}: {e}")

    def forward(signum, _frame):
        # A stopped child would not act on the signal until continued.
        child.send_signal(signal.SIGCONT)
        child.send_signal(signum)

    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except PermissionError:
        print("throttle.py: not allowed SCHED_FIFO: the slowdown may be less than 1/FRACTION",
              file=sys.stderr)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    on_s, off_s = fraction * PERIOD_S, (1 - fraction) * PERIOD_S
    try:
        while child.poll() is None:
            time.sleep(on_s)
            os.kill(child.pid, signal.SIGSTOP)
            time.sleep(off_s)
            os.kill(child.pid, signal.SIGCONT)
    except ProcessLookupError:
        pass  # it exited between poll() and kill()
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGCONT)
    status = child.wait()
    sys.exit(128 - status if status < 0 else status)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""throttle.py - run a command with its CPU cut to a fraction, to inject a slow node.

    throttle.py FRACTION COMMAND [ARG...]

The command runs FRACTION (0 < FRACTION < 1) of every 0.5 ms period and is
stopped (SIGSTOP) for the rest, as cpulimit does but with a period short
enough that every timed repetition of half a millisecond or more spans
whole periods: each is slowed by about 1 / FRACTION, not only the unlucky ones
(a scheduler-based slowdown, a competing busy loop or `nice`, hands out
whole time slices, which leaves the median repetition at full speed).
The share is held by feedback, not by the sleeps alone: after each stop
the command's CPU time so far (/proc/PID/task/*/schedstat, in ns) sets
how long it stays stopped, so a late wake-up of the throttle on a busy
machine lengthens the next stop instead of handing the command a run
at full speed (a CI run on a loaded machine once got 1.4x for 10x).
The throttle itself runs SCHED_FIFO where it may (root), with 1 ns timer
slack, so that its stops come on time; at exit it prints the share the
command had.  Exits with the command's status; TERM or INT is passed on
to it.
"""
import ctypes
import glob
import os
import signal
import subprocess
import sys
import time

PERIOD_S = 0.0005
PR_SET_TIMERSLACK = 29


def cpu_ns(pid):
    """CPU time of all pid's threads so far, or None where schedstat is missing."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended between glob and open
    return total if total or os.path.exists(f"/proc/{pid}/schedstat") else None


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
    ctypes.CDLL(None).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    on_s, off_s = fraction * PERIOD_S, (1 - fraction) * PERIOD_S
    start, used = time.monotonic(), 0
    try:
        while child.poll() is None:
            time.sleep(on_s)
            os.kill(child.pid, signal.SIGSTOP)
            ns = cpu_ns(child.pid)
            if ns is None:
                time.sleep(off_s)
            else:
                # stopped until its CPU time is `fraction` of the time since start
                used = ns * 1e-9
                time.sleep(max(used / fraction - (time.monotonic() - start), off_s / 4))
            os.kill(child.pid, signal.SIGCONT)
    except ProcessLookupError:
        pass  # it exited between poll() and kill()
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGCONT)
    status = child.wait()
    wall = time.monotonic() - start
    if used and wall > 0:
        print(f"throttle.py: the command had {100 * used / wall:.1f} % of a CPU "
              f"(target {100 * fraction:g} %)", file=sys.stderr)
    sys.exit(128 - status if status < 0 else status)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fma_kernels_code.py LIBRARY - the object code of the x86 FMA kernels
(machine/fma_kernels_x86.c, in LIBRARY, libkb_machine.a): the hot
loop of every assembly kernel (asm_*_xN) is exactly N FMA (or vdpbf16ps)
instructions on registers, a decrement and the branch back, with no
memory operand: the ceiling cannot depend on register allocation.  The
compiler-generated kernels (cc_*_xN) must keep all N chains (a multiple
of N FMAs in the loop, or of N adds where the ISA has no FMA: a compiler
that can prove chains equal keeps one);
a memory operand in their loop is only reported: that is what the
assembly variants exist to beat.  Exits 0, or 1
naming each kernel that breaks it; 2 when LIBRARY has no such kernel."""
import re
import subprocess
import sys

FMA = re.compile(r"^(vfmadd\d+p[sdh]|vdpbf16ps)\b")
# a compiled 128-bit loop built without FMA (-march=x86-64) multiplies
# and adds: one add per chain
ADD = re.compile(r"^v?addp[sdh]\b")
BRANCH = re.compile(r"^j(ne|nz)\s+([0-9a-f]+)\b")


def functions(lib):
    """{name: [(address, instruction text)]} of the kernels' functions."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <((?:asm|cc)_\w+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        if not line.strip():
            cur = None
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
        if cur is not None and m:
            cur.append((int(m.group(1), 16), m.group(2).split("#")[0].strip()))
    return funcs


def loops(insns):
    """The bodies (instruction texts) of the backward branches' loops."""
    for addr, text in insns:
        m = BRANCH.match(text)
        if m and int(m.group(2), 16) < addr:
            yield [t for a, t in insns if int(m.group(2), 16) <= a <= addr]


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    funcs = functions(sys.argv[1])
    bad = 0
    if not any(n.startswith("asm_") for n in funcs):
        print("no asm_* FMA kernel in %s" % sys.argv[1], file=sys.stderr)
        return 2
    for name, insns in sorted(funcs.items()):
        hot = [body for body in loops(insns) if any(FMA.match(t) for t in body)]
        fmas = [t for body in hot for t in body if FMA.match(t)]
        from_memory = [t for t in fmas if "(" in t]
        chains = int(re.search(r"_x(\d+)$", name).group(1))
        if name.startswith("cc_"):
            steps = len(fmas) or sum(1 for body in loops(insns) for t in body if ADD.match(t))
            ok = steps > 0 and steps % chains == 0
            print("%s: %s (%d FMA in its loop, %d with a memory operand%s)" % (
                name, "ok" if ok else "WRONG: chains dropped", len(fmas), len(from_memory),
                ": " + from_memory[0] if from_memory else ""))
            bad += not ok
            continue
        body = hot[0] if len(hot) == 1 else []
        others = [t for t in body if not FMA.match(t)]
        ok = (len(hot) == 1 and len(fmas) == chains and not from_memory and
              len(others) == 2 and others[0].startswith("dec") and BRANCH.match(others[1]))
        print("%s: %s (%d FMA, %d from memory, other: %s)" % (
            name, "ok" if ok else "WRONG", len(fmas), len(from_memory), others))
        bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""build_flags_test.py - the run record's build_flags are the C flags the
compiler really got (cmake/BuildInfo.cmake): no generator expression left
in them, the native-ISA flag there exactly when the build gave one
(cmake/KbArch.cmake: none when KB_NATIVE is off or in a cross build), the build
type's and OpenMP's flags there, and, where the build wrote
compile_commands.json, equal to the flags of kb_backends' compile of
backends/registry.c.

  build_flags_test.py KBENCH BUILD_DIR "NATIVE_FLAG" "BUILD_TYPE_FLAGS" "OPENMP_FLAGS"
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

kbench, build_dir, native_flag, type_flags, openmp_flags = sys.argv[1:6]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def recorded_flags():
    """build_flags of the run record of a one-case run."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        subprocess.run([kbench, "run", "--desc", "m8n8k8", "--reps", "1",
                        "--min-time", "0", "--quiet", "--json", out],
                       check=True)
        with open(out) as f:
            run = json.loads(f.readline())
    check(run.get("type") == "run", "the first record is not the run record")
    return run.get("build_flags", "")


def compiled_flags():
    """The flags of registry.c's compile command (after the defines and
    include folders, before -o), or None without compile_commands.json."""
    path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        entries = [e for e in json.load(f)
                   if e["file"].endswith(os.path.join("backends", "registry.c"))]
    check(len(entries) == 1, "compile_commands.json: not one registry.c entry")
    if not entries:
        return None
    args = entries[0].get("arguments") or shlex.split(entries[0]["command"])
    end = args.index("-o")
    start = 1
    for i, a in enumerate(args[:end]):
        if a in ("-isystem", "-I"):
            start = i + 2
        elif a.startswith("-I"):
            start = i + 1
    return args[start:end]


flags = recorded_flags()
print("recorded build_flags:", flags)
tokens = flags.split()
check(tokens, "build_flags is empty")
check("$<" not in flags, "build_flags holds a generator expression")
native = [t for t in tokens if t.startswith(("-march=", "-mcpu="))]
check(native == ([native_flag] if native_flag else []),
      f"native-ISA flags {native or 'none'}, expected {native_flag or 'none'}")
for f in type_flags.split() + openmp_flags.split():
    check(f in tokens, f"{f} (build type or OpenMP) missing")
compiled = compiled_flags()
if compiled is None:
    print("no compile_commands.json: compared with CMake's variables only")
else:
    print("registry.c was compiled with:", " ".join(compiled))
    check(tokens == compiled, "build_flags differ from registry.c's compile")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""backend_names_test.py SRC - no backend name spelled outside backends/.

The names are those of SRC/backends/backends.txt (the backends any build
can have; backends_table checks it against the registry).  Scanned: every
file under tests/, integrations/ and drivers/.  A hit is a name in quotes
("omp", 'omp') in any file, or, outside comments, a name as a word of its
own in a CMake, shell, Python or YAML file (`--backend omp`, `omp,openblas`;
not omp.h, omp_get_max_threads, KB_WITH_OPENBLAS).  Names that are also a
device name (cuda, hip: the runtimes, a concept of their own that the
registry's `device` field and the ceilings use) are left out: they cannot
be told from the device here.  Files named in tests/backends/backend_names_allow.txt
name a backend on purpose, and are skipped.  Exit 0 when nothing is found,
1 naming each FILE:LINE.
"""
import fnmatch
import os
import re
import sys

src = sys.argv[1]
names, devices = [], set()
for line in open(os.path.join(src, "backends", "backends.txt")):
    f = line.split("#")[0].split()
    if f:
        names.append(f[0])
        devices.add(f[2])
names = [n for n in names if n not in devices]
alt = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
quoted = re.compile(rf"""(["'])({alt})\1""")
word = re.compile(rf"(?<![\w.$/@+-])({alt})(?![\w./@-])")
script = re.compile(r"(\.cmake|CMakeLists\.txt|\.sh|\.bash|\.py|\.ya?ml|\.sbatch)$")

allow = []
for line in open(os.path.join(src, "tests", "backends", "backend_names_allow.txt")):
    f = line.split("#")[0].split()
    if f:
        allow.append(f[0])

hits = 0
for top in ("tests", "integrations", "drivers"):
    for dirpath, dirs, files in os.walk(os.path.join(src, top)):
        dirs[:] = [d for d in dirs if d not in ("__pycache__",)]
        for fn in sorted(files):
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, src)
            if any(fnmatch.fnmatch(rel, a) for a in allow):
                continue
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            is_script = bool(script.search(fn))
            for no, line in enumerate(text.splitlines(), 1):
                m = quoted.search(line)
                if not m and is_script:
                    code = re.sub(r"(^|\s)#.*", "", line)
                    m = word.search(code)
                if m:
                    print(f"{rel}:{no}: backend name {m.group(0)!r}: "
                          f"{line.strip()[:100]}")
                    hits += 1
if hits:
    print(f"FAIL {hits} backend name(s) spelled outside backends/: read the "
          "list from `kbench list backends --json`, backends/backends.txt or "
          "KB_BACKEND_NAMES, or, for a test input that names one on purpose, "
          "add the file to tests/backends/backend_names_allow.txt, saying why")
    sys.exit(1)
print("backend names: none spelled outside backends/")

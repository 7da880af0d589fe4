#!/usr/bin/env python3
"""iostage_layering_test.py SRC - the I/O stage's modules (a .c and its .h
are one module) include one another without a circle: if module A
includes B's header, nothing B includes, directly or not, includes A's.
Exit 0, or 1 naming each circle."""
import os
import re
import sys

src = sys.argv[1]
root = os.path.join(src, "iostage")
include = re.compile(r'^#include "(iostage/[^"]+)\.h"', re.M)
edges = {}
for folder, _, files in os.walk(root):
    for name in files:
        if not name.endswith((".c", ".h")):
            continue
        path = os.path.join(folder, name)
        module = os.path.relpath(path, src)[:-2]
        with open(path, encoding="utf-8") as f:
            deps = set(include.findall(f.read())) - {module}
        edges.setdefault(module, set()).update(deps)

# Tarjan's strongly connected components: a component of more than one
# module is a circle.
index, low, stack, on, circles = {}, {}, [], set(), []


def visit(m):
    index[m] = low[m] = len(index)
    stack.append(m)
    on.add(m)
    for d in sorted(edges.get(m, ())):
        if d not in index:
            visit(d)
            low[m] = min(low[m], low[d])
        elif d in on:
            low[m] = min(low[m], index[d])
    if low[m] == index[m]:
        comp = []
        while True:
            d = stack.pop()
            on.discard(d)
            comp.append(d)
            if d == m:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))


sys.setrecursionlimit(10000)
for m in sorted(edges):
    if m not in index:
        visit(m)
for c in circles:
    print("FAIL: these modules of iostage/ include one another in a circle:",
          ", ".join(c))
print(f"{len(edges)} modules of iostage/, {len(circles)} circle(s)")
sys.exit(1 if circles else 0)

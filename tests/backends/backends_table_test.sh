#!/usr/bin/env bash
# backends_table_test.sh KBENCH TABLE - every backend `kbench list backends
# --json` lists (registry.c) has a line in TABLE (backends/backends.txt)
# with the same device.  Exit 0 when they agree, 1 naming each that does
# not.
set -uo pipefail
"$1" list backends --json | python3 -c '
import json, sys
table = {}
for line in open(sys.argv[1]):
    f = line.split("#")[0].split()
    if f:
        table[f[0]] = f[2]
bad = 0
for b in json.load(sys.stdin):
    name, device = b["name"], b["device"]
    want = table.get(name, "no line")
    print(name, device, "table:", want)
    if want != device:
        print("FAIL backend", name, "has device", device, "but", sys.argv[1],
              "says", want)
        bad = 1
sys.exit(bad)' "$2"

#!/usr/bin/env bash
# coverage_conditions_test.sh KBENCH TEST_BACKEND GEMM_INPUT - a coverage
# line's `if KEY=GLOB` conditions (tests/backends/test_backend.c) on the
# first CPU backend `kbench list backends --json` lists, against its own
# describe() facts: a line whose facts match counts, one that does not
# match (or names a fact it lacks) does not, and a malformed condition is
# refused with exit 2.  Exit 0 when every case holds, 1 naming each that
# does not.
set -uo pipefail
kbench=$1 test_backend=$2 input=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

read -r name library_word < <("$kbench" list backends --json | python3 -c '
import json, sys
b = next(b for b in json.load(sys.stdin) if b["device"] == "cpu")
print(b["name"], b["facts"]["library"].split()[0])')
echo "backend $name, library fact starting \"$library_word\""

bad=0
# expect CONDITION EXIT TEXT: a coverage of `NAME gemm + CONDITION` makes
# test_backend exit with EXIT and print TEXT
expect() {
    printf '%s gemm + %s\n' "$name" "$1" > "$tmp/coverage.txt"
    OMP_NUM_THREADS=1 "$test_backend" "$name" "$tmp/coverage.txt" "$input" \
        > "$tmp/out" 2>&1
    local rc=$?
    if [[ $rc -ne $2 ]] || ! grep -qF -- "$3" "$tmp/out"; then
        echo "FAIL \"$1\": exit $rc, wanted $2 with \"$3\":"
        sed 's/^/  /' "$tmp/out" | head -5
        bad=1
    else
        echo "ok   \"$1\": exit $rc, \"$3\""
    fi
}
expect "if library=${library_word}*"       0 "applies: library is"
expect "if library=nomatch,${library_word}" 2 "does not apply: library is"
expect "if nosuchfact=*"                   2 "nosuchfact is not described"
expect "if library=${library_word}* nosuchfact=*" 2 "does not apply"
expect "if"                                2 "then optionally if KEY=GLOB"
expect "if library"                        2 "expected KEY=GLOB[,GLOB...] after if"
expect "if =x"                             2 "expected KEY=GLOB[,GLOB...] after if"
exit $bad

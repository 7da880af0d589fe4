#!/usr/bin/env bash
# flag_sweep_test.sh - scripts/flag-sweep.sh --dry-run: the config is read
# as data and turned into exactly the cmake, kbench and compare commands
# promised, and a bad config is refused naming its file and line.  Builds,
# runs and installs nothing.
# usage: flag_sweep_test.sh SOURCE_DIR
set -u
src=$1
sweep=$src/scripts/flag-sweep.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect_line() {   # expect_line OUTPUT LINE: LINE is one whole line of OUTPUT
    grep -qxF -- "$2" <<<"$1" || fail "no line: $2"
}

cat >"$tmp/good.conf" <<'EOF'
# comment line
base   gcc   -O2            # trailing comment
fast   clang -O3 -march=native
bare   gcc
EOF
out=$(bash "$sweep" "$tmp/good.conf" --dry-run --out "$tmp/o" --rounds 2 -- --desc m8n8k8 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "dry run exited $rc: $out"
expect_line "$out" 'cmake -S . -B build/flags-base -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS= -DCMAKE_C_FLAGS_RELEASE=-O2 -DKB_NATIVE=OFF -DBUILD_TESTING=OFF'
expect_line "$out" 'cmake -S . -B build/flags-fast -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS= -DCMAKE_C_FLAGS_RELEASE=-O3\ -march=native -DKB_NATIVE=OFF -DBUILD_TESTING=OFF'
expect_line "$out" "cmake -S . -B build/flags-bare -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS= -DCMAKE_C_FLAGS_RELEASE= -DKB_NATIVE=OFF -DBUILD_TESTING=OFF"
# round 1 in config order, round 2 reversed
runs=$(grep -o 'build/flags-[a-z]*/kbench run .*json [^ ]*' <<<"$out" | sed 's/.*--json //' | tr '\n' ' ')
[ "$runs" = "$tmp/o/runs/base.r1.jsonl $tmp/o/runs/fast.r1.jsonl $tmp/o/runs/bare.r1.jsonl $tmp/o/runs/bare.r2.jsonl $tmp/o/runs/fast.r2.jsonl $tmp/o/runs/base.r2.jsonl " ] ||
    fail "run order: $runs"
expect_line "$out" "build/flags-base/kbench run --desc m8n8k8 --quiet --json $tmp/o/runs/base.r1.jsonl"
expect_line "$out" "build/flags-base/kbench compare $tmp/o/runs/base.r2.jsonl $tmp/o/runs/fast.r2.jsonl --md $tmp/o/fast-vs-base.r2.md --svg $tmp/o/fast-vs-base.r2.svg --json $tmp/o/fast-vs-base.r2.json"
[ "$(grep -c ' compare ' <<<"$out")" -eq 4 ] || fail "expected 4 compares (2 builds x 2 rounds)"
[ ! -e "$tmp/o" ] || fail "dry run wrote $tmp/o"

# bad configs: exit 2, FILE:LINE and what is wrong
bad() {   # bad CONFIG-TEXT EXPECTED-MESSAGE
    printf '%s\n' "$1" >"$tmp/bad.conf"
    local msg
    msg=$(bash "$sweep" "$tmp/bad.conf" --dry-run 2>&1 >/dev/null)
    local rc=$?
    [ "$rc" -eq 2 ] || fail "'$1' exited $rc, expected 2"
    grep -qF -- "$2" <<<"$msg" || fail "'$1' said '$msg', expected '$2'"
}
bad $'a gcc -O2\nb' "bad.conf:2: build 'b' names no compiler"
bad $'a gcc -O2\na clang -O3' "bad.conf:2: build name 'a' given twice"
bad $'a/b gcc -O2\nc gcc' "bad.conf:1: build name 'a/b' may hold only"
bad 'a gcc -O2' "needs at least two builds"
msg=$(bash "$sweep" "$tmp/good.conf" --dry-run --rounds 0 2>&1)
[ $? -eq 2 ] && grep -qF -- "--rounds wants a positive integer" <<<"$msg" || fail "--rounds 0: $msg"

[ "$fails" -eq 0 ] && echo "flag_sweep_test: all passed"
exit $((fails > 0))

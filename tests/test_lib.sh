# test_lib.sh - what the end-to-end test scripts share (cli_test.sh,
# compare_test.sh, acceptance_test.sh): a scratch folder removed on exit,
# failure counting, kbench runs with their exit code checked, regex
# expectations on files, edits of JSON Lines records, and running the one
# case ctest named.  Source it; it reads $kbench.

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kb_${KB_TEST_PREFIX:-test}.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run_kb EXPECTED_RC ARGS...: kbench with stdout in $tmp/out, stderr in
# $tmp/err, checking the exit code.
run_kb() {
    local want=$1; shift
    "$kbench" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "kbench $* exited $rc, expected $want"
        sed 's/^/  stdout: /' "$tmp/out" | head -8 >&2
        sed 's/^/  stderr: /' "$tmp/err" | head -5 >&2
    fi
}

# expect FILE REGEX [what]: FILE must match the extended regex.
expect() {
    grep -Eq -- "$2" "$1" || fail "${3:-$1} does not match /$2/: $(head -c 600 "$1")"
}

# edit IN OUT CODE: copy a results file, running CODE (Python, on each
# record as the dict r; r.clear() drops it) on every record.
edit() {
    python3 - "$1" "$2" "$3" <<'PY' || fail "edit $1 -> $2 failed"
import json, sys
src, dst, code = sys.argv[1:]
with open(src) as f, open(dst, "w") as out:
    for line in f:
        r = json.loads(line)
        exec(code)
        if r:
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
PY
}

# run_case NAME: the test function test_NAME, then the verdict (exit 1
# on any failure).
run_case() {
    declare -F "test_$1" >/dev/null || { echo "no test case '$1'" >&2; exit 2; }
    "test_$1"
    if [ "$failures" -ne 0 ]; then
        echo "$1: $failures failure(s)" >&2
        exit 1
    fi
    echo "$1: ok"
}

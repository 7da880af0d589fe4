#!/usr/bin/env bash
# omp_vs_vendor_test.sh - scripts/omp-vs-vendor.sh and its table builder
# without measuring anything: the conf is read as data (a bad line is
# refused naming FILE:LINE), --dry-run prints the kbench runs with the
# backends reversed every other round, and omp_vs_vendor_table.py turns
# fixed records into the promised ratios (vendor_time / omp_time per
# round, min / median / max), geomean, count below 0.5 and goal verdict.
# usage: omp_vs_vendor_test.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() {   # has OUTPUT TEXT: TEXT occurs in OUTPUT
    grep -qF -- "$2" <<<"$1" || fail "missing: $2"
}

cat >"$tmp/good.conf" <<'CONF'
# comment
tiny  quick  omp,onednn  -  onednn=0.75/0.5  --desc mb1ic4ih8oc4oh8kh3ph1_nt1 --dir FWD_D
big   full   omp,openblas  -  openblas=0.9   --desc m8n8k8_nsq8
CONF
out=$(bash "$src/scripts/omp-vs-vendor.sh" --conf "$tmp/good.conf" --dry-run \
      --rounds 2 --peaks "$tmp/good.conf" --kbench KB 2>&1)
rc=$?
[ "$rc" -eq 0 ] || fail "dry run exited $rc: $out"
has "$out" "KB run --desc mb1ic4ih8oc4oh8kh3ph1_nt1 --dir FWD_D --backend omp,onednn --peaks $tmp/good.conf --reps 3 --min-time 0 --quiet --json"
has "$out" "KB run --desc mb1ic4ih8oc4oh8kh3ph1_nt1 --dir FWD_D --backend onednn,omp --peaks"
grep -q 'sq8' <<<"$out" && fail "quick mode ran the full-only set 'big'"
[ "$(grep -c ' run ' <<<"$out")" -eq 2 ] || fail "expected 2 runs (1 set x 2 rounds): $out"

bad() {   # bad CONF-LINE EXPECTED-MESSAGE
    printf '%s\n' "$1" >"$tmp/bad.conf"
    local o
    o=$(bash "$src/scripts/omp-vs-vendor.sh" --conf "$tmp/bad.conf" --dry-run --kbench KB --peaks "$tmp/bad.conf" 2>&1)
    [ $? -eq 2 ] || fail "bad conf '$1' did not exit 2"
    has "$o" "$2"
}
bad 'x quick onednn,omp - - --mb 1' "bad.conf:1: backends 'onednn,omp': omp first"
bad 'x sometimes omp,onednn - - --mb 1' "bad.conf:1: modes 'sometimes'"
bad 'x quick omp,onednn nosuch - --mb 1' "bad.conf:1: base 'nosuch': not a set above"
bad 'x quick omp,onednn - onednn=fast --mb 1' "bad.conf:1: goals 'onednn=fast'"

# The table from fixed records: layer a's onednn/omp is 0.45, 0.40, 0.90
# over three rounds (median 0.45, below 0.5), layer b's 1.0 each round.
mkdir -p "$tmp/runs"
case_rec() {   # case_rec LAYER BACKEND MEDIAN_S
    printf '{"type":"case","model":"m","layer":"%s","kernel":"conv2d","mb":1,"dir":"FWD_D","dtype":"f32","backend":"%s","status":"PASSED","count":1,"stats":{"median":%s},"gflops":%s,"roofline":{"peak_gflops":200}}\n' \
        "$1" "$2" "$3" "$(python3 -c "print(100/$3)")"
}
r=1
for t in "2.0 0.9" "2.0 0.8" "1.0 0.9"; do
    read -r h v <<<"$t"
    {
        echo '{"type":"run","git_commit":"abc","cpu_id":{"vendor":"AuthenticAMD","family":25,"model":17,"stepping":1,"microcode":"0x1","microarch":"zen4"}}'
        case_rec a omp "$h"; case_rec a onednn "$v"
        case_rec b omp 1.0; case_rec b onednn 1.0
    } >"$tmp/runs/tiny.r$r.jsonl"
    r=$((r + 1))
done
table=$(python3 "$src/scripts/omp_vs_vendor_table.py" --conf "$tmp/good.conf" \
        --sets tiny --rounds 3 --csv "$tmp/t.csv" "$tmp/runs" 2>&1)
[ $? -eq 0 ] || fail "table builder failed: $table"
has "$table" 'AuthenticAMD family 0x19 model 0x11 stepping 1, microcode 0x1, microarchitecture zen4'
has "$table" '| m | a | conv2d | 1 | FWD_D | 50.0 | 25 % | **0.40 / 0.45 / 0.90** |'
has "$table" '| m | b | conv2d | 1 | FWD_D | 100.0 | 50 % | 1.00 / 1.00 / 1.00 |'
has "$table" '| tiny | m | a | 67 % | 25 % |'   # the costliest layer: 2+2+1 of 7.5 s
has "$table" '| tiny | onednn | all | 2 | 0.67 | 0.45 (a) | 1 | ≥ 0.75, none < 0.5: missed: geomean 0.67 < 0.75 (by 0.08); worst 0.45 < 0.5 |'
[ "$(wc -l <"$tmp/t.csv")" -eq 13 ] || fail "csv: expected a header and 12 rows (2 layers x 2 backends x 3 rounds)"
[ "$(python3 "$src/scripts/omp_vs_vendor_table.py" --cpu-tag "$tmp/runs/tiny.r1.jsonl")" = zen4 ] || fail "cpu tag"

[ "$fails" -eq 0 ] && echo "omp_vs_vendor_test: all passed"
exit $((fails > 0))

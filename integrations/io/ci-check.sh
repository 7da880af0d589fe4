#!/usr/bin/env bash
# ci-check.sh - `kbench io run` sharded by rank on a real local Slurm of 2 nodes (srun, and mpirun in a job), and `kbench io merge` proving exactly-once delivery.
#
#   integrations/io/ci-check.sh [KBENCH]    # default build/default/kbench; builds nothing
#
# Starts integrations/slurm/local-cluster.sh in a temporary directory
# (stopped by PID on any exit), generates a tiny dataset (bert of
# tests/inputs/io_profiles_test.conf: 3 files of 50 samples), then
#   1. `srun -N2 -n2 --ntasks-per-node=1 kbench io run ... --epochs 2`, each
#      task writing out.<SLURM_PROCID>.jsonl: rank and size from Slurm's
#      variables, the last partial batch of each 75-sample shard dropped;
#   2. `kbench io merge out.0.jsonl out.1.jsonl --json merge.jsonl` must
#      exit 0: every epoch 2 ranks, exactly once, the ranks' records from
#      rank_source "slurm";
#   3. broken merges must exit 1 naming the fault: rank 0's file given twice;
#      rank 1's record edited to deliver a sample of rank 0's shard too; rank
#      1's file left out;
#   4. `mpirun -n 4 --map-by node` in an `sbatch -N2` job: ranks 0..3 of 4
#      from Open MPI's variables (not the Slurm ones its ranks inherit from
#      mpirun's daemons), merged exactly once. Installs openmpi-bin if
#      mpirun is missing (root).
# Any deviation exits 1 (2 for a usage or setup error). KB_CI_KEEP=DIR
# copies the outputs there.
set -euo pipefail

die() { echo "io ci-check: $*" >&2; exit 2; }
fail() { echo "io ci-check: FAIL: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kb=${1:-$root/build/default/kbench}
[ -x "$kb" ] || die "no kbench binary at $kb (build it first, or pass its path)"
kb=$(cd "$(dirname "$kb")" && pwd)/$(basename "$kb")
command -v python3 >/dev/null || die "python3 is needed (the record checks)"
if ! command -v mpirun >/dev/null; then
    [ "$(id -u)" = 0 ] || die "mpirun (Debian's openmpi-bin) is missing and we are not root to apt-get it"
    echo "io ci-check: installing openmpi-bin"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openmpi-bin >/dev/null \
        || die "apt-get install openmpi-bin failed"
fi
profiles=$root/tests/inputs/io_profiles_test.conf

tmp=$(mktemp -d /tmp/kbench-io-ci.XXXXXX)
cleanup() {
    local rc=$?
    "$root/integrations/slurm/local-cluster.sh" stop "$tmp/cluster" || rc=1
    if [ -n "${KB_CI_KEEP:-}" ]; then
        mkdir -p "$KB_CI_KEEP" || rc=1
        cp "$tmp"/*.jsonl "$tmp"/*.txt "$KB_CI_KEEP"/ 2>/dev/null || true
    fi
    rm -rf "$tmp"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=$SECONDS
KB_SLURM_NODES=2 "$root/integrations/slurm/local-cluster.sh" start "$tmp/cluster"
export SLURM_CONF=$tmp/cluster/slurm.conf OMP_NUM_THREADS=1

"$kb" io gen --profiles "$profiles" --profile bert --dir "$tmp/ds" --threads 1 \
    || fail "kbench io gen failed"

echo "io ci-check: 1. two ranks under srun"
# srun does not expand %t in a program's arguments: each task names its
# file from SLURM_PROCID, the variable kbench reads its rank from.
srun -N2 -n2 --ntasks-per-node=1 -o "$tmp/srun.%t.txt" \
    bash -c 'exec "$1" io run --profiles "$2" --profile bert --dir "$3" \
        --epochs 2 --batch 16 --drop-last yes --compute sleep:0 --quiet \
        --json "$4/out.$SLURM_PROCID.jsonl"' run "$kb" "$profiles" "$tmp/ds" "$tmp" \
    || { cat "$tmp"/srun.*.txt >&2; fail "srun kbench io run failed"; }

echo "io ci-check: 2. the merge"
rc=0
"$kb" io merge --json "$tmp/merge.jsonl" "$tmp/out.0.jsonl" "$tmp/out.1.jsonl" \
    >"$tmp/merge.txt" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$tmp/merge.txt" >&2; fail "kbench io merge exited $rc, expected 0"; }
cat "$tmp/merge.txt"
python3 - "$tmp" <<'EOF' || fail "the records do not show exactly-once delivery over 2 Slurm ranks"
import json
import os
import sys

d = sys.argv[1]
bad = []
for rank in (0, 1):
    recs = [json.loads(l) for l in open(os.path.join(d, f"out.{rank}.jsonl"))]
    epochs = [r for r in recs if r.get("type") == "io_epoch"]
    if len(epochs) != 2:
        bad.append(f"out.{rank}.jsonl: {len(epochs)} io_epoch records, expected 2")
    for r in epochs:
        # every io record: its schema and the run's provenance (SCHEMA.md)
        if r.get("schema") != "kbench.io/1" or not r.get("host") or not r.get("git_commit"):
            bad.append(f"out.{rank}.jsonl epoch {r['epoch']}: schema {r.get('schema')!r}, "
                       f"host {r.get('host')!r}, git_commit {r.get('git_commit')!r}, "
                       f"expected kbench.io/1 with provenance")
        if (r["rank"], r["ranks"], r["rank_source"]) != (rank, 2, "slurm"):
            bad.append(f"out.{rank}.jsonl epoch {r['epoch']}: rank {r['rank']} of {r['ranks']} "
                       f"from {r['rank_source']!r}, expected {rank} of 2 from 'slurm'")
merged = [json.loads(l) for l in open(os.path.join(d, "merge.jsonl"))]
if [m["epoch"] for m in merged] != [0, 1]:
    bad.append(f"merge.jsonl: epochs {[m['epoch'] for m in merged]}, expected [0, 1]")
for m in merged:
    if m.get("type") != "io_merge" or m.get("schema") != "kbench.io/1":
        bad.append(f"merge.jsonl: type {m.get('type')!r} schema {m.get('schema')!r}, "
                   "expected io_merge kbench.io/1")
    if not (m["exactly_once"] and m["ranks"] == 2 and m["ranks_present"] == 2
            and m["samples_total"] == 150
            and m["samples_delivered"] + m["samples_accounted"] == 150
            and m["samples_delivered"] > 0):
        bad.append(f"merge.jsonl epoch {m['epoch']}: {m}")
for b in bad:
    print("io ci-check:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

echo "io ci-check: 3. broken merges exit 1"
# expect_fail NAME PATTERN FILE...: merge exits 1 and its stderr says PATTERN
expect_fail() {
    local name=$1 pattern=$2 rc=0
    shift 2
    "$kb" io merge "$@" >"$tmp/$name.txt" 2>&1 || rc=$?
    [ $rc = 1 ] || { cat "$tmp/$name.txt" >&2; fail "$name: merge exited $rc, expected 1"; }
    grep -q -- "$pattern" "$tmp/$name.txt" \
        || { cat "$tmp/$name.txt" >&2; fail "$name: no '$pattern' in the merge's message"; }
    echo "io ci-check:   $name: exit 1, '$pattern'"
}
expect_fail twice "rank 0 twice" "$tmp/out.0.jsonl" "$tmp/out.1.jsonl" "$tmp/out.0.jsonl"
expect_fail missing "no record of rank 1 of 2" "$tmp/out.0.jsonl"
# Rank 1's bitmap (hex of a zlib stream of bits, bit i = sample i) with
# sample 0, rank 0's first, set as well.
python3 - "$tmp/out.1.jsonl" "$tmp/dup.1.jsonl" <<'EOF' || die "could not edit the record"
import json
import sys
import zlib

with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        r = json.loads(line)
        if r.get("type") == "io_epoch":
            bits = bytearray(zlib.decompress(bytes.fromhex(r["delivered_bitmap"])))
            bits[0] |= 1
            r["delivered_bitmap"] = zlib.compress(bytes(bits), 9).hex()
        out.write(json.dumps(r) + "\n")
EOF
expect_fail duplicate "sample 0 delivered twice: by rank 0" "$tmp/out.0.jsonl" "$tmp/dup.1.jsonl"

echo "io ci-check: 4. mpirun inside the Slurm job: 4 ranks on 2 nodes"
# Its ranks inherit SLURM_PROCID and SLURM_NTASKS from the srun step of
# mpirun's daemons (one a node): only OMPI_COMM_WORLD_RANK is theirs.
cat >"$tmp/mpi.sh" <<JOB
#!/bin/bash
exec mpirun --allow-run-as-root --bind-to none -n 4 --map-by node bash -c 'exec "\$0" io run \
    --profiles "\$1" --profile bert --dir "\$2" --compute sleep:0 --quiet \
    --json "\$3/mpi.\$OMPI_COMM_WORLD_RANK.jsonl"' "$kb" "$profiles" "$tmp/ds" "$tmp"
JOB
rc=0
timeout 120 sbatch -N2 -n4 --wait -o "$tmp/mpi.txt" "$tmp/mpi.sh" >/dev/null || rc=$?
[ $rc = 0 ] || { cat "$tmp/mpi.txt" >&2; fail "the mpirun job exited $rc"; }
"$kb" io merge --json "$tmp/mpi-merge.jsonl" "$tmp"/mpi.?.jsonl >"$tmp/mpi-merge.txt" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$tmp/mpi-merge.txt" >&2; fail "kbench io merge of the mpirun ranks exited $rc"; }
python3 - "$tmp" <<'EOF' || fail "the mpirun ranks are not 0..3 of 4 from Open MPI, merged exactly once"
import json
import os
import sys

d = sys.argv[1]
seen = []
for rank in range(4):
    for line in open(os.path.join(d, f"mpi.{rank}.jsonl")):
        r = json.loads(line)
        if r.get("type") == "io_epoch":
            seen.append((r["rank"], r["ranks"], r["rank_source"]))
merged = [json.loads(l) for l in open(os.path.join(d, "mpi-merge.jsonl"))]
ok = (seen == [(k, 4, "openmpi") for k in range(4)] and len(merged) == 1
      and merged[0]["exactly_once"] and merged[0]["ranks_present"] == 4)
print(f"io ci-check:   ranks (rank, ranks, source) {seen}; merged exactly once: "
      f"{bool(merged and merged[0]['exactly_once'])}", file=sys.stdout if ok else sys.stderr)
sys.exit(0 if ok else 1)
EOF

echo "io ci-check: PASS in $((SECONDS - start)) s"

#!/usr/bin/env bash
# io-vs-dlio.sh - kbench io against the real DLIO 2.0.0 on the same files:
# for each workload (DLIO's own unet3d and bert configs, shrunk with Hydra
# overrides), DLIO writes a dataset and both tools read it, then kbench
# writes one and both read it; each read cold (evicted) and warm (after a
# discarded read), DLIO and kbench alternating over rounds.  The table,
# by scripts/io_vs_dlio_table.py, and every run's record go to --out.
#
# usage: scripts/io-vs-dlio.sh [--kbench PATH] [--data DIR] [--out DIR]
#            [--rounds N] [--size full|tiny] [--workloads unet3d,bert]
#            [--compute SECONDS] [--venv DIR] [--drop-caches] [--keep]
#            [--install-only]
#   --kbench PATH    default build/default/kbench
#   --data DIR       scratch on the filesystem under test (default
#                    /var/tmp/kbdlio); datasets there are reused while
#                    their sizes match, and deleted after a workload's
#                    last read unless --keep is given
#   --out DIR        default results/io: io-vs-dlio.md (the table) and
#                    io-vs-dlio.jsonl (one line per measured run, with the
#                    tool's own figures whole)
#   --rounds N       default 3: DLIO, kbench, DLIO, kbench, ...
#   --size full|tiny full (default): sizes for a 2-core, 24 GiB machine,
#                    about 15 minutes in all; tiny: a few small files, to
#                    prove the script (the figures mean nothing)
#   --compute S      train.computation_time for both tools (default 0.0001:
#                    I/O is what is measured, and bert's 48-sample steps
#                    are not held below 480,000 samples/s; 0 would make
#                    every AU 0, by DLIO's definition)
#   --venv DIR       DLIO's virtual environment (default build/dlio-venv),
#                    made when it cannot import DLIO, reused otherwise
#   --drop-caches    as root, also `echo 3 > /proc/sys/vm/drop_caches`
#                    before each cold read (else only the dataset's pages
#                    are evicted: sync, then POSIX_FADV_DONTNEED)
#   --keep           keep the datasets in --data
#   --install-only   make the virtual environment and stop
# Environment: TORCH_INDEX_URL, a pip index with CPU-only torch wheels
# (else PyPI's CUDA build, about 4 GiB more; nothing here uses a GPU).
# Exit status: 0, 2 usage, 3 an install, a run or the table failed.
# Run it on an otherwise idle machine: the figures are wall-clock rates.
set -euo pipefail
cd "$(dirname "$0")/.."

kbench=build/default/kbench data=/var/tmp/kbdlio out=results/io rounds=3
size=full workloads=unet3d,bert compute=0.0001 venv=build/dlio-venv
drop_caches=0 keep=0 install_only=0
# the header comment above, without its marks
help() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; }
usage() { help >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) help; exit 0 ;;
    --drop-caches) drop_caches=1; shift; continue ;;
    --keep) keep=1; shift; continue ;;
    --install-only) install_only=1; shift; continue ;;
    esac
    [ $# -ge 2 ] || usage
    case $1 in
    --kbench) kbench=$2 ;;
    --data) data=$2 ;;
    --out) out=$2 ;;
    --rounds) rounds=$2 ;;
    --size) size=$2 ;;
    --workloads) workloads=$2 ;;
    --compute) compute=$2 ;;
    --venv) venv=$2 ;;
    *) usage ;;
    esac
    shift 2
done
die() { echo "io-vs-dlio: $*" >&2; exit 3; }
bad() { echo "io-vs-dlio: $*" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || bad "--rounds '$rounds': expected a positive integer"
[[ $compute =~ ^[0-9]*\.?[0-9]+$ ]] || bad "--compute '$compute': expected seconds (a number >= 0)"
case $size in full | tiny) ;; *) bad "--size '$size': expected full or tiny" ;; esac
[ "$drop_caches" = 0 ] || [ "$(id -u)" = 0 ] || bad "--drop-caches needs root"
# absolute: the tools run in their own output folders
kbench=$(realpath -m "$kbench") data=$(realpath -m "$data") venv=$(realpath -m "$venv")
py=$venv/bin/python

# ---- DLIO 2.0.0 in a virtual environment ----
# Its PyPI metadata pins nothing usable, so it goes in without
# dependencies and they follow: numpy below 2 (DLIO 2.0.0 uses the 1.x
# API), mpi4py built against Debian's Open MPI, the frameworks its
# loaders import (torch for unet3d, tensorflow for bert), and pydftracer
# 1.0.2, the tracer it imports (disabled at run time: DFTRACER_ENABLE=0).
install_dlio() {
    if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
        [ "$(id -u)" = 0 ] || die "Open MPI is missing: apt-get install libopenmpi-dev openmpi-bin (as root)"
        echo "io-vs-dlio: apt-get install libopenmpi-dev openmpi-bin" >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
            libopenmpi-dev openmpi-bin >&2 || die "apt-get install libopenmpi-dev openmpi-bin failed"
    fi
    python3 -m venv "$venv" || die "cannot create $venv (python3 -m venv)"
    local pip=("$venv/bin/pip" install --quiet --timeout 300)
    "${pip[@]}" --no-deps dlio-benchmark==2.0.0 || die "pip install dlio-benchmark==2.0.0 failed"
    # torch: the CPU wheel from TORCH_INDEX_URL where a site has one; PyPI's
    # is the CUDA build, whose libraries torch links at import even on a
    # CPU (about 4 GiB more, a few minutes)
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
        "${pip[@]}" --index-url "$TORCH_INDEX_URL" torch || die "pip install torch from $TORCH_INDEX_URL failed"
    fi
    "${pip[@]}" 'numpy<2' pandas psutil PyYAML Pillow h5py hydra-core omegaconf \
        mpi4py torch tensorflow-cpu || die "pip install of DLIO's dependencies failed"
    DFTRACER_ENABLE=0 "${pip[@]}" pydftracer==1.0.2 || die "pip install pydftracer==1.0.2 failed"
}
# DLIO's TFRecord generator runs `tfrecord2idx` (a script of NVIDIA DALI,
# whose loader alone reads the index) after each file.  DALI is a CUDA
# package; this writes the same index: one "offset length" line a record.
tfrecord2idx() {
    cat >"$venv/bin/tfrecord2idx" <<PY
#!$venv/bin/python
"""tfrecord2idx TFRECORD INDEX: one 'offset length' line per record (written by io-vs-dlio.sh)"""
import struct, sys
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "w") as out:
    off = 0
    while True:
        head = f.read(12)
        if not head:
            break
        if len(head) < 12:
            sys.exit(f"tfrecord2idx: {sys.argv[1]}: offset {off}: truncated record header")
        n = struct.unpack("<Q", head[:8])[0] + 16
        f.seek(off + n)
        out.write(f"{off} {n}\\n")
        off += n
PY
    chmod +x "$venv/bin/tfrecord2idx"
}
dlio_ok() { [ -x "$py" ] && DFTRACER_ENABLE=0 "$py" -c 'import dlio_benchmark.main, torch, tensorflow, mpi4py' 2>/dev/null; }
if ! dlio_ok; then
    t0=$(date +%s)
    install_dlio
    dlio_ok || { DFTRACER_ENABLE=0 "$py" -c 'import dlio_benchmark.main, torch, tensorflow, mpi4py'; die "DLIO does not import in $venv"; }
    echo "io-vs-dlio: DLIO installed in $venv in $(($(date +%s) - t0)) s" >&2
fi
[ -x "$venv/bin/tfrecord2idx" ] || tfrecord2idx
[ "$install_only" = 0 ] || exit 0

# ---- the workloads: DLIO's config and the overrides that size it ----
# Sizes for a 2-core, 24 GiB machine: each dataset fits the page cache
# (the warm reads), one run of a tool (DLIO's start-up of 15-20 s
# included) stays under about 30 s.  unet3d keeps DLIO's record length
# (35 files of 140 MB +- 65 MB, 5.7 GB, one sample each, 5 steps of 7);
# bert its 2500-byte records and batch 48 in 4 files of 50,000 (500 MB,
# 4166 steps, DLIO's TensorFlow loader about 10 s of them), its step
# limit (train.total_training_steps, 1000) set to one epoch's steps, as
# DLIO refuses a limit beyond the data.
[ -x "$kbench" ] || bad "no kbench at $kbench (build it: cmake --workflow --preset default)"
declare -A config sizes
config[unet3d]=unet3d_h100 config[bert]=bert_v100
if [ "$size" = full ]; then
    sizes[unet3d]="++workload.dataset.num_files_train=35"
    sizes[bert]="++workload.dataset.num_files_train=4 ++workload.dataset.num_samples_per_file=50000 ++workload.train.total_training_steps=4166"
else
    sizes[unet3d]="++workload.dataset.num_files_train=4 ++workload.dataset.record_length=1048576 ++workload.dataset.record_length_stdev=262144 ++workload.reader.batch_size=2"
    sizes[bert]="++workload.dataset.num_files_train=2 ++workload.dataset.num_samples_per_file=2000 ++workload.train.total_training_steps=83"
fi
IFS=, read -r -a wl_list <<<"$workloads"
for w in "${wl_list[@]}"; do
    [ -n "${config[$w]:-}" ] || bad "--workloads: '$w': expected unet3d or bert"
done
# Both tools: one epoch, no checkpoint (the read is measured), the same
# compute; DLIO also: read, do not generate.
common="++workload.workflow.checkpoint=False ++workload.train.epochs=1 ++workload.train.computation_time=$compute"
# What each tool checks while it reads.  DLIO's files carry no sample
# ids or checksums of their own, so the containers' checksums are all
# there is, and both tools check them; neither can turn that off.
verification="both check the containers' checksums, nothing more: DLIO through TensorFlow's TFRecordDataset (each record's length and data CRC32C) and numpy's np.load of npz (zipfile's CRC-32 of the member read); kbench the same CRC32C and CRC-32 (its own datasets' sample checksums do not exist in DLIO's layout); both parse each TFRecord's tf.train.Example; kbench adds its exactly-once check of the (file, index) samples delivered, which touches no data"
cfgdir=$("$py" -c 'import dlio_benchmark, os; print(os.path.join(os.path.dirname(dlio_benchmark.__file__), "configs", "workload"))')
export DFTRACER_ENABLE=0 TF_CPP_MIN_LOG_LEVEL=2 PYTHONWARNINGS=ignore PATH=$venv/bin:$PATH
table_py=(python3 scripts/io_vs_dlio_table.py)
mpi=(mpirun --bind-to none -np 1)
[ "$(id -u)" != 0 ] || mpi+=(--allow-run-as-root)

mkdir -p "$data/runs" "$out"
raw=$out/io-vs-dlio.jsonl
: >"$raw.tmp"
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# run LOG CMD...: CMD with its output in LOG; stops the script showing
# the end of LOG when CMD fails
run() {
    local log=$1
    shift
    printf '%q ' "$@" >"$log"
    echo >>"$log"
    "$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "failed (log $log): $*"; }
}
# a value of a DLIO config after the overrides: cfgval WORKLOAD SECTION.KEY
cfgval() {
    local key=$2 v
    for o in ${sizes[$1]} $common; do
        [ "${o%%=*}" = "++workload.$key" ] && v=${o#*=}
    done
    [ -n "${v:-}" ] || v=$("$py" -c 'import sys, yaml; c = yaml.safe_load(open(sys.argv[1]))
s, k = sys.argv[2].split(".")
print(c[s][k])' "$cfgdir/${config[$1]}.yaml" "$key")
    echo "$v"
}

# gen WORKLOAD WRITER DIR: the dataset, unless DIR has it at these sizes
gen() {
    local w=$1 who=$2 d=$3 stamp="$3.stamp" want="${config[$1]} ${sizes[$1]}"
    [ -d "$d" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return
    rm -rf "$d" "$stamp"
    mkdir -p "$d"
    echo "io-vs-dlio: $w: $who writes $d" >&2
    local o=$data/runs/$w-$who-gen t0 cmd ov
    read -r -a ov <<<"${sizes[$w]} $common"
    if [ "$who" = dlio ]; then
        cmd=("${mpi[@]}" "$venv/bin/dlio_benchmark" "workload=${config[$w]}" "${ov[@]}"
             "++workload.dataset.data_folder=$d" ++workload.workflow.generate_data=True
             ++workload.workflow.train=False "++workload.output.folder=$o" "hydra.run.dir=$o")
    else
        cmd=("$kbench" io gen --dlio-config "$cfgdir/${config[$w]}.yaml" "${ov[@]}" --dir "$d")
    fi
    t0=$(date +%s.%N)
    mkdir -p "$o"
    (cd "$o" && run "$o.log" "${cmd[@]}")
    local secs made=false
    secs=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")
    # DLIO 2.0.0 lists data_folder/valid even with no eval files, and
    # stops when it is missing; its generator makes it empty
    if [ ! -d "$d/valid" ]; then
        echo "io-vs-dlio: $w: $who made no $d/valid, which DLIO needs: made it (empty)" >&2
        mkdir "$d/valid"
        made=true
    fi
    "${table_py[@]}" gen workload="$w" written_by="$who" command="${cmd[*]}" \
        seconds="$secs" made_empty_valid_folder="$made" >>"$raw.tmp"
    echo "$want" >"$stamp"
}

# measure TOOL WORKLOAD WRITER DIR CACHE ROUND: one read, its record
# appended to the raw file.  The cache is set for train/, the files both
# read (DLIO's bert dataset also has index/, which neither reads).
measure() {
    local tool=$1 w=$2 who=$3 d=$4 c=$5 r=$6 tag="$2-$3-$5-r$6-$1" res t0 t1 src cmd ov
    if [ "$c" = cold ]; then
        if [ "$drop_caches" = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi
        res=$("${table_py[@]}" cache evict "$d/train") || die "cannot evict $d/train"
    else
        res=$("${table_py[@]}" cache warm "$d/train") || die "cannot read $d/train"
    fi
    echo "io-vs-dlio: round $r: $w ($who's files) $c: $tool" >&2
    rm -rf "$data/runs/$tag"
    mkdir -p "$data/runs/$tag"
    read -r -a ov <<<"${sizes[$w]} $common"
    if [ "$tool" = dlio ]; then
        src=$data/runs/$tag
        cmd=("${mpi[@]}" "$venv/bin/dlio_benchmark" "workload=${config[$w]}" "${ov[@]}"
             "++workload.dataset.data_folder=$d" ++workload.workflow.generate_data=False
             ++workload.workflow.train=True "++workload.output.folder=$src" "hydra.run.dir=$src")
    else
        src=$data/runs/$tag/kbench.jsonl
        cmd=("$kbench" io run --dlio-config "$cfgdir/${config[$w]}.yaml" "${ov[@]}"
             --dir "$d" --json "$src" --quiet)
    fi
    t0=$(date +%s.%N)
    (cd "$data/runs/$tag" && run "$data/runs/$tag.log" "${cmd[@]}")
    t1=$(date +%s.%N)
    "${table_py[@]}" record --tool "$tool" --src "$src" workload="$w" written_by="$who" \
        cache="$c" round="$r" files="$(cfgval "$w" dataset.num_files_train)" \
        samples_per_file="$(cfgval "$w" dataset.num_samples_per_file)" \
        batch="$(cfgval "$w" reader.batch_size)" \
        dataset_bytes="$(echo "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin)["bytes"])')" \
        resident_before="$(echo "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin)["resident_fraction"])')" \
        wall_s="$(python3 -c "print(round($t1 - $t0, 3))")" command="${cmd[*]}" >>"$raw.tmp" ||
        die "no record from $tool's run ($src)"
}

for w in "${wl_list[@]}"; do
    for who in dlio kbench; do
        d=$data/$w-$who
        gen "$w" "$who" "$d"
        for ((r = 1; r <= rounds; r++)); do
            for c in cold warm; do
                measure dlio "$w" "$who" "$d" "$c" "$r"
                measure kbench "$w" "$who" "$d" "$c" "$r"
            done
        done
    done
    [ "$keep" = 1 ] || rm -rf "$data/$w-dlio" "$data/$w-kbench" "$data/$w-dlio.stamp" "$data/$w-kbench.stamp"
done

# the header record: machine, versions, what both tools verify
vers=$("$py" -c 'import importlib.metadata as m, platform
print(m.version("dlio-benchmark"), platform.python_version(), ", ".join("%s %s" % (p, m.version(p)) for p in ("torch", "tensorflow-cpu", "numpy", "mpi4py", "pydftracer")))')
wl_args=()
for w in "${wl_list[@]}"; do wl_args+=(--workload "$w" "${config[$w]}" "${sizes[$w]} $common"); done
"${table_py[@]}" meta --data "$data" "${wl_args[@]}" \
    --command "scripts/io-vs-dlio.sh --kbench $kbench --data $data --out $out --rounds $rounds --size $size --workloads $workloads --compute $compute$([ "$drop_caches" = 0 ] || echo ' --drop-caches')" \
    dlio_version="${vers%% *}" python="$(echo "$vers" | cut -d' ' -f2)" \
    frameworks="$(echo "$vers" | cut -d' ' -f3-)" \
    mpirun="$(mpirun --version 2>&1 | head -n 1): ${mpi[*]}" \
    kbench_version="$("$kbench" --version 2>&1 | head -n 1)" \
    start="$start" end="$(date -u +%Y-%m-%dT%H:%M:%SZ)" rounds="$rounds" compute="$compute" \
    cold="sync, then POSIX_FADV_DONTNEED on every file of the dataset before the run$([ "$drop_caches" = 0 ] || echo ', then echo 3 > /proc/sys/vm/drop_caches') (the script's eviction, the same for both tools: kbench's records say cold false, and their residency_before shows it)" \
    warm="the dataset read whole once (discarded) right before the run" \
    verification="$verification" >"$raw.new" || die "cannot write the header record"
cat "$raw.tmp" >>"$raw.new"
rm -f "$raw.tmp"
"${table_py[@]}" table --name "$(basename "$raw")" "$raw.new" >"$out/io-vs-dlio.md.tmp" || die "the table failed ($raw.new kept)"
# written whole or not at all: a failed run keeps the previous table
mv "$raw.new" "$raw"
mv "$out/io-vs-dlio.md.tmp" "$out/io-vs-dlio.md"
echo "io-vs-dlio: wrote $out/io-vs-dlio.md and $raw" >&2

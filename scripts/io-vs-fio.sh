#!/bin/sh
# io-vs-fio.sh - kbench io's raw read path (--decode none) against fio
# sequential read on the same files with the same thread count, buffered
# with the page cache invalidated and with O_DIRECT (pread against fio's
# psync, io_uring against fio's io_uring), in one invocation; then
# decode-bound throughput per profile.  Writes a Markdown table.
#
# usage: scripts/io-vs-fio.sh KBENCH DATADIR [SCALE] [THREADS] [OUT.md]
#   KBENCH   the kbench binary (anything taking `io gen|run ...`)
#   DATADIR  scratch directory on the filesystem under test
#   SCALE    --scale for the datasets (default 0.02); the raw-read dataset
#            should exceed RAM, or rely on --cold / fio's invalidate
#   THREADS  readers and fio jobs (default: number of CPUs)
#   OUT.md   default results/io/io-vs-fio.md
# Environment: ROUNDS (default 3) rounds per mode, each round kbench with
# CRCs on, fio, then kbench with --verify none, on the same files; the
# ratio kbench / fio is taken per round (against that round's fio run)
# and reported as median [min-max].  DECODE=0 leaves out the
# decode-bound table.  NOTE is printed under the machine (what else ran).
# Datasets already in DATADIR are reused; kbench refuses (and names) one
# written by an older `kbench io gen` format: delete it and rerun.
# The goal: kbench raw read with CRCs on >= 90 % of fio.  Run it on a
# quiet machine.
set -eu
KB=$1
DIR=$2
SCALE=${3:-0.02}
THREADS=${4:-$(nproc)}
OUT=${5:-results/io/io-vs-fio.md}
ROUNDS=${ROUNDS:-3}
DECODE=${DECODE:-1}
NOTE=${NOTE:-}
command -v fio >/dev/null || { echo "io-vs-fio: fio not found (apt-get install fio)" >&2; exit 3; }

mkdir -p "$DIR"
gen() { [ -f "$DIR/$1/kbench-io.manifest" ] || "$KB" io gen --profile "$1" --dir "$DIR/$1" --scale "$2"; }

# kb_last PROFILE FIELDS ARGS...: run kbench io on PROFILE's dataset (2
# epochs) and print FIELDS (a Python format over the last epoch's record
# r); stops the script with kbench's message when the run fails.
kb_last() {
    p=$1
    fields=$2
    shift 2
    if ! "$KB" io run --profile "$p" --dir "$DIR/$p" --readers "$THREADS" \
        --compute sleep:0 --epochs 2 --quiet --json "$DIR/kb.jsonl" "$@" >/dev/null; then
        echo "io-vs-fio: kbench io run --profile $p $* failed" >&2
        exit 3
    fi
    tail -n 1 "$DIR/kb.jsonl" | python3 -c "import json,sys; r=json.load(sys.stdin); print($fields)"
}
# MB/s the reads returned, cache evicted before each epoch
kb_mbs() {
    p=$1
    shift
    kb_last "$p" '"%.1f" % r["kb_read_MB_per_second"]' --cold "$@"
}

# MB/s of fio reading the same files sequentially with THREADS jobs.  Each
# job gets its own files (round robin), as kbench's readers do: fio jobs
# sharing one file list would each read every file, and in buffered mode
# all but the first would read from the page cache.
# fio_mbs PROFILE DIRECT(0|1) ENGINE(psync|io_uring)
fio_mbs() {
    ls "$DIR/$1"/*.tfrecord "$DIR/$1"/*.npz "$DIR/$1"/*.h5 2>/dev/null |
        awk -v t="$THREADS" '{ f[NR % t] = f[NR % t] (f[NR % t] == "" ? "" : ":") $0 }
            END { for (j = 0; j < t; j++) if (f[j] != "") printf "[job%d]\nfilename=%s\n", j, f[j] }' >"$DIR/fio.jobs.tmp"
    { printf '[global]\nrw=read\nbs=1M\nioengine=%s\ninvalidate=1\ndirect=%s\n' "$3" "$2"
      [ "$3" = psync ] || printf 'iodepth=8\n'
      printf 'file_service_type=sequential\ngroup_reporting=1\n'
      cat "$DIR/fio.jobs.tmp"; } >"$DIR/fio.jobs"
    fio --output-format=json "$DIR/fio.jobs" 2>/dev/null |
        python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.1f" % (j["jobs"][0]["read"]["bw_bytes"]/1e6))'
}

gen bert "$SCALE"
RAW=bert
# mode ENGINE DIRECT: ROUNDS rounds of kbench (CRCs on), fio, kbench
# (--verify none) on the same files, so drift on a shared disk hits all
# three; prints "crc fio none crc/fio none/fio", each a comma-separated
# list (ratios per round, against that round's fio run)
mode() {
    flag=""
    [ "$2" = 1 ] && flag=--direct
    kc="" fo="" kn="" rc="" rn=""
    for _ in $(seq "$ROUNDS"); do
        # shellcheck disable=SC2086  # flag is empty or one word
        c=$(kb_mbs $RAW --decode none --verify crc --engine "$1" $flag)
        f=$(fio_mbs $RAW "$2" "$(echo "$1" | sed 's/^pread$/psync/')")
        # shellcheck disable=SC2086
        n=$(kb_mbs $RAW --decode none --verify none --engine "$1" $flag)
        kc="$kc${kc:+,}$c" fo="$fo${fo:+,}$f" kn="$kn${kn:+,}$n"
        rc="$rc${rc:+,}$(ratio "$c" "$f")" rn="$rn${rn:+,}$(ratio "$n" "$f")"
    done
    echo "$kc $fo $kn $rc $rn"
}
ratio() { python3 -c "print('%.3f' % ($1/$2) if $2 > 0 else 0)"; }
# stat LIST [FMT]: "median [min-max]"
stat() { echo "$1" | tr ',' '\n' | sort -n | awk -v f="${2:-%.0f}" '{ v[NR] = $1 } END { printf f " [" f "-" f "]", (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2), v[1], v[NR] }'; }
row() {  # row LABEL ENGINE DIRECT: two table lines, CRCs on and off
    # shellcheck disable=SC2046  # mode prints five words
    set -- "$1" $(mode "$2" "$3")
    echo "| $1 | crc | $(stat "$2") | $(stat "$3") | $(stat "$5" %.2f) |"
    echo "| $1 | none (reference) | $(stat "$4") | $(stat "$3") | $(stat "$6" %.2f) |"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rows=$(row "buffered, cache invalidated (pread / psync)" pread 0
       row "O_DIRECT (pread / psync)" pread 1
       row "O_DIRECT (io_uring / io_uring)" io_uring 1)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$("$KB" peaks --quick --no-gpu 2>/dev/null | sed -n 's/^cpu: //p' | head -n 1)
dev=$(df "$DIR" | awk 'NR==2{print $1}')
disk=$(lsblk -dno NAME,MODEL,SIZE,ROTA "$(echo "$dev" | sed 's/[0-9]*$//')" 2>/dev/null | tr -s ' ')

{
    echo "# kbench io raw read path vs fio"
    echo
    echo "Machine: $(uname -n), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GiB RAM; kernel $(uname -r)"
    echo "CPU (kbench peaks --quick --no-gpu): ${cpu:-?}"
    echo "Filesystem: $(df -T "$DIR" | awk 'NR==2{print $2" on "$1}')${disk:+ (block device: $disk; ROTA 0 = not rotating)}"
    echo "Load average (1, 5, 15 min) before / after the read rows: $load0 / $load1${NOTE:+; $NOTE}"
    echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); $(fio --version); kbench $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?'), checksums from $(tail -n 1 "$DIR/kb.jsonl" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("checksums", "?"))')"
    echo "Command: scripts/io-vs-fio.sh $KB $DIR $SCALE $THREADS $OUT"
    echo "Dataset: profile $RAW, scale $SCALE, $(find "$DIR/$RAW" -name '*.tfrecord' | wc -l) files, $(du -sh "$DIR/$RAW" | cut -f1); $THREADS readers / fio jobs, each fio job its own files; kbench --cold (fsync + POSIX_FADV_DONTNEED) each epoch, last epoch reported; fio --invalidate=1, bs 1 MiB (kbench's --chunk), iodepth 8 (kbench's --depth)"
    echo
    echo "Each cell: median [min-max] of $ROUNDS rounds; a round runs kbench with CRCs on, fio, then kbench with --verify none, on the same files. kbench / fio is taken per round, against that round's fio run."
    echo
    echo "| mode | kbench --verify | kbench MB/s | fio MB/s | kbench / fio |"
    echo "|---|---|---|---|---|"
    echo "$rows"
    echo
    echo "kbench's figure is bytes the reads returned over the epoch's wall time, every sample delivered through the prefetch ring; with --verify crc every TFRecord CRC32C and sample checksum is verified, with none only framing, lengths and ids; fio only reads."
    if [ "$DECODE" = 1 ]; then
        echo
        echo "## Decode-bound throughput (page cache warm, compute sleep:0)"
        echo
        echo "| profile | decode | samples/s | MB/s read |"
        echo "|---|---|---|---|"
        for p in resnet50 cosmoflow unet3d deepcam; do
            case $p in resnet50) s=0.002;; cosmoflow) s=0.0002;; unet3d) s=0.03;; deepcam) s=0.0001;; esac
            gen $p $s
            row=$(kb_last $p '"| %s | %.1f | %.1f |" % (r["decode"], r["train_throughput_samples_per_second"], r["kb_read_MB_per_second"])')
            echo "| $p $row"
        done
    fi
} > "$OUT.tmp"
# written whole or not at all: a failed run keeps the previous table
mv "$OUT.tmp" "$OUT"
cat "$OUT"

#!/usr/bin/env bash
# fresh-debian-check.sh [--suite S] [--user] [--worktree] [--bundle DIR]
#                       [--cache DIR] [--keep] -
# prove the README's two commands on a fresh Debian: debootstrap suite S
# (minbase) into a temporary directory, put a clean clone of this
# checkout's HEAD in it, mount /proc, /sys, /dev, /dev/pts and /dev/shm,
# and run inside it, as root with no sudo, scripts/test.sh and then
# scripts/run-suite.sh on one model.  Cleans up after itself, interrupted
# or not.  Prints the time each phase took.
#   --suite S    bookworm (Debian 12, the default) or trixie (Debian 13)
#   --user       run them as a user with sudo instead (sudo installed,
#                user kbench, passwordless); checks the build is the user's
#   --worktree   copy the working tree as it is, committed or not
#   --bundle DIR rehearse the GPU device check instead: the bundle DIR
#                (scripts/device-pack.sh) in the chroot with nothing but
#                python3 and, as NVIDIA's Python wheels, this machine's
#                cuBLAS and cuDNN (bound read-only); its device-check.sh
#                --rehearse must find no CUDA device everywhere, exit 0,
#                and write at most 8 files (before python3 and the
#                libraries are there, it must exit 2 naming them all)
#   --cache DIR  keep in DIR the debootstrapped base (S-minbase.tar, made
#                again when a week old) and the downloaded .debs: reruns
#                skip debootstrap and most downloads
#   --keep       leave the root for a look (mounts undone)
# Needs root (re-runs itself through sudo when available) and network for
# apt: the Debian mirror is the one this machine's apt uses
# (scripts/apt-mirror.sh), or KB_DEBIAN_MIRROR.
# Exit code: 0 both commands passed, 1 one failed, 2 usage or setup.
# shellcheck disable=SC2317  # mounts_below and cleanup run from the trap
set -euo pipefail

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

src=$(cd "$(dirname "$0")/.." && pwd)
args=("$@")
worktree=0 cache="" keep=0 user="" suite=bookworm bundle=""
while [ $# -gt 0 ]; do
    case "$1" in
        --suite)
            [ $# -ge 2 ] || usage
            case "$2" in
                bookworm | trixie) suite=$2 ;;
                *) echo "fresh-debian-check.sh: --suite $2: not bookworm or trixie" >&2
                   exit 2 ;;
            esac
            shift ;;
        --user) user=kbench ;;
        --worktree) worktree=1 ;;
        --bundle)
            [ $# -ge 2 ] || usage
            [ -x "$2/device-check.sh" ] ||
                { echo "fresh-debian-check.sh: --bundle ${2:-}: no device-check.sh there" >&2
                  exit 2; }
            bundle=$(realpath "$2"); shift ;;
        --cache) [ $# -ge 2 ] || usage; cache=$(realpath -m "$2"); shift ;;
        --keep) keep=1 ;;
        *) usage ;;
    esac
    shift
done

. "$src/scripts/debian-chroot.sh"
chroot_as_root "$0" "${args[@]}"

mirror=${KB_DEBIAN_MIRROR:-$("$src/scripts/apt-mirror.sh")} || exit 2
echo "fresh-debian-check: Debian $suite from $mirror"
start=$(date +%s)
phase_start=$start
phase_name=""
timings=()
# phase NAME: ends the current phase (recording its seconds), starts NAME.
phase() {
    local now
    now=$(date +%s)
    if [ -n "$phase_name" ]; then
        timings+=("$(printf '%-28s %5ss' "$phase_name" $((now - phase_start)))")
    fi
    phase_name=$1
    phase_start=$now
    [ -z "$1" ] || echo "=== fresh-debian-check: $1"
}

root=$(realpath "$(mktemp -d "${TMPDIR:-/var/tmp}/kbench-fresh.XXXXXX")")
chmod 0755 "$root"  # it is /: apt's _apt and the --user must get through
log=$root.log  # debootstrap's output, shown when it fails

# run_bg [--log FILE] CMD...: runs CMD in the background (output to FILE)
# and waits, so that a signal reaches the trap at once, not when CMD ends.
# (Redirecting run_bg itself would send the trap's output to FILE too.)
bg_pid=""
run_bg() {
    if [ "$1" = --log ]; then
        "${@:3}" >"$2" 2>&1 &
    else
        "$@" &
    fi
    bg_pid=$!
    local rc=0
    wait "$bg_pid" || rc=$?
    bg_pid=""
    return "$rc"
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    set +e  # undo all that can be undone
    phase ""
    [ -z "$bg_pid" ] || { kill -TERM "$bg_pid"; wait "$bg_pid"; } 2>/dev/null
    # what still runs in the chroot (started by this script: its root is
    # ours) is killed, and all mounted inside undone (a package's too)
    rm -f "$log"
    if ! chroot_fs_release "$root"; then
        echo "fresh-debian-check: still mounted, NOT removing $root:" >&2
        chroot_mounts_below "$root" >&2
        rc=2
    elif [ "$keep" = 1 ]; then
        echo "fresh-debian-check: kept $root (mounts undone)"
    else
        # --one-file-system: even so, never descend into another file system
        rm -rf --one-file-system "$root"
    fi
    echo "=== fresh-debian-check: timings"
    printf '  %s\n' "${timings[@]}"
    echo "  total                        $(( $(date +%s) - start ))s, exit $rc"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

base="" debs=""
if [ -n "$cache" ]; then
    base=$cache/$suite-minbase.tar debs=$cache/apt-$suite
    mkdir -p "$debs"
fi
if [ -n "$base" ] && [ -n "$(find "$base" -mtime -7 2>/dev/null)" ]; then
    phase "unpack the cached $suite minbase"
    tar -xpf "$base" --numeric-owner -C "$root"
else
    phase "debootstrap $suite minbase"
    if ! command -v debootstrap >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -qq -y --no-install-recommends debootstrap ||
            { apt-get update -qq &&
              apt-get install -qq -y --no-install-recommends debootstrap; }
    fi
    run_bg --log "$log" debootstrap --variant=minbase "$suite" "$root" "$mirror" ||
        { tail -n 30 "$log" >&2; exit 2; }
    if [ -n "$base" ]; then
        # written aside, then renamed: an interrupted run leaves no half base
        tar -cf "$base.part" --numeric-owner -C "$root" . && mv "$base.part" "$base"
    fi
fi

phase "copy the checkout in"
home=/root
[ -z "$user" ] || home=/home/$user
dest=$root$home/kbench
if [ -n "$bundle" ]; then
    cp -a "$bundle" "$dest"
    echo "copied the bundle $bundle ($(du -sh "$bundle" | cut -f1))"
elif [ "$worktree" = 1 ]; then
    # tracked and untracked files that git does not ignore, less deleted
    # ones; no build dirs
    mkdir -p "$dest"
    git -C "$src" ls-files -z --cached --others --exclude-standard |
        (cd "$src" && tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
        tar -xf - -C "$dest"
    echo "copied the working tree of $src"
else
    head=$(git -C "$src" rev-parse HEAD)
    git clone --quiet --no-hardlinks "$src" "$dest"
    git -C "$dest" checkout --quiet --detach "$head"
    echo "cloned $src at $head"
fi
if [ -n "$debs" ]; then
    cp -n "$debs"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
fi

chroot_fs_mount "$root"   # its own /dev (scripts/debian-chroot.sh)

# in_chroot [--root] COMMAND: runs COMMAND in the checkout as its user
# (root, or the --user), in a clean environment: what a fresh login has.
in_chroot() {
    local who=${user:-root}
    if [ "$1" = --root ]; then who=root; shift; fi
    run_bg chroot --userspec="$who:$who" "$root" /usr/bin/env -i \
        HOME="$home" USER="$who" LOGNAME="$who" LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash -c "cd $home/kbench && $1"
}

# The device check's rehearsal: python3 (the GPU machine has it), and this
# machine's cuBLAS and cuDNN where NVIDIA's wheels put theirs
# (site-packages/nvidia/NAME/lib); nothing else.
if [ -n "$bundle" ]; then
    # Bare, it must refuse at once (exit 2), naming all it lacks.
    phase "device-check.sh on the bare chroot"
    rc=0
    in_chroot "./device-check.sh /root/device-bare >/dev/null 2>&1" || rc=$?
    lacks=$(sed -n 's/^  //p' "$root/root/device-bare/summary.txt")
    echo "$lacks"
    for want in python3 libcublas.so.13 libcudnn.so.9 compute-sanitizer \
                nvidia-smi libcuda.so.1; do
        echo "$lacks" | grep -q "^$want " ||
            { echo "fresh-debian-check: bare: $want not named (exit $rc)"; exit 1; }
    done
    [ "$rc" = 2 ] || { echo "fresh-debian-check: bare: exit $rc, not 2"; exit 1; }
    phase "python3, the NVIDIA libraries as wheels"
    in_chroot --root "apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -qq -y \
            --no-install-recommends python3 >/dev/null" || exit 2
    if [ -n "$debs" ]; then
        cp -n "$root"/var/cache/apt/archives/*.deb "$debs/" 2>/dev/null || true
    fi
    site=$root/usr/local/lib/python3.11/dist-packages/nvidia
    for lib in libcublas.so.13 libcudnn.so.9; do
        from=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
        [ -n "$from" ] || { echo "fresh-debian-check: no $lib here" >&2; exit 2; }
        from=$(dirname "$(realpath "$from")")
        name=${lib%%.*}
        mkdir -p "$site/${name#lib}/lib"
        mount --bind -o ro "$from" "$site/${name#lib}/lib"
    done
    status=0
    phase "device-check.sh --rehearse"
    in_chroot "./device-check.sh --rehearse /root/device-out" || status=1
    files=$(find "$root/root/device-out" -type f | wc -l)
    echo "fresh-debian-check: device-check.sh wrote $files files:" \
         "$(cd "$root/root/device-out" && echo *)"
    [ "$files" -le 8 ] || { echo "fresh-debian-check: more than 8 files"; status=1; }
    phase ""
    [ "$status" = 0 ] && echo "fresh-debian-check: PASSED" ||
        echo "fresh-debian-check: FAILED"
    exit "$status"
fi

if [ -n "$user" ]; then
    phase "sudo and user $user"
    in_chroot --root "apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -qq -y \
            --no-install-recommends sudo >/dev/null &&
        useradd -M -d $home -s /bin/bash $user &&
        echo '$user ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/$user &&
        chmod 0440 /etc/sudoers.d/$user && chown -R $user:$user $home"
fi

status=0
phase "scripts/test.sh"
in_chroot "scripts/test.sh" || status=1
if [ -n "$debs" ]; then
    cp -n "$root"/var/cache/apt/archives/*.deb "$debs/" 2>/dev/null || true
fi
if [ "$status" = 0 ]; then
    phase "scripts/run-suite.sh resnet50"
    in_chroot "scripts/run-suite.sh --model resnet50 --reps 1 --min-time 0" ||
        status=1
fi
# The build is the invoking user's: only apt-get ran as root.  (Numeric:
# the host's names for the chroot's uids differ.)
owner=$(stat -c %u "$dest/build/default" 2>/dev/null || echo none)
uid=$(chroot "$root" id -u "${user:-root}")
if [ "$status" = 0 ] && [ "$owner" != "$uid" ]; then
    echo "fresh-debian-check: build/default belongs to uid $owner, not" \
         "${user:-root} ($uid)"
    status=1
fi
phase ""
[ "$status" = 0 ] && echo "fresh-debian-check: PASSED" ||
    echo "fresh-debian-check: FAILED"
exit "$status"

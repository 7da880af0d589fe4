# shellcheck shell=bash
# debian-chroot.sh - sourced, not run: the chroot plumbing of the scripts
# that build kbench in a Debian chroot (fresh-debian-check.sh,
# rocm-compile-check.sh).
#   chroot_fs_mount ROOT    mounts /proc, /sys, the chroot's own /dev,
#                           /dev/pts and /dev/shm under ROOT
#   chroot_fs_release ROOT  kills what still runs with ROOT as its root,
#                           unmounts everything at or below ROOT, deepest
#                           first; returns 1 if something stays mounted
#   chroot_as_root SCRIPT ARG...  runs SCRIPT again under sudo (keeping
#                           KB_DEBIAN_MIRROR and TMPDIR) unless already
#                           root; exits 2 where there is no sudo
# All but chroot_as_root need root.

chroot_as_root() {
    [ "$(id -u)" -ne 0 ] || return 0
    if command -v sudo >/dev/null 2>&1; then
        exec sudo env ${KB_DEBIAN_MIRROR:+KB_DEBIAN_MIRROR="$KB_DEBIAN_MIRROR"} \
            ${TMPDIR:+TMPDIR="$TMPDIR"} "$@"
    fi
    echo "$(basename "$1"): debootstrap, chroot and mount need root" >&2
    exit 2
}

# Everything mounted at or below $1, deepest first.
chroot_mounts_below() {
    findmnt -rn -o TARGET | awk -v r="$1" '$0 == r || index($0, r "/") == 1' |
        sort -r
}

chroot_fs_mount() {
    local root=$1 node name major minor fd
    mount -t proc proc "$root/proc"
    mount -t sysfs sysfs "$root/sys"
    # The chroot's own /dev, not a bind of the host's: a package script
    # that replaces dev/null would otherwise replace the host's (a host
    # /dev/null turned into a regular file was seen on this machine).
    mount -t tmpfs -o mode=755,nosuid dev "$root/dev"
    for node in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
        read -r name major minor <<<"$node"
        mknod -m 666 "$root/dev/$name" c "$major" "$minor"
    done
    mkdir "$root/dev/pts" "$root/dev/shm"
    ln -s pts/ptmx "$root/dev/ptmx"
    ln -s /proc/self/fd "$root/dev/fd"
    for fd in stdin:0 stdout:1 stderr:2; do
        ln -s "/proc/self/fd/${fd#*:}" "$root/dev/${fd%:*}"
    done
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
    mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
}

chroot_fs_release() {
    local root=$1 p m
    # Whatever still runs in the chroot keeps the mounts busy; a few
    # passes catch late forks.
    for _ in 1 2 3; do
        for p in /proc/[0-9]*; do
            [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] &&
                kill -KILL "${p#/proc/}" 2>/dev/null
        done
        sleep 0.2
    done
    while read -r m; do
        [ -n "$m" ] && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done < <(chroot_mounts_below "$root")
    [ -z "$(chroot_mounts_below "$root")" ]
}

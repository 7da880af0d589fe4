#!/usr/bin/env bash
# local-cluster.sh - a real Slurm (munged, slurmctld, N slurmd) on this one machine, for testing.
#
#   integrations/slurm/local-cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   integrations/slurm/local-cluster.sh stop DIR
#
# start: installs Debian's slurm-wlm and munge if missing (needs root), makes
# a munge key, DIR/slurm.conf with nodes n1..nN (KB_SLURM_NODES, default 3)
# that all live on this host (NodeHostname=$(hostname), one slurmd port
# each), starts munged, slurmctld and one `slurmd -N nI` per node with every
# socket, pid, log, state and spool file under DIR, and waits until sinfo
# shows every node idle. Every PID it starts goes to DIR/pids; stop sends
# TERM to exactly those (then KILL after 10 s), never to a process name.
# Ports: KB_SLURM_PORT (controller; the nodes use the next N ports), else
# the first free block from 17000 up, so two clusters can run side by side.
set -euo pipefail

die() { echo "local-cluster: $*" >&2; exit 1; }

usage() { die "usage: $0 start|stop DIR"; }

[ $# -eq 2 ] || usage
cmd=$1
dir=$2

# Daemons are started with -D/-F (no fork), so $! is the daemon's own PID.
launch() {
    local name=$1
    shift
    "$@" >"$dir/log/$name.out" 2>&1 &
    echo "$! $name" >>"$dir/pids"
}

alive() { kill -0 "$1" 2>/dev/null; }

# TERM to each PID given, then KILL to any still there 10 s later.
end_pids() {
    local pid deadline=$((SECONDS + 10))
    for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "$@"; do
        while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
        if alive "$pid"; then
            echo "local-cluster: pid $pid ignored TERM for 10 s: KILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    done
}

stop_cluster() {
    [ -f "$dir/pids" ] || { echo "local-cluster: no $dir/pids: nothing started there"; return 0; }
    local pid name slurm=() munge=()
    while read -r pid name; do
        alive "$pid" || continue
        if [ "$name" = munged ]; then munge+=("$pid"); else slurm+=("$pid"); fi
    done <"$dir/pids"
    # The Slurm daemons together (each takes seconds to shut down), then
    # munged, which they need until they have.
    [ ${#slurm[@]} = 0 ] || end_pids "${slurm[@]}"
    [ ${#munge[@]} = 0 ] || end_pids "${munge[@]}"
    rm -f "$dir/pids"
}

port_free() {
    python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("", int(sys.argv[1])))' "$1" 2>/dev/null
}

# A controller port followed by $nodes free ports.
pick_ports() {
    local base p ok
    for base in ${KB_SLURM_PORT:-$(seq 17000 100 17900)}; do
        ok=1
        for p in $(seq "$base" $((base + nodes))); do port_free "$p" || { ok=0; break; }; done
        [ $ok = 1 ] && { echo "$base"; return 0; }
    done
    die "no free block of $((nodes + 1)) ports (tried ${KB_SLURM_PORT:-17000..17900}); set KB_SLURM_PORT"
}

ensure_packages() {
    command -v slurmctld >/dev/null && command -v munged >/dev/null && return 0
    [ "$(id -u)" = 0 ] || die "slurm-wlm and munge are not installed and we are not root to apt-get them"
    echo "local-cluster: installing slurm-wlm and munge"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null \
        || die "apt-get install slurm-wlm munge failed"
}

write_conf() {
    local port=$1 cpus host
    cpus=$(nproc)
    host=$(hostname)
    cat >"$dir/slurm.conf" <<EOF
# Written by integrations/slurm/local-cluster.sh: $nodes emulated nodes on $host.
ClusterName=kbench-local
SlurmctldHost=$host
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
# No cgroups in a container: track by process tree, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
# Every node has all of this machine's CPUs: they share them.
NodeName=n[1-$nodes] NodeHostname=$host Port=$((port + 1))-$((port + nodes)) CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

wait_idle() {
    local deadline=$((SECONDS + ${KB_SLURM_START_TIMEOUT:-60})) idle=0
    while [ $SECONDS -lt $deadline ]; do
        idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l) || idle=0
        [ "$idle" -ge "$nodes" ] && return 0
        sleep 0.5
    done
    echo "local-cluster: only $idle of $nodes nodes idle after ${KB_SLURM_START_TIMEOUT:-60} s; sinfo says:" >&2
    sinfo -N >&2 || true
    tail -n 5 "$dir"/log/*.log >&2 || true
    return 1
}

start_cluster() {
    [ "$(id -u)" = 0 ] || die "start needs root (munged and slurmd run as root here)"
    [ ! -e "$dir/pids" ] || die "$dir/pids exists: a cluster may be running there; stop it first"
    ensure_packages
    mkdir -p "$dir"/{munge,state,spool,run,log}
    chmod 700 "$dir/munge"
    dir=$(cd "$dir" && pwd)
    local port i
    port=$(pick_ports)
    write_conf "$port"
    export SLURM_CONF=$dir/slurm.conf

    mungekey --create --force --keyfile="$dir/munge/munge.key" || die "mungekey failed"
    chmod 400 "$dir/munge/munge.key"
    # --force: the dir's ancestors (/tmp) are world-writable, which munged refuses otherwise.
    launch munged munged -F --force --socket="$dir/munge/munge.socket" \
        --key-file="$dir/munge/munge.key" --pid-file="$dir/run/munged.pid" \
        --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
    local deadline=$((SECONDS + 10))
    until [ -S "$dir/munge/munge.socket" ]; do
        [ $SECONDS -lt $deadline ] || { cat "$dir/log/munged.out" >&2; stop_cluster; die "munged did not create its socket in 10 s"; }
        sleep 0.1
    done

    launch slurmctld slurmctld -D -c -f "$SLURM_CONF"
    for i in $(seq 1 "$nodes"); do
        launch "slurmd-n$i" slurmd -D -N "n$i" -f "$SLURM_CONF"
    done
    wait_idle || { stop_cluster; die "cluster did not come up (logs in $dir/log)"; }
    echo "local-cluster: $nodes nodes idle (controller port $port); export SLURM_CONF=$SLURM_CONF"
}

nodes=${KB_SLURM_NODES:-3}
case $cmd in
start) start_cluster ;;
stop) stop_cluster ;;
*) usage ;;
esac

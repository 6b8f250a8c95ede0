#!/usr/bin/env bash
# A real Slurm cluster on this machine, for the tests of `dtb gen --slurm`:
# Debian's slurmctld, slurmd, slurm-client and munge, one controller and
# three slurmd nodes (n1-n3) on loopback, everything under one folder.
#
#   scripts/slurm-cluster.sh start   installs what is missing, starts the
#                                    daemons, waits for three idle nodes and
#                                    prints the SLURM_CONF line to export
#   scripts/slurm-cluster.sh stop    stops every daemon it started, by the
#                                    pids in their pid files
#
# The folder is $DTB_SLURM_DIR (default target/slurm-ci). Needs root (or
# sudo): the daemons run as root, munged as the munge user.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${DTB_SLURM_DIR:-$PWD/target/slurm-ci}
conf=$root/slurm.conf
nodes=(n1 n2 n3)

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
        command -v sbatch >/dev/null && command -v munged >/dev/null; then
        return
    fi
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null
}

write_conf() {
    local host
    host=$(hostname -s)
    mkdir -p "$root/state" "$root/log"
    for n in "${nodes[@]}"; do mkdir -p "$root/spool/$n"; done
    cat >"$conf" <<EOF
ClusterName=dtbci
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$root/state
SlurmdSpoolDir=$root/spool/%n
SlurmctldPidFile=$root/slurmctld.pid
SlurmdPidFile=$root/slurmd-%n.pid
SlurmctldLogFile=$root/log/slurmctld.log
SlurmdLogFile=$root/log/slurmd-%n.log
SlurmctldPort=16817
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
JobRequeue=1
MinJobAge=600
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
NodeName=n[1-3] NodeHostname=$host NodeAddr=127.0.0.1 Port=17001-17003 CPUs=1 RealMemory=6000
PartitionName=ci Nodes=n[1-3] Default=YES MaxTime=INFINITE State=UP
EOF
}

start_munge() {
    if [ -f "$root/munged.pid" ] && kill -0 "$(cat "$root/munged.pid")" 2>/dev/null; then
        return
    fi
    as_root mkdir -p /run/munge /etc/munge
    as_root chown munge:munge /run/munge
    if ! as_root test -s /etc/munge/munge.key; then
        as_root sh -c 'dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null'
        as_root chown munge:munge /etc/munge/munge.key
        as_root chmod 400 /etc/munge/munge.key
    fi
    as_root runuser -u munge -- /usr/sbin/munged --pid-file=/run/munge/dtb-ci.pid --force
    as_root cat /run/munge/dtb-ci.pid >"$root/munged.pid"
}

start() {
    install_packages
    write_conf
    start_munge
    as_root env SLURM_CONF="$conf" slurmctld -i
    for n in "${nodes[@]}"; do as_root env SLURM_CONF="$conf" slurmd -N "$n"; done
    for _ in $(seq 1 120); do
        if [ "$(SLURM_CONF=$conf sinfo -h -o '%D %t' -t idle 2>/dev/null | awk '{s+=$1} END {print s+0}')" = 3 ]; then
            echo "export SLURM_CONF=$conf"
            return
        fi
        sleep 0.5
    done
    echo "slurm-cluster: the nodes did not come up; see $root/log" >&2
    exit 1
}

stop_pid_file() {
    local file=$1
    [ -f "$file" ] || return 0
    local pid
    pid=$(cat "$file")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        as_root kill "$pid" || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$file"
}

stop() {
    for n in "${nodes[@]}"; do stop_pid_file "$root/slurmd-$n.pid"; done
    stop_pid_file "$root/slurmctld.pid"
    stop_pid_file "$root/munged.pid"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac

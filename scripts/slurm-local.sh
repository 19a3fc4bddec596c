#!/usr/bin/env bash
# slurm-local.sh — a single-node SLURM cluster on localhost for Taintlens's SLURM tests, run as
# root without systemd. munged, slurmctld and slurmd keep everything (config, munge key and
# socket, job state, logs, PID files) under one state folder; /etc and /run are not touched.
#
#   scripts/slurm-local.sh up   DIR [PORT]   start (or reuse) the cluster in DIR and wait until its
#                                            node takes jobs; prints the SLURM_CONF to export
#   scripts/slurm-local.sh down DIR          stop the daemons DIR's PID files name (never by name)
#   scripts/slurm-local.sh check             exit 0 when this machine can run one, else say why
#
# PORT (default 6817) is slurmctld's port; slurmd listens on PORT+1. Client commands (sbatch,
# squeue, scancel, sinfo) find the cluster through SLURM_CONF=DIR/slurm.conf.
set -euo pipefail

NEEDED=(munged mungekey slurmctld slurmd sbatch squeue scancel sinfo)
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

check() {
  local missing=()
  for c in "${NEEDED[@]}"; do command -v "$c" >/dev/null || missing+=("$c"); done
  if ((${#missing[@]})); then echo "not installed: ${missing[*]} (apt-get install slurmctld slurmd slurm-client munge)"; return 1; fi
  if [[ $(id -u) != 0 ]]; then echo "not root: the daemons run as root"; return 1; fi
}

# The PID in a daemon's PID file, if that process is still the daemon (PIDs get reused).
running_pid() {
  local file=$1 name=$2 pid
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$name" ]] || return 1
  echo "$pid"
}

pid_file() {
  case $1 in munged) echo "$dir/munge/munged.pid" ;; *) echo "$dir/$1.pid" ;; esac
}

node_ready() {
  [[ $(SLURM_CONF=$dir/slurm.conf sinfo -h -o %T 2>/dev/null) =~ ^(idle|mixed|allocated|completing) ]]
}

write_conf() {
  local host=$1 port=$2 shape memory
  # The node as slurmd sees it (sockets, cores, threads); declared memory below what it found, so
  # the node is never drained for having less than declared.
  shape=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]+ //; s/ RealMemory=[0-9]+//')
  memory=$(slurmd -C | head -1 | sed -nE 's/.*RealMemory=([0-9]+).*/\1/p')
  cat >"$dir/slurm.conf" <<EOF
# A one-node test cluster (scripts/slurm-local.sh): root daemons, no cgroups, no accounting.
ClusterName=taintlens
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
SchedulerParameters=sched_min_interval=0,batch_sched_delay=0
NodeName=$host NodeAddr=127.0.0.1 $shape RealMemory=$((memory * 9 / 10)) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

up() {
  local port=${1:-6817} host
  host=$(hostname -s)
  mkdir -p "$dir"
  dir=$(realpath "$dir")
  if ! running_pid "$(pid_file munged)" munged >/dev/null || ! running_pid "$(pid_file slurmctld)" slurmctld >/dev/null ||
    ! running_pid "$(pid_file slurmd)" slurmd >/dev/null; then
    down >/dev/null
    rm -rf "$dir/state" "$dir/spool"
    mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
    chmod 755 "$dir" "$dir/munge"      # munged refuses a socket folder others may write to
    [[ -s $dir/munge/munge.key ]] || mungekey -c -k "$dir/munge/munge.key"
    write_conf "$host" "$port"
    munged -S "$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
      --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
    slurmctld -f "$dir/slurm.conf"      # each daemonizes and writes its PID file
    slurmd -f "$dir/slurm.conf" -N "$host"
  fi
  for _ in $(seq 100); do
    if node_ready; then echo "export SLURM_CONF=$dir/slurm.conf"; return 0; fi
    sleep 0.3
  done
  echo "slurm-local.sh: the node did not come up within 30 s; see $dir/log" >&2
  return 1
}

down() {
  local name pid
  for name in slurmd slurmctld munged; do
    pid=$(running_pid "$(pid_file "$name")" "$name") || continue
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
    echo "stopped $name ($pid)"
  done
  rm -f "$(pid_file slurmd)" "$(pid_file slurmctld)" "$(pid_file munged)"
}

case ${1:-} in
  check) check ;;
  up) [[ -n ${2:-} ]] || usage; check >&2 || exit 1; dir=$2; up "${3:-}" ;;
  down) [[ -n ${2:-} ]] || usage; dir=$2; down ;;
  *) usage ;;
esac

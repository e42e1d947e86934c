# A one-node Slurm cluster on localhost for the recipes of tools/slurm/ (docs/certification.md):
# Debian's slurm-wlm and munge, munged, slurmctld and slurmd started as root in the foreground as
# children of the sourcing shell, their key, state, sockets and logs under one directory.
# Shared by tests/conformance/test_slurm_recipe.sh and tools/slurm/vendor-st-check. Sourced:
#   slurm_cluster_start DIR [MEMORY_MB] || echo "no cluster: $SLURM_CLUSTER_ERROR"
#   trap slurm_cluster_stop EXIT
# start exports SLURM_CONF, so this shell's sbatch, squeue and scontrol talk to the cluster. With
# MEMORY_MB the node also offers that much memory (CR_CPU_Memory: `sbatch --mem` is honoured);
# without, CPUs alone (CR_CPU). A start that fails sets SLURM_CLUSTER_ERROR and returns 1.
# shellcheck shell=bash disable=SC2034  # SLURM_CLUSTER_ERROR and SLURM_CLUSTER_DIR are the caller's

SLURM_CLUSTER_DIR=
SLURM_CLUSTER_ERROR=
slurm_cluster_daemons=()

# slurm_cluster_need: root and the packages (installed when missing), else returns 1.
slurm_cluster_need() {
  [[ $(id -u) == 0 ]] || { SLURM_CLUSTER_ERROR="starting slurmctld, slurmd and munged needs root"; return 1; }
  command -v slurmctld >/dev/null && command -v munged >/dev/null && return 0
  (source "$(dirname "${BASH_SOURCE[0]}")/common.sh" && need_packages slurm-wlm munge) </dev/null && return 0
  SLURM_CLUSTER_ERROR="slurm-wlm and munge are not installed and could not be"
  return 1
}

# Is pid $1 this shell or below it?
slurm_cluster_mine() {
  local p=$1
  while ((p > 1)); do
    ((p == $$)) && return 0
    p=$(ps -o ppid= -p "$p" 2>/dev/null | tr -d ' ') || return 1
    [[ -n $p ]] || return 1
  done
  return 1
}

# The pids the daemons left behind (job steps, their tasks): the processes whose environment
# names this cluster's slurm.conf, outside this shell.
slurm_cluster_leftovers() {
  local p
  for p in /proc/[0-9]*; do
    tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF "SLURM_CONF=$SLURM_CLUSTER_DIR/slurm.conf" &&
      ! slurm_cluster_mine "${p#/proc/}" && echo "${p#/proc/}"
  done
  return 0
}

# Cancels the jobs, SIGTERMs the daemons, SIGKILLs them after 10 s, then SIGKILLs what is left of
# the cluster's job steps, and reaps. Safe to call twice, or after a start that failed.
slurm_cluster_stop() {
  [[ -n $SLURM_CLUSTER_DIR ]] || return 0
  local i left=()
  if [[ ${SLURM_CONF:-} == "$SLURM_CLUSTER_DIR/slurm.conf" ]]; then
    scancel --quiet --user=root 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do squeue -h 2>/dev/null | grep -q . || break; sleep 0.3; done
  fi
  if ((${#slurm_cluster_daemons[@]})); then
    kill "${slurm_cluster_daemons[@]}" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do kill -0 "${slurm_cluster_daemons[@]}" 2>/dev/null || break; sleep 0.2; done
    kill -9 "${slurm_cluster_daemons[@]}" 2>/dev/null || true
    wait "${slurm_cluster_daemons[@]}" 2>/dev/null || true
    slurm_cluster_daemons=()
  fi
  mapfile -t left < <(slurm_cluster_leftovers)
  ((${#left[@]} == 0)) || kill -9 "${left[@]}" 2>/dev/null || true
}

slurm_cluster_alive() { sleep 0.5; kill -0 "$1" 2>/dev/null; }

# Two free ports below the kernel's ephemeral range, which outgoing connections of other programs
# take their local ports from (a port picked there was once taken before slurmctld bound it).
slurm_cluster_ports() {
  python3 -c 'import random, socket
ports = []
while len(ports) < 2:
    p = random.randrange(20000, 32000)
    try:
        socket.create_server(("127.0.0.1", p)).close()
        ports += [p] if p not in ports else []
    except OSError:
        pass
print(*ports)'
}

# slurm_cluster_conf P1 P2 [MEMORY_MB]: the slurm.conf of the cluster in $SLURM_CLUSTER_DIR.
slurm_cluster_conf() {
  local C=$SLURM_CLUSTER_DIR host select=CR_CPU mem=
  host=$(hostname -s)
  [[ -n ${3:-} ]] && select=CR_CPU_Memory mem="RealMemory=$3"
  cat <<CONF
ClusterName=aclctstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
AuthType=auth/munge
AuthInfo=socket=$C/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/log/slurmctld.log
SlurmdLogFile=$C/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=$select
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=5
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) $mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

# slurm_cluster_start DIR [MEMORY_MB]: the daemons up and the node idle, or returns 1.
slurm_cluster_start() {
  local C=$1 p1 p2 i
  SLURM_CLUSTER_DIR=$C
  slurm_cluster_need || return 1
  mkdir -p "$C"/{munge,state,spool,log}; chmod 755 "$C" "$C/munge"
  dd if=/dev/urandom of="$C/munge/key" bs=1024 count=1 2>/dev/null; chmod 400 "$C/munge/key"
  munged -F -f -S "$C/munge/sock" --key-file="$C/munge/key" --log-file="$C/log/munged.log" \
    --pid-file="$C/munge/munged.pid" --seed-file="$C/munge/seed" 2>"$C/log/munged.err" &
  slurm_cluster_daemons+=($!)
  slurm_cluster_alive $! || { SLURM_CLUSTER_ERROR="munged does not start: $(tail -1 "$C/log/munged.err")"; return 1; }
  read -r p1 p2 < <(slurm_cluster_ports)
  slurm_cluster_conf "$p1" "$p2" "${2:-}" >"$C/slurm.conf"
  export SLURM_CONF=$C/slurm.conf
  slurmctld -D -i 2>"$C/log/ctld.err" &
  slurm_cluster_daemons+=($!)
  slurm_cluster_alive $! || { SLURM_CLUSTER_ERROR="slurmctld does not start: $(tail -1 "$C/log/ctld.err")"; return 1; }
  slurmd -D 2>"$C/log/slurmd.err" &
  slurm_cluster_daemons+=($!)
  slurm_cluster_alive $! || { SLURM_CLUSTER_ERROR="slurmd does not start: $(tail -1 "$C/log/slurmd.err")"; return 1; }
  for ((i = 0; i < 100; i++)); do
    [[ $(sinfo -h -o %t 2>/dev/null) == idle ]] && return 0
    sleep 0.2
  done
  SLURM_CLUSTER_ERROR="the node never became idle: $(tail -2 "$C/log/slurmd.log")"
  return 1
}

# slurm_job_state JOBID, slurm_exit_code JOBID: as scontrol shows them (COMPLETED, 1:0).
slurm_job_state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
slurm_exit_code() { scontrol show job "$1" | grep -o ' ExitCode=[0-9:]*' | cut -d= -f2; }

# slurm_wait_done JOBID SECONDS: until no task of the job is pending or running; 1 on timeout.
slurm_wait_done() {
  local end=$((SECONDS + $2))
  while squeue -h -j "$1" 2>/dev/null | grep -q .; do
    ((SECONDS < end)) || return 1
    sleep 0.3
  done
}

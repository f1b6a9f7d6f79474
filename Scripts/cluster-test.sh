#!/usr/bin/env bash
# cluster-test.sh: `tessera batch` on a real single-node Slurm cluster. The script starts its own
# munged, slurmctld and slurmd (every file in a fresh temporary folder, no configuration from /etc), makes
# 30 small images in two subfolders, runs one graph over them as a Slurm array job of 3 tasks (each task
# takes its shard from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT), and checks that every image has
# exactly one output and exactly one report line, spread 10 per task.
#
# Usage: Scripts/cluster-test.sh TESSERA_BINARY
#        Scripts/cluster-test.sh --slurm-only    (a stand-in array job instead of tessera: checks the
#                                                 Slurm set-up alone)
#
# Exit status: 0 passed, 1 failed (what failed, the job's output and the daemons' logs are printed),
# 77 skipped (not root, or the Debian packages could not be installed). Needs root: apt-get installs
# slurm-wlm and munge, and slurmd must be root to start jobs. The daemons are stopped by their process
# ids on every exit path (end, error, Ctrl-C, SIGTERM; SIGKILL cannot be caught), never by name, so
# another Slurm on the machine is left alone. Takes about 20 s once the packages are installed (with a
# debug build: 7 s making the images, 10 s for the job, most of it Slurm's scheduling and polling).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKS=3    # array tasks (shards)
IMAGES=30  # input images, IMAGES / TASKS per task
TIMEOUT=30 # seconds to wait for the node to become idle

if [[ ${1:-} == --slurm-only ]]; then
    TESSERA=
elif [[ $# -eq 1 && -x $1 ]]; then
    TESSERA=$(realpath "$1")
else
    echo "usage: $0 TESSERA_BINARY | --slurm-only" >&2
    exit 2
fi

if [[ $(id -u) -ne 0 ]]; then
    echo "cluster-test: skipped: needs root (slurmd runs the jobs as root, and apt-get installs Slurm)" >&2
    exit 77
fi
if ! "$ROOT/Scripts/install-deps.sh" slurm-wlm slurm-client munge python3 >&2; then
    echo "cluster-test: skipped: could not install slurm-wlm, slurm-client and munge with apt-get" >&2
    exit 77
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tessera-cluster.XXXXXX")
chmod 711 "$WORK" # munged wants its socket's folders searchable by all, writable by the owner only
# The clients (sbatch, sinfo, squeue, scancel) read SLURM_CONF; other Slurm variables (this script run
# inside a Slurm job) would steer them elsewhere.
for name in $(compgen -e); do
    if [[ $name =~ ^(SLURM|SBATCH|SALLOC|SRUN|SQUEUE|SINFO|SCANCEL)_ ]]; then unset "$name"; fi
done
export SLURM_CONF=$WORK/etc/slurm.conf
DAEMONS=()     # "name pid" of each daemon started, in start order
SBATCH_PID=    # sbatch --wait, run in the background so a signal interrupts the wait at once
JOB_ID=

# Stops what this script started: the job (scancel, while slurmctld still runs), then the daemons in
# reverse order, each by its recorded process id (TERM, then KILL after 10 s), then removes WORK.
cleanup() {
    local rc=$? name pid i j
    set +e
    trap - EXIT INT TERM
    [[ -n $SBATCH_PID ]] && kill "$SBATCH_PID" 2>/dev/null && wait "$SBATCH_PID" 2>/dev/null
    [[ -z $JOB_ID && -f $WORK/sbatch.out ]] &&
        JOB_ID=$(awk '/^Submitted batch job/ { print $4 }' "$WORK/sbatch.out")
    if [[ -n $JOB_ID ]] && squeue -h -j "$JOB_ID" 2>/dev/null | grep -q .; then
        scancel "$JOB_ID"
        for ((i = 0; i < 50; i++)); do
            squeue -h -j "$JOB_ID" 2>/dev/null | grep -q . || break
            sleep 0.2
        done
    fi
    for ((i = ${#DAEMONS[@]} - 1; i >= 0; i--)); do
        read -r name pid <<<"${DAEMONS[i]}"
        kill -TERM "$pid" 2>/dev/null || continue
        for ((j = 0; j < 50; j++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL "$pid" 2>/dev/null && echo "cluster-test: $name ($pid) ignored TERM; killed" >&2
        wait "$pid" 2>/dev/null
    done
    # Anything of this run that outlived scancel and the daemons (slurmstepd and a task run detached
    # from slurmd): found by the marker only this run's daemons and job carry in their environment.
    grep -lsxzF "TESSERA_CLUSTER_TEST=$WORK" /proc/[0-9]*/environ | cut -d/ -f3 | while read -r pid; do
        name=$(cat "/proc/$pid/comm" 2>/dev/null)
        kill -KILL "$pid" 2>/dev/null && echo "cluster-test: killed a leftover $name ($pid)" >&2
    done
    rm -rf "$WORK"
    exit "$rc"
}
trap cleanup EXIT
trap 'echo "cluster-test: interrupted" >&2; exit 130' INT
trap 'echo "cluster-test: terminated" >&2; exit 143' TERM

# fail MESSAGE: prints what failed, the job's output and the daemons' logs, and exits 1.
fail() {
    echo "cluster-test: FAILED: $*" >&2
    [[ -f $SLURM_CONF ]] && sinfo -N -o "node %N: %t %E" >&2 2>/dev/null
    for log in "$WORK"/job/slurm-*.out "$WORK"/log/*; do
        # A daemon's own output repeats its log; shown only when the log is empty (an early error).
        [[ -s $log && ! ($log == *.out && $log != */job/* && -s ${log%.out}.log) ]] || continue
        echo "---- ${log#"$WORK"/}" >&2
        tail -n 40 "$log" >&2
    done
    exit 1
}

# start NAME COMMAND...: starts a daemon in the foreground mode of its own, in the background of this
# shell (so $! is the daemon itself: setsid and env exec it), with the marker in its environment; its
# output goes to log/NAME.out. In a session of its own, a Ctrl-C at the terminal reaches only this
# script, whose cleanup then cancels the job while slurmctld still runs, and stops the daemons in order.
start() {
    local name=$1
    shift
    setsid env TESSERA_CLUSTER_TEST="$WORK" "$@" >"$WORK/log/$name.out" 2>&1 &
    DAEMONS+=("$name $!")
}

# until_true SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds; fails after SECONDS.
until_true() {
    local seconds=$1 what=$2 i
    shift 2
    for ((i = 0; i < seconds * 5; i++)); do
        "$@" && return 0
        sleep 0.2
    done
    fail "$what within $seconds s"
}

mkdir -p "$WORK"/{etc,munge,log,run,state,spool,job}
HOST=$(hostname -s)
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))') # two free ports: another Slurm may hold 6817 and 6818
MEMORY=$(awk '/^MemTotal:/ { print int($2 / 1024 / 2) }' /proc/meminfo) # MB; below the real amount

# munge: its own key (1 KB of random bytes, readable by root only), socket, pid, seed and log files.
head -c 1024 /dev/urandom >"$WORK/munge/munge.key"
chmod 400 "$WORK/munge/munge.key"
start munged munged --foreground --socket="$WORK/munge/munge.socket" --key-file="$WORK/munge/munge.key" \
    --pid-file="$WORK/run/munged.pid" --seed-file="$WORK/munge/munged.seed" --log-file="$WORK/log/munged.log"
until_true 10 "munged did not open its socket" test -S "$WORK/munge/munge.socket"

# Slurm: the least configuration that runs jobs. No cgroups (linuxproc tracks processes through
# their parents), no accounting, every state, spool, log and pid file inside WORK.
: >"$WORK/etc/plugstack.conf" # else slurmd and the clients read /etc/slurm/plugstack.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=tessera-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
PlugStackConfig=$WORK/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
MailProg=/bin/true
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$MEMORY State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
start slurmctld slurmctld -D -c -f "$SLURM_CONF"
start slurmd slurmd -D -f "$SLURM_CONF"
node_idle() { [[ $(sinfo -h -o %t 2>/dev/null) == idle ]]; }
until_true "$TIMEOUT" "the node did not become idle" node_idle
echo "cluster-test: Slurm $(sinfo -V | awk '{ print $2 }') up on $HOST: ${DAEMONS[*]}"

cd "$WORK"
if [[ -n $TESSERA ]]; then
    # The inputs: IMAGES thumbnails of the example photos, 64 to 400 px, PNG and JPEG, half in in/a,
    # half in in/b, so the outputs must mirror the folder tree.
    sources=("$ROOT"/Examples/images/*.png)
    for ((i = 0; i < IMAGES; i++)); do
        folder=$([[ $i -lt $((IMAGES / 2)) ]] && echo a || echo b)
        extension=$([[ $((i % 2)) -eq 0 ]] && echo png || echo jpg)
        size=$((64 + i * 97 % 337))
        mkdir -p "in/$folder"
        "$TESSERA" thumbnail "${sources[i % ${#sources[@]}]}" "in/$folder/image-$i-$size.$extension" \
            --size "$size" || fail "tessera thumbnail did not make input $i"
    done
    # The graph: each image made 32 px wide, saved as PNG; with --output-dir, {dir} is the input's
    # folder under in/, so out/ mirrors in/.
    cat >graph.yaml <<'EOF'
version: 1
nodes:
  photo: { op: load, path: placeholder.png }
  small: { op: resize, input: photo, width: 32 }
  out: { op: save, input: small, path: "{dir}/{stem}.png" }
EOF
    mkdir -p reports
    job="$(printf '%q' "$TESSERA") batch graph.yaml in --output-dir out \
--report reports/shard-\$SLURM_ARRAY_TASK_ID.jsonl --threads 1"
else
    # The stand-in: each task writes what Slurm told it.
    mkdir -p standin
    # shellcheck disable=SC2016 # expanded by the task
    job='echo "$SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT $SLURM_ARRAY_TASK_MIN" \
    >standin/task-$SLURM_ARRAY_TASK_ID.txt'
fi
printf '#!/bin/bash\nset -e\n%s\n' "$job" >job/job.sh

# The array job; --wait makes sbatch return when every task has ended, with the highest exit status
# (--time bounds a hung task at 5 minutes).
started=$SECONDS
sbatch --array=0-$((TASKS - 1)) --wait --chdir="$WORK" --output="$WORK/job/slurm-%A_%a.out" \
    --export="ALL,TESSERA_CLUSTER_TEST=$WORK" --time=5 job/job.sh >sbatch.out 2>&1 &
SBATCH_PID=$!
job_status=0
wait "$SBATCH_PID" || job_status=$?
SBATCH_PID=
JOB_ID=$(awk '/^Submitted batch job/ { print $4 }' sbatch.out)
echo "cluster-test: job $JOB_ID ($TASKS tasks) ended with status $job_status in $((SECONDS - started)) s"

if [[ -z $TESSERA ]]; then
    [[ $job_status -eq 0 ]] || fail "sbatch --wait ended with status $job_status: $(cat sbatch.out)"
    for ((i = 0; i < TASKS; i++)); do
        [[ $(cat "standin/task-$i.txt" 2>/dev/null) == "$i $TASKS 0" ]] ||
            fail "task $i wrote '$(cat "standin/task-$i.txt" 2>&1)', not '$i $TASKS 0'"
    done
    echo "cluster-test: passed (stand-in job: $TASKS tasks, each saw its id, the count and the first id)"
    exit 0
fi

# The checks, in Python for its JSON: one output per input (its folder, its stem, .png), nothing else
# under out/, one report line per input with status ok, IMAGES / TASKS lines per shard, shard k holding
# the items k, k + TASKS, ... of the sorted inputs. They run after a failed job too, to say which items
# failed.
checked=0
python3 - "$TASKS" "$IMAGES" <<'EOF' || checked=$?
import json, os, struct, sys
tasks, images = int(sys.argv[1]), int(sys.argv[2])
problems = []
inputs = sorted(os.path.relpath(os.path.join(d, f), "in") for d, _, fs in os.walk("in") for f in fs)
def output(path):  # in/a/x.jpg -> a/x.png, relative to out/
    return os.path.join(os.path.dirname(path), os.path.splitext(os.path.basename(path))[0] + ".png")
expected = {output(p) for p in inputs}
found = {os.path.relpath(os.path.join(d, f), "out") for d, _, fs in os.walk("out") for f in fs}
if len(inputs) != images:
    problems.append(f"{len(inputs)} inputs, not {images}")
for path in sorted(expected - found):
    problems.append(f"missing output out/{path}")
for path in sorted(found - expected):
    problems.append(f"unexpected file out/{path}")
for path in sorted(expected & found):
    with open(os.path.join("out", path), "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or struct.unpack(">I", head[16:20])[0] != 32:
        problems.append(f"out/{path} is not a 32 px wide PNG")
seen, not_ok = {}, 0
for shard in range(tasks):
    name = f"reports/shard-{shard}.jsonl"
    try:
        lines = open(name).read().splitlines()
    except OSError as error:
        problems.append(f"{name}: {error.strerror}")
        continue
    if len(lines) != images // tasks:
        problems.append(f"{name} has {len(lines)} lines, not {images // tasks}")
    for number, line in enumerate(lines, 1):
        try:
            item = json.loads(line)
        except ValueError:
            problems.append(f"{name}:{number} is not JSON: {line}")
            continue
        key = os.path.relpath(os.path.normpath(item.get("input", "")), "in")
        index = item.get("index")
        if index not in range(len(inputs)) or index % tasks != shard or inputs[index] != key:
            problems.append(f"{name}:{number}: {key} has index {index}: not round-robin over the sorted inputs")
        if key in seen:
            problems.append(f"{key} reported twice ({seen[key]} and {name})")
        seen[key] = name
        outputs = [os.path.relpath(os.path.normpath(o), "out") for o in item.get("outputs", [])]
        if item.get("status") != "ok":
            not_ok += 1
            problems.append(f"{name}:{number}: {key}: {item.get('status')}: {item.get('error', '')}")
        elif outputs != [output(key)]:
            problems.append(f"{name}:{number}: {key} has outputs {item.get('outputs')}, not out/{output(key)}")
for path in sorted(set(inputs) - set(seen)):
    problems.append(f"in/{path} is in no report")
for path in sorted(set(seen) - set(inputs)):
    problems.append(f"the reports name {path}, not an input")
total = sum(1 for n in os.listdir("reports") for _ in open(os.path.join("reports", n)))  # cat reports/*
if total != images:
    problems.append(f"the merged report has {total} lines, not {images}")
print(f"cluster-test: {len(expected & found)} of {len(inputs)} outputs, {len(found - expected)} other "
      f"files; merged report: {total} lines, {len(seen)} inputs, {not_ok} not ok")
for problem in problems:
    print("  " + problem, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
[[ $job_status -eq 0 ]] || fail "sbatch --wait ended with status $job_status: $(cat sbatch.out)"
[[ $checked -eq 0 ]] || fail "the outputs or reports are not as expected"
echo "cluster-test: passed"

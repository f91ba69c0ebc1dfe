#!/usr/bin/env bash
# A real single-node Slurm on 127.0.0.1, started and stopped here (Debian 12's slurmctld, slurmd,
# slurmdbd, slurm-client, munge and mariadb-server; nothing is installed):
#   1. munged with a key and socket of its own, MariaDB on a data directory of its own, slurmdbd
#      (accounting_storage/mysql), slurmctld and slurmd (one node, `localhost`, CPUs from nproc, two
#      GPUs as gres on stand-in device files when mknod works), all bound to loopback, configs in
#      a temp dir; the cluster registered with sacctmgr
#   2. a short job (sbatch --wrap 'sleep 2', two GPUs); once sacct reports it COMPLETED,
#      `gpucost extract --slurm-job ID` with a telemetry CSV generated around its start and end:
#      the window is the job's (chosen_by slurm) and the job record is sacct's; breakeven shows
#      the job line; an unknown job is a clear error
#   3. tools/fleet/extract-array.sbatch under `sbatch --array`, then merge.sbatch as a dependent
#      job: the hosts' documents and the merged one equal gpucost extract and merge run directly
# Cleans up (daemons, temp dir) on exit, also on failure. Exit 0 pass, 77 skipped (not root, or
# a binary missing), else fail.
#   slurm_e2e.sh GPUCOST TESTDATA
set -euo pipefail
gpucost=$(realpath "$1")
testdata=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/../../tools/fleet" && pwd)

skip() { echo "SKIPPED: slurm: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "not root: the daemons were not started (run as root; .ci/run does)"
for b in munged munge mariadbd mariadb-install-db mariadb slurmdbd slurmctld slurmd sacct sacctmgr sbatch sinfo \
         scontrol python3 jq; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
    skip "$b is not installed (apt-get install slurmctld slurmd slurmdbd slurm-client munge mariadb-server jq; .ci/run installs them)"
done
PATH="$(dirname "$gpucost"):$PATH:/usr/sbin"

work=$(mktemp -d)
chmod 755 "$work"
started=$(date +%s)
cleanup() {
  local f
  # The daemons in the order they depend on each other; each by the pid it wrote.
  for f in run/slurmd.pid run/slurmctld.pid run/slurmdbd.pid db/mysqld.pid munge/munged.pid; do
    if [ -s "$work/$f" ]; then kill "$(cat "$work/$f")" 2>/dev/null || true; fi
  done
  for f in run/slurmd.pid run/slurmctld.pid run/slurmdbd.pid db/mysqld.pid munge/munged.pid; do
    for _ in $(seq 50); do
      [ -s "$work/$f" ] && kill -0 "$(cat "$work/$f")" 2>/dev/null || break
      sleep 0.1
    done
  done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export TZ=UTC LC_ALL=C
mkdir -p etc state spool log run munge db fakedev out
fail() {
  echo "FAIL: slurm: $*" >&2
  for l in log/*.log db/err.log; do [ -f "$l" ] && { echo "--- $l" >&2; tail -5 "$l" >&2; }; done
  exit 1
}
# wait_for SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it succeeds.
wait_for() {
  local limit=$1 what=$2 i
  shift 2
  for ((i = 0; i < limit * 5; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  fail "$what did not happen within $limit s"
}

read -r db_port dbd_port ctld_port slurmd_port < <(python3 -c 'import socket
s=[socket.socket() for _ in range(4)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))') || fail "no free port on 127.0.0.1"

# 1. munge: a key and a socket of the test's own.
chmod 700 munge
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 status=none
chmod 600 munge/munge.key
munged -f --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/seed" || fail "munged did not start"
chmod 755 munge

# MariaDB on loopback, its data here; slurmdbd's user made through the root socket.
mariadb-install-db --no-defaults --datadir="$work/db/data" --user=root --auth-root-authentication-method=socket \
  --skip-test-db > db/install.log 2>&1 || fail "mariadb-install-db: $(tail -3 db/install.log)"
mariadbd --no-defaults --datadir="$work/db/data" --user=root --bind-address=127.0.0.1 --port="$db_port" \
  --socket="$work/db/mysqld.sock" --pid-file="$work/db/mysqld.pid" --log-error="$work/db/err.log" \
  --skip-name-resolve --innodb-buffer-pool-size=64M > /dev/null 2>&1 &
wait_for 60 "MariaDB answering" mariadb-admin --no-defaults --socket="$work/db/mysqld.sock" -uroot ping
mariadb --no-defaults --socket="$work/db/mysqld.sock" -uroot \
  -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'gpucost-test'; GRANT ALL ON *.* TO 'slurm'@'127.0.0.1';" ||
  fail "cannot create the slurmdbd user"

# Two GPUs as gres on stand-in character devices (gres/gpu needs device files; nothing opens them).
gres=""
if mknod fakedev/nvidia0 c 1 3 2>/dev/null && mknod fakedev/nvidia1 c 1 3 2>/dev/null; then
  gres="gpu:a100:2"
  echo "NodeName=localhost Name=gpu Type=a100 File=$work/fakedev/nvidia[0-1]" > etc/gres.conf
else
  echo "note: mknod is not allowed here: the job runs without GPUs (no gres/gpu in AllocTRES)"
fi
mem_mb=$(awk '/^MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
[ "$mem_mb" -ge 2500 ] || skip "the array script asks for 2G of memory; this machine has ${mem_mb} MB usable"

cat > etc/slurmdbd.conf <<EOF
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
LogFile=$work/log/slurmdbd.log
PidFile=$work/run/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=gpucost-test
StorageLoc=slurm_acct_db
EOF
chmod 600 etc/slurmdbd.conf
cat > etc/slurm.conf <<EOF
ClusterName=gpucosttest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=1
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$work/munge/munge.sock
AccountingStorageTRES=gres/gpu,gres/gpu:a100
GresTypes=gpu
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem_mb${gres:+ Gres=$gres} State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/etc/slurm.conf"
slurmdbd || fail "slurmdbd did not start"
wait_for 30 "slurmdbd answering sacctmgr" sacctmgr -n list cluster
sacctmgr -i add cluster gpucosttest > /dev/null || fail "sacctmgr add cluster"
slurmctld || fail "slurmctld did not start"
slurmd -N localhost || fail "slurmd did not start"
wait_for 30 "the node idle" bash -c 'sinfo -h -n localhost -o %T | grep -qx idle'
echo "slurm up in $(($(date +%s) - started)) s (gres: ${gres:-none})"

# job_state ID: the allocation's state as sacct has it.
job_state() { sacct -j "$1" -X -n -P -o State | head -1; }
# wait_done ID...: every job COMPLETED (fails on another end state).
wait_done() {
  local id s i
  for id in "$@"; do
    for ((i = 0; i < 300; i++)); do
      s=$(job_state "$id")
      case $s in
        COMPLETED) break ;;
        FAILED* | CANCELLED* | TIMEOUT* | NODE_FAIL* | OUT_OF_MEMORY*) fail "job $id ended $s: $(cat ./*.out 2>/dev/null | tail -5)" ;;
      esac
      sleep 0.2
    done
    [ "$s" = COMPLETED ] || fail "job $id is $s after 60 s"
  done
}

# 2. One job, read back with --slurm-job.
job=$(sbatch --parsable ${gres:+--gres=gpu:2} --output="$work/job-%j.out" --wrap 'sleep 2') || fail "sbatch"
wait_done "$job"
read -r start end < <(TZ=UTC SLURM_TIME_FORMAT=%s sacct -j "$job" -X -n -P -o Start,End | tr '|' ' ')
# Telemetry of the node's two GPUs, 1 s apart, from 20 s before the job to 20 s after it.
python3 - "$start" "$end" > telemetry.csv <<'EOF'
import sys, time
start, end = int(sys.argv[1]), int(sys.argv[2])
print("timestamp, index, name, power.draw [W], utilization.gpu [%]")
for t in range(start - 20, end + 21):
    for g in range(2):
        busy = start <= t <= end
        print(time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(t)) + f".{g:03d}, {g}, NVIDIA A100-SXM4-80GB, "
              f"{300 + 7 * g if busy else 60} W, {90 if busy else 0} %")
EOF
gpucost extract -q --tz UTC --slurm-job "$job" telemetry.csv -o job.json || fail "extract --slurm-job $job exited $?"
jq -e --arg id "$job" --argjson from "${start}000000000" --argjson to "${end}000000000" --arg gres "$gres" '
  .window.chosen_by == "slurm" and .window.from_ns == $from and .window.to_ns == $to and (.jobs | length) == 1 and
  .jobs[0].id == $id and .jobs[0].state == "COMPLETED" and .jobs[0].exit_code == 0 and .jobs[0].user == "root" and
  .jobs[0].nodes == ["localhost"] and .jobs[0].name == "wrap" and .jobs[0].energy_j == null and
  (if $gres == "" then .jobs[0].gpus == null else .jobs[0].gpus == 2 end) and (.gpus | length) == 2' job.json \
  > /dev/null || fail "the job's window or record in job.json: $(jq -c '{window, jobs}' job.json)"
gpucost breakeven -q --full --config "$testdata/samples/a100x2.toml" --slurm-job "$job" telemetry.csv > breakeven.txt ||
  fail "breakeven --slurm-job exited $?"
grep -q "^slurm     job $job (wrap) of root on localhost, " breakeven.txt || fail "no job line: $(head -4 breakeven.txt)"
grep -q "energy not measured by Slurm" breakeven.txt || fail "Slurm's energy: $(head -4 breakeven.txt)"
rc=0
gpucost extract -q --slurm-job 999999 telemetry.csv -o none.json 2> unknown.err || rc=$?
{ [ "$rc" -eq 2 ] && grep -q "sacct knows no such job" unknown.err; } || fail "an unknown job: exit $rc: $(cat unknown.err)"
echo "job $job: window $(jq -r '.window.from + " .. " + .window.to' job.json), $(jq -c '.jobs[0] | {gpus, state}' job.json)"

# 3. The fleet recipe of docs/fleet.md under a real sbatch --array.
hosts=(node01 node02 node03)
opts=(--tz UTC --from 2024-06-12T10:00:00Z --to 2024-06-12T10:05:00Z)
for i in "${!hosts[@]}"; do
  h=${hosts[$i]}
  mkdir -p "logs/$h"
  awk -v gpus=$((i + 1)) -v seed="$i" 'BEGIN {
    print "timestamp, index, name, power.draw [W], utilization.gpu [%], temperature.gpu"
    for (s = 0; s < 300; s++)
      for (g = 0; g < gpus; g++) {
        k = s * 7 + g * 13 + seed * 31
        printf "2024/06/12 10:%02d:%02d.%03d, %d, NVIDIA H100 80GB HBM3, %.2f W, %d %%, %d\n", int(s / 60), s % 60, g, g,
               90 + k % 600, (k * 3) % 101, 45 + k % 40
      }
  }' > "logs/$h/telemetry.csv"
done
for h in "${hosts[@]}"; do echo "$h  $work/logs/$h/telemetry.csv"; done > shards.txt
export GPUCOST="$gpucost"
array=$(sbatch --parsable --array=0-$((${#hosts[@]} - 1)) --chdir="$work" "$tools/extract-array.sbatch" shards.txt out \
  "${opts[@]}") || fail "sbatch --array"
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --chdir="$work" \
  "$tools/merge.sbatch" shards.txt out --config "$testdata/samples/a100x2.toml") || fail "sbatch merge"
wait_done "${array}_0" "${array}_1" "${array}_2" "$merge"
mkdir -p ref
for h in "${hosts[@]}"; do
  gpucost extract -q "${opts[@]}" --host "$h" "logs/$h/telemetry.csv" -o "ref/$h.json" || fail "direct extract of $h"
  cmp -s "out/hosts/$h.json" "ref/$h.json" || fail "out/hosts/$h.json (array task) differs from extract run directly"
done
gpucost merge ref/node0?.json -o ref-fleet.json || fail "merge of the direct documents"
cmp -s ref-fleet.json out/fleet.json || fail "out/fleet.json (merge.sbatch) differs from the merge of the direct documents"
jq -n -r --slurpfile w ref-fleet.json --slurpfile m out/fleet.json -f "$here/../fleet/whole_vs_merge.jq" > same.txt ||
  fail "jq whole_vs_merge"
! grep -q '^FAIL' same.txt || fail "fleet.json: $(grep '^FAIL' same.txt | head -3)"
grep -q '6 GPUs, host node01,node02,node03' out/breakeven.txt || fail "merge.sbatch's breakeven: $(head -6 out/breakeven.txt)"
echo "array job $array (3 tasks) and merge job $merge: the documents equal the direct extracts and their merge"
echo "PASS: slurm ($(($(date +%s) - started)) s)"

#!/usr/bin/env bash
# The fleet recipes of docs/fleet.md, end to end on generated hosts:
#   parallel      GNU parallel on this machine (`-S :`, parallel's "no ssh" login) over the hosts'
#                 log trees: every extract, the merge, breakeven of the fleet; the merge checked
#                 against the hosts' own documents (sums, max, min, means, every GPU)
#   parallel-ssh  the remote recipes over --sshlogin through a real sshd (Debian's openssh-server,
#                 started here on 127.0.0.1, one port per host, each host a home directory of its
#                 own; needs root): tools/fleet/parallel-extract.sh (--hostgroups, --return,
#                 --cleanup; needs rsync) with a host that fails, and --results (the document on
#                 stdout)
#   slurm-array   tools/fleet/extract-array.sbatch and merge.sbatch run with SLURM_ARRAY_TASK_ID
#                 set by hand (no Slurm here): the same documents as extract run directly
#   halves        one host: extract over the whole log == merge of the extracts of its two
#                 halves, cut as two files (rotation) and as --from/--to windows, through the CLI
#                 (tests/unit/test_extract_catalogue2.cpp checks the library on the same rule)
#   parallel_e2e.sh GPUCOST TESTDATA CASE     exit 0 pass, 77 skipped (a tool is missing), else fail
set -euo pipefail
gpucost=$(realpath "$1")
testdata=$(realpath "$2")
case_name=$3
here=$(cd "$(dirname "$0")" && pwd)
tools=$(cd "$here/../../tools/fleet" && pwd)
work=$(mktemp -d)
sshd_pid_file="$work/ssh/sshd.pid"
cleanup() {
  if [ -s "$sshd_pid_file" ]; then kill "$(cat "$sshd_pid_file")" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work"
export TZ=UTC LC_ALL=C
# GNU parallel keeps its state in ~/.parallel: a HOME of the test's own, where the citation notice
# is already acknowledged (upstream builds ask once, on a terminal; --will-cite is given too).
export HOME="$work/home"
mkdir -p "$HOME/.parallel"
touch "$HOME/.parallel/will-cite"
# The jobs call `gpucost` by name, as the recipes do, locally and on the "remote" hosts.
PATH="$(dirname "$gpucost"):$PATH"
export PATH

fail() { echo "FAIL: $case_name: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $case_name: $*"; exit 77; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed, the recipe was not run ($2)"; }
need jq "apt-get install jq; .ci/run installs it"

hosts=(node01 node02 node03 node04)
# Every host over the same window, as docs/fleet.md recommends: the merge then sums exactly.
opts=(-q --tz UTC --from 2024-06-12T10:00:00Z --to 2024-06-12T10:10:00Z)

# make_host DIR GPUS SEED FORMAT: ten minutes of telemetry from 10:00:00 (query CSV or dmon -o DT,
# 1 s apart, values that vary by GPU and seed; seeds 1 and 4 lose a minute of telemetry) in
# DIR/var/log/gpu/, and DIR/var/log/kern.log with some Xids between harmless lines.
make_host() {
  mkdir -p "$1/var/log/gpu"
  awk -v dir="$1" -v gpus="$2" -v seed="$3" -v fmt="$4" -v host="$(basename "$1")" 'BEGIN {
    tel = dir "/var/log/gpu/" (fmt == "dmon" ? "dmon.log" : "telemetry.csv"); kern = dir "/var/log/kern.log"
    if (fmt == "dmon") {
      print "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk " > tel
      print "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %      %      %    MHz    MHz " > tel
    } else {
      print "timestamp, index, pci.bus_id, name, power.draw [W], temperature.gpu, utilization.gpu [%], utilization.memory [%], memory.used [MiB], clocks.current.sm [MHz], clocks.max.sm [MHz]" > tel
    }
    for (i = 0; i < 600; i++) {
      hh = 10; mm = int(i / 60); ss = i % 60
      if (!(seed % 3 == 1 && i >= 200 && i < 260))
        for (g = 0; g < gpus; g++) {
          k = i * 7 + g * 13 + seed * 31
          util = (i % 11 == 0) ? 0 : (k * 3) % 101
          if (fmt == "dmon")
            printf " 20240612   %02d:%02d:%02d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d %6d \n", hh, mm, ss, g,
                   90 + k % 600, 45 + k % 40, 50 + k % 30, util, (k * 5) % 101, 0, 0, 0, 0, 2619, 1200 + (k * 11) % 780 > tel
          else
            printf "2024/06/12 %02d:%02d:%02d.%03d, %d, 00000000:%02X:00.0, NVIDIA H100 80GB HBM3, %.2f W, %d, %d %%, %d %%, %d MiB, %d MHz, 1980 MHz\n",
                   hh, mm, ss, 10 * g, g, 24 + g, 90 + k % 600 + 0.25 * g, 45 + k % 40, util, (k * 5) % 101, 1000 + k % 70000,
                   1200 + (k * 11) % 780 > tel
        }
      if ((i + seed) % 97 == 5)
        printf "2024-06-12T%02d:%02d:%02d.500000+00:00 %s kernel: [ %d.500000] NVRM: Xid (PCI:0000:%02X:00): 13, pid=4242, name=python, Graphics SM Warp Exception\n",
               hh, mm, ss, host, 1000 + i, 24 + i % gpus > kern
      else if (i % 13 == 0)
        printf "2024-06-12T%02d:%02d:%02d.500000+00:00 %s kernel: [ %d.500000] usb 1-2: new high-speed USB device number %d\n",
               hh, mm, ss, host, 1000 + i, i % 100 > kern
    }
  }'
}

# make_fleet BASE: the four hosts under BASE/HOST (1, 2, 2 and 4 GPUs; node03 logs dmon).
make_fleet() {
  make_host "$1/node01" 1 1 csv
  make_host "$1/node02" 2 2 csv
  make_host "$1/node03" 2 4 dmon
  make_host "$1/node04" 4 5 csv
}

# direct BASE OUTDIR: each host's document from gpucost extract run directly (the reference).
direct() {
  mkdir -p "$2"
  for h in "${hosts[@]}"; do
    gpucost extract "${opts[@]}" --host "$h" "$1/$h/var/log/gpu/*" "$1/$h/var/log/kern.log" -o "$2/$h.json" ||
      fail "direct extract of $h"
  done
}

# same_docs DIR REFDIR: every host's document in DIR is byte-identical to the reference.
same_docs() {
  for h in "${hosts[@]}"; do
    [ -f "$1/$h.json" ] || fail "no document for $h in $1"
    cmp -s "$1/$h.json" "$2/$h.json" || fail "$1/$h.json differs from gpucost extract run directly"
  done
}

# check_fleet MERGED DOC...: the merge against the hosts' documents (tests/fleet/fleet_sums.jq).
check_fleet() {
  local merged=$1
  shift
  gpucost extract --list --json > catalogue.json
  cat "$@" > hosts.jsonl
  jq -n -r --slurpfile cat catalogue.json --slurpfile m "$merged" --slurpfile h hosts.jsonl \
    -f "$here/fleet_sums.jq" > sums.txt || fail "jq on $merged"
  if grep '^FAIL' sums.txt >&2; then fail "$merged is not the combination of the $# hosts' documents (above)"; fi
  for k in energy_kwh samples xid_count gpu_count downtime_s; do
    grep -qx "ok sum $k" sums.txt || fail "host $k was not compared as a sum (null in a document?)"
  done
  [ "$(jq '.host.indicators.xid_count.value > 0' "$merged")" = true ] || fail "no Xid in the generated logs"
  echo "merge of $# hosts: every GPU's indicators kept; host indicators:" \
    "$(grep -c '^ok sum' sums.txt) summed, $(grep -c '^ok max' sums.txt) max, $(grep -c '^ok min' sums.txt) min," \
    "$(grep -c '^ok mean' sums.txt) means over the GPUs, as the hosts' documents give them"
}

# joblog_ok FILE N: GNU parallel's --joblog lists N jobs, each with exit status 0.
joblog_ok() {
  local jobs
  jobs=$(awk -F'\t' 'NR > 1 && $7 == 0 && $8 == 0' "$1" | wc -l)
  [ "$jobs" -eq "$2" ] || { cat "$1" >&2; fail "$1: $jobs jobs of $2 succeeded"; }
}

# start_sshd ROOT HOST...: a real sshd on 127.0.0.1 with keys made here, one port per host; a
# session on a host's port gets HOME=ROOT/HOST (each host a home of its own, as remote machines
# have) and PATH with this gpucost first. Writes $work/ssh/config, which names the hosts for ssh.
# Stopped by the EXIT trap. Skips the case when not root (sshd's privilege separation and the
# login as root need it) or when openssh-server is missing.
start_sshd() {
  local root=$1 h port i=0 ports
  shift
  [ "$(id -u)" -eq 0 ] || skip "not root: a real sshd was not started (run as root; .ci/run does)"
  [ -x /usr/sbin/sshd ] || skip "sshd is not installed, the recipe was not run (apt-get install openssh-server; .ci/run installs it)"
  need ssh "apt-get install openssh-client"
  mkdir -p "$work/ssh" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/host_key" || fail "ssh-keygen (host key)"
  ssh-keygen -q -t ed25519 -N '' -f "$work/ssh/user_key" || fail "ssh-keygen (user key)"
  cp "$work/ssh/user_key.pub" "$work/ssh/authorized_keys"
  ports=$(python3 -c 'import socket,sys
socks=[socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$#") || fail "no free port on 127.0.0.1"
  read -r -a ports <<< "$ports"
  {
    echo "ListenAddress 127.0.0.1"
    for port in "${ports[@]}"; do echo "Port $port"; done
    echo "HostKey $work/ssh/host_key"
    echo "PidFile $sshd_pid_file"
    echo "AuthorizedKeysFile $work/ssh/authorized_keys"
    echo "PermitRootLogin prohibit-password"
    echo "PasswordAuthentication no"
    echo "KbdInteractiveAuthentication no"
    echo "UsePAM no"
    echo "StrictModes no"
    # A Match block's SetEnv replaces the global one: each names HOME and PATH.
    for h in "$@"; do
      mkdir -p "$root/$h"
      echo "Match LocalPort ${ports[$i]}"
      echo "  SetEnv HOME=$root/$h PATH=$(dirname "$gpucost"):/usr/local/bin:/usr/bin:/bin"
      i=$((i + 1))
    done
  } > "$work/ssh/sshd_config"
  i=0
  {
    for h in "$@"; do
      printf 'Host %s\n  Port %s\n' "$h" "${ports[$i]}"
      i=$((i + 1))
    done
    printf 'Host *\n  HostName 127.0.0.1\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n' "$work/ssh/user_key"
    printf '  UserKnownHostsFile %s\n  StrictHostKeyChecking accept-new\n  LogLevel ERROR\n' "$work/ssh/known_hosts"
  } > "$work/ssh/config"
  # sshd binds its ports before it detaches: it is ready when this returns.
  /usr/sbin/sshd -f "$work/ssh/sshd_config" -E "$work/ssh/sshd.log" || fail "sshd did not start: $(cat "$work/ssh/sshd.log")"
  ssh -F "$work/ssh/config" -o BatchMode=yes "$1" true || fail "ssh $1 through the test's sshd: $(tail -5 "$work/ssh/sshd.log")"
}

case $case_name in
  parallel)
    need parallel "apt-get install parallel; .ci/run installs it"
    make_fleet logs
    printf '%s\n' "${hosts[@]}" > hosts.txt
    mkdir -p fleet/hosts
    # docs/fleet.md, "Logs collected in one place", on this machine (-S :).
    parallel --will-cite -j2 -S : --joblog fleet/joblog.tsv \
      'gpucost extract -q --tz UTC --from 2024-06-12T10:00:00Z --to 2024-06-12T10:10:00Z --host {} "logs/{}/var/log/gpu/*" logs/{}/var/log/kern.log -o fleet/hosts/{}.json' \
      :::: hosts.txt || fail "parallel exited $?"
    joblog_ok fleet/joblog.tsv 4
    direct logs ref
    same_docs fleet/hosts ref
    gpucost merge 'fleet/hosts/*.json' -o fleet/fleet.json || fail "merge exited $?"
    check_fleet fleet/fleet.json fleet/hosts/*.json
    gpucost breakeven -q --full --config "$testdata/samples/a100x2.toml" fleet/fleet.json -o fleet/breakeven.txt ||
      fail "breakeven of the fleet exited $?"
    grep -q '^job .*9 GPUs, host node01,node02,node03,node04, log times in UTC)' fleet/breakeven.txt ||
      fail "breakeven does not price the 9 GPUs of the 4 hosts: $(grep '^job ' fleet/breakeven.txt)"
    gpucost report --config "$testdata/samples/a100x2.toml" fleet/fleet.json -o fleet/report.html ||
      fail "report of the fleet exited $?"
    ;;
  parallel-ssh)
    need parallel "apt-get install parallel; .ci/run installs it"
    FLEET_ROOT="$work/remote"
    start_sshd "$FLEET_ROOT" "${hosts[@]}" node05
    make_fleet "$FLEET_ROOT"
    printf '%s\n' "${hosts[@]}" > hosts.txt
    direct "$FLEET_ROOT" ref
    # All the hosts are this machine: their logs are named by absolute paths ({} is the host), and
    # parallel's --wd ... runs each job in a scratch directory under that host's own home.
    inputs=("$FLEET_ROOT/{}/var/log/gpu/*" "$FLEET_ROOT/{}/var/log/kern.log")
    export GPUCOST_SSH="ssh -F $work/ssh/config -o BatchMode=yes"
    if command -v rsync >/dev/null 2>&1; then
      # tools/fleet/parallel-extract.sh: docs/fleet.md's recipe with --return and its checks.
      bash "$tools/parallel-extract.sh" hosts.txt fleet "${opts[@]}" "${inputs[@]}" 2> extract.err ||
        fail "parallel-extract.sh exited $?: $(cat extract.err)"
      same_docs fleet/hosts ref
      # Every job ran on its own host (joblog: sshlogin, then the command with --host NAME).
      bound=$(awk -F'\t' 'NR > 1 && $7 == 0 && index($9, "--host " $2 " ")' fleet/joblog.tsv | wc -l)
      [ "$bound" -eq 4 ] || { cat fleet/joblog.tsv >&2; fail "$bound of 4 jobs ran, successfully, on their own host"; }
      leftovers=$(find "$FLEET_ROOT" -name '*.json' | wc -l)
      [ "$leftovers" -eq 0 ] || fail "--cleanup left $leftovers documents on the hosts: $(find "$FLEET_ROOT" -name '*.json')"
      gpucost merge 'fleet/hosts/*.json' -o fleet/fleet.json || fail "merge exited $?"
      check_fleet fleet/fleet.json fleet/hosts/*.json
      # A host whose logs are gone: nothing comes back from it, the script names it and exits 1;
      # the other documents are there.
      mkdir -p "$FLEET_ROOT/node05"
      printf '%s\n' node02 node05 > two.txt
      rc=0
      bash "$tools/parallel-extract.sh" two.txt fleet-fail "${opts[@]}" "${inputs[@]}" 2> fail.err || rc=$?
      { [ "$rc" -eq 1 ] && grep -q "no document from 1 of 2 hosts: node05" fail.err; } ||
        fail "parallel-extract.sh with node05 failing: exit $rc: $(cat fail.err)"
      grep -q "gpucost: error: $FLEET_ROOT/node05/var/log/gpu/\*: no file matches this pattern" fail.err ||
        fail "node05's error did not reach stderr: $(cat fail.err)"
      cmp -s fleet-fail/hosts/node02.json ref/node02.json || fail "node02's document, with node05 failing"
      [ ! -e fleet-fail/hosts/node05.json ] || fail "a document came back from the failed node05"
    else
      echo "note: rsync is not installed: tools/fleet/parallel-extract.sh (--return) was not run (apt-get install rsync)"
    fi
    # docs/fleet.md, "Without rsync": the document comes back on stdout, --results keeps it per host
    # (DIR/HOST/stdout, stderr beside it).
    logins=$(sed 's|^|1/|' hosts.txt | paste -sd, -)
    parallel --will-cite --quote --ssh "$GPUCOST_SSH" -S "$logins" --hostgroups --wd ... \
      --joblog joblog-results.tsv --results 'fleet-results/{}/' \
      gpucost extract "${opts[@]}" --host {} "${inputs[@]}" -o - \
      :::: <(sed 's/.*/&@&/' hosts.txt) > /dev/null || fail "parallel --results exited $?"
    joblog_ok joblog-results.tsv 4
    mkdir -p fleet-results/hosts
    for h in "${hosts[@]}"; do cp "fleet-results/$h/stdout" "fleet-results/hosts/$h.json"; done
    same_docs fleet-results/hosts ref
    gpucost merge ref/node0?.json -o ref-fleet.json || fail "merge of the reference documents"
    gpucost merge 'fleet-results/*/stdout' -o fleet-results/fleet.json || fail "merge exited $?"
    cmp -s ref-fleet.json fleet-results/fleet.json || fail "the fleet's merge differs from the reference"
    ;;
  slurm-array)
    for s in extract-array.sbatch merge.sbatch; do bash -n "$tools/$s" || fail "bash -n $s"; done
    make_fleet "$work/logs"
    {
      echo "# name  inputs (paths or globs, expanded by gpucost)"
      for h in "${hosts[@]}"; do echo "$h  $work/logs/$h/var/log/gpu/*  $work/logs/$h/var/log/kern.log"; done
      echo
    } > shards.txt
    n=$(grep -cEv '^[[:space:]]*(#|$)' shards.txt)
    [ "$n" -eq 4 ] || fail "the doc's shard count gives $n, want 4"
    # What `sbatch --array=0-$((n - 1))` runs, one task after the other.
    for ((i = 0; i < n; i++)); do
      SLURM_ARRAY_TASK_ID=$i GPUCOST=$gpucost bash "$tools/extract-array.sbatch" shards.txt out "${opts[@]}" 2> "task$i.err" ||
        fail "array task $i exited $?: $(cat "task$i.err")"
    done
    direct "$work/logs" ref
    same_docs out/hosts ref
    rc=0
    SLURM_ARRAY_TASK_ID=$n bash "$tools/extract-array.sbatch" shards.txt out "${opts[@]}" 2> extra.err || rc=$?
    { [ "$rc" -eq 2 ] && grep -q "has no shard $((n + 1))" extra.err; } || fail "a task beyond the list: exit $rc: $(cat extra.err)"
    rc=0
    bash "$tools/extract-array.sbatch" shards.txt out 2> notask.err || rc=$?
    { [ "$rc" -ne 0 ] && grep -q "not a Slurm array task" notask.err; } || fail "without SLURM_ARRAY_TASK_ID: exit $rc: $(cat notask.err)"
    # The dependent merge job, with breakeven options.
    GPUCOST=$gpucost bash "$tools/merge.sbatch" shards.txt out --full --config "$testdata/samples/a100x2.toml" 2> merge.err ||
      fail "merge.sbatch exited $?: $(cat merge.err)"
    gpucost merge ref/node0?.json -o ref-fleet.json || fail "merge of the reference documents"
    cmp -s ref-fleet.json out/fleet.json || fail "out/fleet.json differs from the merge of the reference documents"
    grep -q '^job .*9 GPUs, host node01,node02,node03,node04, log times in UTC)' out/breakeven.txt ||
      fail "merge.sbatch's breakeven: $(grep '^job ' out/breakeven.txt)"
    check_fleet out/fleet.json out/hosts/node0?.json
    # A shard whose task failed: the merge job names it and fails.
    rm out/hosts/node03.json
    rc=0
    GPUCOST=$gpucost bash "$tools/merge.sbatch" shards.txt out 2> missing.err || rc=$?
    { [ "$rc" -eq 2 ] && grep -q "no document for 1 shard(s): node03" missing.err; } ||
      fail "merge.sbatch with node03 missing: exit $rc: $(cat missing.err)"
    ;;
  halves)
    make_host solo 2 4 csv
    log=solo/var/log/gpu/telemetry.csv
    kern=solo/var/log/kern.log
    # (1) Two files, as a rotation cuts them: rows before 10:05:00 and the rest, each with its header.
    { head -1 "$log"; awk 'NR > 1 && $2 < "10:05:00"' "$log"; } > part1.csv
    { head -1 "$log"; awk 'NR > 1 && $2 >= "10:05:00"' "$log"; } > part2.csv
    awk '{ t = substr($1, 12, 8) } t < "10:05:00" { print > "part1.log" } t >= "10:05:00" { print > "part2.log" }' "$kern"
    # A kernel event between the first part's last sample and the second's first lies in neither
    # window (docs/fleet.md): the cut must not leave one there.
    ! grep 'T10:04:59' "$kern" | grep -q NVRM || fail "the generated kern.log has an Xid inside the cut"
    gpucost extract -q --tz UTC --host solo "$log" "$kern" -o whole.json || fail "extract of the whole"
    gpucost extract -q --tz UTC --host solo part1.csv part1.log -o part1.json || fail "extract of part 1"
    gpucost extract -q --tz UTC --host solo part2.csv part2.log -o part2.json || fail "extract of part 2"
    gpucost merge part2.json part1.json -o merged.json || fail "merge of the parts exited $?"
    # (2) Consecutive --from/--to windows over the same files; the first ends 1 ms before the second.
    gpucost extract "${opts[@]}" --host solo "$log" "$kern" -o whole-w.json || fail "extract of the whole window"
    gpucost extract -q --tz UTC --from 2024-06-12T10:00:00Z --to 2024-06-12T10:04:59.999Z --host solo "$log" "$kern" \
      -o window1.json || fail "extract of window 1"
    gpucost extract -q --tz UTC --from 2024-06-12T10:05:00Z --to 2024-06-12T10:10:00Z --host solo "$log" "$kern" \
      -o window2.json || fail "extract of window 2"
    gpucost merge window1.json window2.json -o merged-w.json || fail "merge of the windows exited $?"
    for pair in "whole.json merged.json files" "whole-w.json merged-w.json windows"; do
      read -r w m how <<< "$pair"
      jq -n -r --slurpfile w "$w" --slurpfile m "$m" -f "$here/whole_vs_merge.jq" > "same-$how.txt" || fail "jq on $m"
      if grep '^FAIL' "same-$how.txt" >&2; then fail "cut as $how: the merge of the halves differs from the whole (above)"; fi
      for k in energy_kwh samples xid_count coverage gap_count power_p95_w fb_used_mean_mib \
               sample_interval_median_s; do  # the quantiles through their sketches
        grep -qx "ok host $k" "same-$how.txt" || fail "cut as $how: host $k was not compared"
      done
      echo "cut as $how: $(grep -c '^ok' "same-$how.txt") values equal to the whole's," \
        "$(grep -c '^unmergeable' "same-$how.txt") null as not mergeable from summaries"
    done
    [ "$(jq '.host.indicators.xid_count.value > 0 and .host.indicators.gap_count.value > 0' whole.json)" = true ] ||
      fail "the generated log has no Xid or no gap"
    ;;
  *) fail "unknown case (parallel, parallel-ssh, slurm-array, halves)" ;;
esac
echo "PASS: $case_name"

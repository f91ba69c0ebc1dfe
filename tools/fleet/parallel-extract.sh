#!/usr/bin/env bash
# gpucost extract on every host of a list, over ssh with GNU parallel; the documents come back
# to OUTDIR/hosts/HOST.json (docs/fleet.md, section 2).
#
#   tools/fleet/parallel-extract.sh HOSTS OUTDIR [extract options] INPUT...
#   e.g. tools/fleet/parallel-extract.sh hosts.txt fleet --from "$from" --to "$to" '/var/log/gpu/*.csv' /var/log/kern.log
#
# HOSTS: one host name per line, as ssh knows it (blank lines and '#' comments skipped); each
# becomes the document's --host. The options and inputs reach gpucost on the host exactly as
# given here (parallel --quote): quote globs once, gpucost expands them there. The hosts need
# perl, rsync and gpucost on the ssh user's PATH (or GPUCOST: its path there); this machine
# needs GNU parallel and rsync.
# GPUCOST_SSH is the ssh command (default: ssh -o BatchMode=yes, so a password prompt fails
# instead of waiting). Every host runs its one job at the same time.
#
# Exit status: 0 when every host's document came back; 1 when some did not (named on stderr,
# with parallel's joblog in OUTDIR/joblog.tsv); 2 for a usage error.
set -euo pipefail

if [ $# -lt 3 ]; then
  echo "usage: $0 HOSTS OUTDIR [extract options] INPUT..." >&2
  exit 2
fi
hosts_file=$1
outdir=$2
shift 2
command -v parallel >/dev/null 2>&1 || { echo "parallel-extract: GNU parallel is not installed" >&2; exit 2; }
mapfile -t hosts < <(grep -Ev '^[[:space:]]*(#|$)' "$hosts_file" | awk '{ print $1 }')
if [ "${#hosts[@]}" -eq 0 ]; then
  echo "parallel-extract: $hosts_file lists no host" >&2
  exit 2
fi

mkdir -p "$outdir/hosts"
outdir=$(cd "$outdir" && pwd)
# A document left by an earlier run must not pass for this run's.
for h in "${hosts[@]}"; do rm -f "$outdir/hosts/$h.json"; done

logins=$(printf '1/%s\n' "${hosts[@]}" | paste -sd, -)
jobs=()
for h in "${hosts[@]}"; do jobs+=("$h@$h"); done
status=0
# 1/HOST: one job at a time there, and no probe of its CPU count. --hostgroups with the
# arguments HOST@HOST: each job runs on its own host only. --wd ...: in a fresh directory under
# ~/.parallel/tmp there, removed with the document by --cleanup once --return has copied it.
(cd "$outdir/hosts" &&
  parallel --will-cite --quote --ssh "${GPUCOST_SSH:-ssh -o BatchMode=yes}" -S "$logins" --hostgroups \
    --wd ... --return {}.json --cleanup --joblog "$outdir/joblog.tsv" \
    "${GPUCOST:-gpucost}" extract -q --host {} "$@" -o {}.json \
    ::: "${jobs[@]}") || status=$?

missing=()
for h in "${hosts[@]}"; do [ -s "$outdir/hosts/$h.json" ] || missing+=("$h"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "parallel-extract: no document from ${#missing[@]} of ${#hosts[@]} hosts: ${missing[*]} (parallel's status $status; joblog $outdir/joblog.tsv)" >&2
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "parallel-extract: every document came back but parallel exited $status (joblog $outdir/joblog.tsv)" >&2
  exit 1
fi
echo "parallel-extract: ${#hosts[@]} documents in $outdir/hosts" >&2

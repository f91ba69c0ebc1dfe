#!/usr/bin/env bash
# A stand-in for ssh, for GNU parallel's --ssh in tests/fleet/parallel_e2e.sh: "logs in" to HOST by
# running the command in $FLEET_ROOT/HOST (the host's home and login directory) on this machine,
# so each host has its own files, as remote machines do. Understands what parallel and rsync pass:
#   stand_in_ssh.sh [-l USER|-p PORT|-o OPT|-x ...] HOST [--] COMMAND...
set -euo pipefail
host=""
while [ $# -gt 0 ]; do
  case $1 in
    -l | -p | -o | -i | -F | -S | -E | -c | -m | -b | -J) shift 2 ;;
    --) shift; break ;;
    -*) shift ;;
    *) host=$1; shift; break ;;
  esac
done
[ -n "$host" ] || { echo "stand_in_ssh: no host" >&2; exit 255; }
[ "${1:-}" = "--" ] && shift
[ -d "$FLEET_ROOT/$host" ] || { echo "stand_in_ssh: $host: no such host (no $FLEET_ROOT/$host)" >&2; exit 255; }
cd "$FLEET_ROOT/$host"
# What sshd gives every session: the user's home and login shell. GNU parallel's remote worker
# runs the job with $SHELL, and with none it runs nothing and still exits 0 (a CI job started
# without SHELL showed it), so the stand-in sets it as sshd would.
export HOME="$PWD"
SHELL=$(getent passwd "$(id -un)" | cut -d: -f7)
export SHELL="${SHELL:-/bin/sh}"
# ssh hands the remote shell its arguments joined by spaces.
exec bash -c "$*"

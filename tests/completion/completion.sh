#!/usr/bin/env bash
# The bash completion and the man page's SYNOPSIS and OPTIONS, generated from gpucost's option
# definitions by `gpucost completion bash|man`.   completion.sh GPUCOST SOURCE_DIR CASE
#   bash-in-sync     tools/completion/gpucost.bash is what gpucost generates
#   man-in-sync      so are the generated regions of docs/gpucost.1
#                    (both: GPUCOST_UPDATE_GOLDEN=1 rewrites the checked-in copy instead)
#   offers-accepted  every option the script offers for a subcommand is accepted by it (parsed by
#                    `gpucost completion check`, which runs nothing), with a value when the
#                    script says it takes one and refused without it
#   bash-norc        the script completes in `bash --norc` without the bash-completion package
#   bash-completion  and with it (SKIPPED when /usr/share/bash-completion is not installed)
#   lint             the script (and this test) pass shellcheck (SKIPPED without it)
set -uo pipefail
gpucost=$1
src=$2
case_name=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { printf 'FAIL: %b\n' "$*" >&2; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }
regen="GPUCOST_UPDATE_GOLDEN=1 ctest --test-dir BUILD -R completion.$case_name"

"$gpucost" completion bash > "$tmp/gpucost.bash" || fail "gpucost completion bash failed"

# What the completion offers for a command line, the cursor at its end, one candidate a line.
# The words are split as bash splits them (at blanks, and --option=value at the '=').
cat > "$tmp/harness.bash" <<'EOF'
# compopt only works while readline runs a completion; here the function is called directly.
compopt() { :; }
complete_line() {
  local line=$1 w
  local -a split
  read -ra split <<< "$line"
  [[ $line == *" " || -z $line ]] && split+=("")
  COMP_WORDS=()
  for w in "${split[@]}"; do
    if [[ $w == -*=* ]]; then
      COMP_WORDS+=("${w%%=*}" "=")
      [[ -n ${w#*=} ]] && COMP_WORDS+=("${w#*=}")
    else
      COMP_WORDS+=("$w")
    fi
  done
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line
  COMP_POINT=${#line}
  COMPREPLY=()
  _gpucost
  ((${#COMPREPLY[@]} == 0)) || printf '%s\n' "${COMPREPLY[@]}"
}
# expect LINE WORD...: the candidates are exactly these words (in any order).
expect() {
  local line=$1 got want
  shift
  got=$(complete_line "$line" | sort | tr '\n' ' ')
  want=$( (($# == 0)) || printf '%s\n' "$@" | sort | tr '\n' ' ')
  [[ $got == "$want" ]] || { echo "FAIL: '$line<TAB>' offers '$got', expected '$want'" >&2; failed=1; }
}
# offers LINE WORD...: the candidates include these words; lacks LINE WORD...: they do not.
offers() {
  local line=$1 w got
  shift
  got=" $(complete_line "$line" | tr '\n' ' ') "
  for w; do [[ $got == *" $w "* ]] || { echo "FAIL: '$line<TAB>' does not offer $w (offers:$got)" >&2; failed=1; }; done
}
lacks() {
  local line=$1 w got
  shift
  got=" $(complete_line "$line" | tr '\n' ' ') "
  for w; do [[ $got != *" $w "* ]] || { echo "FAIL: '$line<TAB>' offers $w" >&2; failed=1; }; done
}
failed=0
EOF

# The checks both bash-norc and bash-completion run, in a folder with known files.
cat > "$tmp/checks.bash" <<'EOF'
g=$GPUCOST
mkdir -p work/runs work/rundir && cd work || exit 1
touch costs.toml notes.txt big.log
expect "$g rep" report
offers "$g " prep extract merge breakeven history report batch record trace completion
expect "$g --v" --version
offers "$g report --" --config --set --cloud --fill --from --to --temp-threshold --generated-at --output --help
lacks "$g report --" --compare-clouds --mc --seed --list-clouds --json --fail-above
lacks "$g batch --" --compare-clouds --mc --seed --list-clouds
lacks "$g record --" --compare-clouds --mc --seed --list-clouds --input-format --strict
offers "$g breakeven --" --compare-clouds --mc --seed --list-clouds --json --ledger-append
expect "$g prep --output-format " jsonl tsv
expect "$g prep --output-format t" tsv
expect "$g prep --output-format=" jsonl tsv
expect "$g prep --output-format=j" jsonl
expect "$g breakeven --fill i" idle
expect "$g extract --input-format dm" dmon dmesg
expect "$g completion " bash man
expect "$g breakeven -c " costs.toml runs rundir
expect "$g breakeven --config c" costs.toml
expect "$g prep b" big.log
expect "$g prep --tz UTC n" notes.txt
expect "$g record --run-dir r" runs rundir
expect "$g breakeven --mc " 
expect "$g breakeven --from " 
expect "$g prep --strict no" notes.txt
offers "$g history " --ledger --since --csv
offers "$g breakeven --cloud aws-g5." aws-g5.xlarge aws-g5.12xlarge
offers "$g record -- ech" echo
expect "$g record -- echo b" big.log
if [[ -d /usr/share/zoneinfo/Europe ]]; then
  offers "$g prep --tz Europe/Par" Europe/Paris
  offers "$g history --tz Etc/UT" Etc/UTC
fi
EOF

run_bash() {  # a bash without startup files or bash-completion, running the harness, the script and $1
  env -i PATH="$PATH" HOME="$tmp" GPUCOST="$gpucost" LC_ALL=C bash --norc --noprofile -c \
    "cd '$tmp' && . ./harness.bash && $1 && . ./checks.bash && exit \$failed" > "$tmp/out" 2> "$tmp/err"
}

case $case_name in
  bash-in-sync)
    want=$src/tools/completion/gpucost.bash
    if [ "${GPUCOST_UPDATE_GOLDEN:-}" = 1 ]; then cp "$tmp/gpucost.bash" "$want"; exit 0; fi
    diff -u "$want" "$tmp/gpucost.bash" ||
      fail "tools/completion/gpucost.bash differs from 'gpucost completion bash' (regenerate: $regen)"
    ;;

  man-in-sync)
    man=$src/docs/gpucost.1
    "$gpucost" completion man > "$tmp/man.gen" || fail "gpucost completion man failed"
    # docs/gpucost.1 with each generated region (between its marker lines) replaced by the new one.
    awk -v gen="$tmp/man.gen" '
      function region_name(line) { split(substr(line, 21), a, ":"); return a[1] }
      BEGIN {
        while ((getline l < gen) > 0) {
          if (index(l, ".\\\" begin generated ") == 1) name = region_name(l)
          if (name != "") text[name] = text[name] l "\n"
          if (index(l, ".\\\" end generated ") == 1) name = ""
        }
      }
      index($0, ".\\\" begin generated ") == 1 { printf "%s", text[region_name($0)]; skip = 1; next }
      skip && index($0, ".\\\" end generated ") == 1 { skip = 0; next }
      !skip { print }
    ' "$man" > "$tmp/gpucost.1" || fail "cannot rewrite $man"
    sed -n 's/^\.\\" begin generated \([a-z]*\):.*/\1/p' "$tmp/man.gen" | while read -r name; do
      grep -q "^\.\\\\\" begin generated $name:" "$man" || fail "docs/gpucost.1 has no generated region '$name'"
    done || exit 1
    if [ "${GPUCOST_UPDATE_GOLDEN:-}" = 1 ]; then cp "$tmp/gpucost.1" "$man"; exit 0; fi
    diff -u "$man" "$tmp/gpucost.1" ||
      fail "docs/gpucost.1 differs from 'gpucost completion man' (regenerate: $regen)"
    if command -v groff > /dev/null; then
      warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1 || true)
      [ -z "$warnings" ] || fail "groff warns about docs/gpucost.1: $warnings"
    fi
    ;;

  offers-accepted)
    # The checker itself refuses what it should.
    "$gpucost" completion check report --compare-clouds 2> /dev/null && fail "completion check accepts report --compare-clouds"
    "$gpucost" completion check prep --no-such-option 2> /dev/null && fail "completion check accepts an unknown option"
    "$gpucost" completion check prep --tz 2> /dev/null && fail "completion check accepts --tz without its value"
    # One line per option offered: SUBCOMMAND OPTION VALUE ('-' when the script says it takes none).
    cd "$tmp" || exit 1
    # shellcheck disable=SC2016  # the script is for the inner bash
    env -i PATH="$PATH" bash --norc --noprofile -c '
      . ./harness.bash && . ./gpucost.bash || exit 1
      for sub in $(complete_line "gpucost "); do
        opts="" valued="" args=""
        _gpucost_spec "$sub" || { echo "no spec for $sub" >&2; exit 1; }
        for opt in $(complete_line "gpucost $sub -"); do
          if [[ " ${valued//[[:space:]]/ } " == *" $opt "* ]]; then
            _gpucost_action "$sub" "$opt"
            value=10  # a number: every option without choices takes it
            [[ $action == words:* ]] && value=${action#words:} && value=${value%% *}
            echo "$sub $opt $value"
          else
            echo "$sub $opt -"
          fi
        done
      done' > "$tmp/offered" 2> "$tmp/err" || fail "listing the offered options failed: $(cat "$tmp/err")"
    [ "$(cut -d' ' -f1 "$tmp/offered" | sort -u | wc -l)" -ge 10 ] || fail "too few subcommands offered: $(cat "$tmp/offered")"
    # One process per check, run $(nproc) at a time: some 400 runs, slow under ASan.
    check_one() {
      if [ "$3" = - ]; then
        "$gpucost" completion check "$1" "$2" 2> /dev/null || echo "gpucost $1 refuses $2, offered by the completion"
      else
        "$gpucost" completion check "$1" "$2" "$3" 2> /dev/null ||
          echo "gpucost $1 refuses $2 $3, offered by the completion"
        "$gpucost" completion check "$1" "$2" 2> /dev/null &&
          echo "gpucost $1 takes $2 without a value, but the completion completes one"
      fi
      return 0
    }
    export -f check_one
    export gpucost
    xargs -P "$(nproc 2>/dev/null || echo 2)" -L 1 bash -c 'check_one "$@"' _ < "$tmp/offered" > "$tmp/problems" ||
      fail "the checks could not run"
    [ -s "$tmp/problems" ] && fail "$(sort "$tmp/problems")"
    checked=$(wc -l < "$tmp/offered")
    echo "PASS: $checked options offered, each accepted by its subcommand"
    ;;

  bash-norc)
    run_bash '! declare -F _init_completion > /dev/null && ! declare -F _filedir > /dev/null && . ./gpucost.bash' ||
      fail "the completion checks failed:
$(cat "$tmp/err" "$tmp/out")"
    [ ! -s "$tmp/err" ] || fail "stderr: $(cat "$tmp/err")"
    echo "PASS: completes without bash-completion"
    ;;

  bash-completion)
    bc=${GPUCOST_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
    [ -f "$bc" ] || skip "the bash-completion package is not installed ($bc)"
    run_bash ". $bc && declare -F _init_completion > /dev/null && . ./gpucost.bash" ||
      fail "the completion checks failed:
$(cat "$tmp/err" "$tmp/out")"
    [ ! -s "$tmp/err" ] || fail "stderr: $(cat "$tmp/err")"
    echo "PASS: completes with bash-completion"
    ;;

  lint)
    command -v shellcheck > /dev/null || skip "shellcheck is not installed"
    shellcheck -s bash "$tmp/gpucost.bash" || fail "shellcheck: the generated script"
    shellcheck -s bash "$0" || fail "shellcheck: this test"
    ;;

  *) fail "unknown case $case_name" ;;
esac

# bash completion for gpucost (installed as share/bash-completion/completions/gpucost).
_gpucost() {
  local cur prev words cword
  _init_completion || return
  local commands="init prep extract merge breakeven history report batch record trace"
  local input="--input-format --tz --date --start --interval --boot-time --year --fields --steps
               --max-line --top-kernels --pattern --host --strict -q --quiet -v --verbose -h --help"
  local model="-c --config --set --cloud --speed-ratio --list-clouds --compare-clouds --mc --seed --from --to"
  local output="--json --fail-above -o --output --explain --suggest --prom --ledger"
  local formats="dmon pmon query-csv journal-json dcgmi smi-q smi-xml syslog dmesg journal-text bug-report
                 kineto-trace torch-table nsys trainlog"

  if [ "$cword" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands --help --version" -- "$cur")
    return
  fi
  case $prev in
    --input-format) mapfile -t COMPREPLY < <(compgen -W "$formats" -- "$cur"); return ;;
    --output-format) mapfile -t COMPREPLY < <(compgen -W "jsonl tsv" -- "$cur"); return ;;
    --tz) mapfile -t COMPREPLY < <(compgen -W "$(cd /usr/share/zoneinfo 2>/dev/null && find . -type f | sed 's|^\./||')" -- "$cur"); return ;;
    --cloud) mapfile -t COMPREPLY < <(compgen -W "$(gpucost breakeven --list-clouds 2>/dev/null | awk 'NR > 1 && NF > 1 && $1 !~ /^List|^check/ {print $1}')" -- "$cur"); return ;;
    -c|--config) _filedir toml; return ;;
    -o|--output|--prom|--ledger|--suggest|--state|--run-dir) _filedir; return ;;
    --date|--start|--interval|--boot-time|--year|--fields|--steps|--max-line|--top-kernels|--pattern|--host|--set|--speed-ratio|--mc|--seed|--from|--to|--since|--interval-ms|--temp-threshold|--generated-at|--gpu|--gpus|--country) return ;;
  esac
  local opts
  case ${words[1]} in
    init) opts="$input --gpu --gpus --country --no-probe -o --output --force" ;;
    prep) opts="$input -o --output --output-format" ;;
    extract) opts="$input --from --to --temp-threshold --chain-window --list --json -o --output" ;;
    merge) opts="-o --output -h --help" ;;
    breakeven) opts="$input $model $output" ;;
    report) opts="$input $model -o --output --temp-threshold --generated-at" ;;
    trace) opts="$input -o --output" ;;
    history) opts="--ledger --host --since --tz --json --csv -o --output -h --help" ;;
    batch) opts="$input $model $output --state --wait" ;;
    record) opts="$model $output --run-dir --interval-ms --" ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
  else
    _filedir
  fi
}
complete -F _gpucost gpucost

# The merge of several hosts' features documents against the documents themselves
# (tests/fleet/parallel_e2e.sh). Inputs: --slurpfile cat (gpucost extract --list --json),
# --slurpfile m (the merged document), --slurpfile h (the hosts' documents; every host extracted
# over the same --from/--to window). Prints "FAIL: ..." per mismatch and "ok RULE KEY" per host
# indicator that was compared. The rules are those of docs/indicators.md ("Merging") and of each
# indicator's "(host: ...)" definition, read from the catalogue, so new indicators are covered.
def close(a; b): (a - b | fabs) <= 1e-9 * ([a | fabs, b | fabs, 1e-300] | max);
def rule(c):
  (c.definition | capture("\\((?<r>host: [^)]*)\\)$").r // null) as $r
  | if $r == null then
      # host-only indicators: counts are summed; so are downtime and pattern durations (Merging, "Summed")
      (if c.key == "gpu_count" or c.unit == "count" or c.key == "downtime_s" or c.key == "pattern_duration_s"
       then "sum" else null end)
    elif $r == "host: sum over GPUs" or $r == "host: sum" then "sum"
    elif $r == "host: max over GPUs" then "max"
    elif $r == "host: min over GPUs" then "min"
    elif $r == "host: mean over GPUs" then "mean"
    else null end;
($m[0]) as $M | ($h) as $H | ($cat[0]) as $C
| ([$H[].gpus[]] | length) as $ngpus
| [
    (if $M.window.from_ns != ([$H[].window.from_ns] | min) then "window.from_ns \($M.window.from_ns) is not the earliest from" else empty end),
    (if $M.window.to_ns != ([$H[].window.to_ns] | max) then "window.to_ns \($M.window.to_ns) is not the latest to" else empty end),
    (if $M.window.merged_from != ($H | length) then "window.merged_from \($M.window.merged_from), want \($H | length)" else empty end),
    (([$H[].host.name] | sort | join(",")) as $names
     | if $M.host.name != $names then "host name \($M.host.name), want \($names)" else empty end),
    (if ($M.gpus | length) != $ngpus then "\($M.gpus | length) GPUs in the merge, \($ngpus) in the hosts" else empty end),
    (if $M.host.indicators.gpu_count.value != $ngpus then "gpu_count \($M.host.indicators.gpu_count.value), want \($ngpus)" else empty end),
    # Every GPU keeps its host and, over the same window, every indicator of its host's document.
    ($H[] as $d | $d.gpus[] as $g
     | ([$M.gpus[] | select(.host == $d.host.name and .gpu == $g.gpu)]) as $found
     | if ($found | length) != 1 then "host \($d.host.name) GPU \($g.gpu): \($found | length) entries in the merge"
       else $found[0].indicators as $mi
         | $g.indicators | keys_unsorted[] as $k
         | ($g.indicators[$k].value) as $want | ($mi[$k].value) as $got
         | if $want == null and $got == null then empty
           elif $want == null or $got == null or (close($want; $got) | not)
           then "host \($d.host.name) GPU \($g.gpu) \($k): merge \($got), host document \($want)"
           else empty end
       end),
    # Host indicators: summed, max, min or mean over all the GPUs, as the catalogue says.
    ($C[] as $c | rule($c) as $r | select($r != null) | $c.key as $k
     | [$H[].host.indicators[$k].value] as $vs
     | ($M.host.indicators[$k].value) as $got
     | select($vs | all(. != null))
     | (if $r == "sum" then ($vs | add)
        elif $r == "max" then ($vs | max)
        elif $r == "min" then ($vs | min)
        else ([$H[].gpus[].indicators[$k].value | select(. != null)]) as $gv
             | if ($gv | length) == 0 then null else ($gv | add / length) end
        end) as $want
     | select($want != null)
     | if $got == null or (close($want; $got) | not)
       then "host \($k) (\($r)): merge \($got), want \($want) from the hosts' documents"
       else "ok \($r) \($k)" end)
  ]
| .[]
| if startswith("ok ") then . else "FAIL: " + . end

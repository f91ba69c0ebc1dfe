# One host's whole log against the merge of the extracts of its consecutive parts
# (tests/fleet/parallel_e2e.sh, case halves). Inputs: --slurpfile w (extract of the whole),
# --slurpfile m (merge of the parts). Every indicator the merge gives must equal the whole's; one
# it leaves null must say "not mergeable" (docs/indicators.md, "Merging"), unless the whole is
# null too. Prints "FAIL: ..." per mismatch and "ok KEY" per value compared.
def close(a; b): (a - b | fabs) <= 1e-9 * ([a | fabs, b | fabs, 1e-300] | max);
def compare(where; w; m):
  (w | keys_unsorted[]) as $k
  | (w[$k].value) as $wv | (m[$k]) as $me
  | if $me == null then "FAIL: \(where) \($k): missing from the merge"
    elif $me.value == null then
      (if $wv == null then empty
       elif ($me.reason // "" | test("not mergeable")) then "unmergeable \(where) \($k)"
       else "FAIL: \(where) \($k): null in the merge (\($me.reason)), \($wv) in the whole" end)
    elif $wv == null then "FAIL: \(where) \($k): \($me.value) in the merge, null in the whole (\(w[$k].reason))"
    elif close($wv; $me.value) then "ok \(where) \($k)"
    else "FAIL: \(where) \($k): merge \($me.value) != whole \($wv)" end;
($w[0]) as $W | ($m[0]) as $M
| (if $W.window.from_ns != $M.window.from_ns or $W.window.to_ns != $M.window.to_ns
   then "FAIL: window \($M.window.from) .. \($M.window.to), whole \($W.window.from) .. \($W.window.to)" else empty end),
  (if $W.host.name != $M.host.name then "FAIL: host \($M.host.name), whole \($W.host.name)" else empty end),
  (if ($W.gpus | map(.gpu)) != ($M.gpus | map(.gpu)) then "FAIL: GPUs \($M.gpus | map(.gpu)), whole \($W.gpus | map(.gpu))" else empty end),
  compare("host"; $W.host.indicators; $M.host.indicators),
  (range($W.gpus | length) as $i | compare("gpu\($W.gpus[$i].gpu)"; $W.gpus[$i].indicators; $M.gpus[$i].indicators))

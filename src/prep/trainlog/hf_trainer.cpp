// The HF Trainer's metric dicts (dialects.hpp).
#include "dialects.hpp"

namespace gpucost::prep::trainlog {

using std::string_view;

// {'loss': ...} step, {'eval_loss': ...} eval, {'train_runtime': ...} end, into the begun
// event; `none` for other dicts (a config printed as a dict) and multi-line dicts. `eval_metrics`:
// the dict holds an evaluation's metrics (the evaluation is over).
DictResult trainer_dict(string_view s, Event& ev, bool& eval_metrics) {
  if (s.size() < 3 || s.front() != '{' || (s[1] != '\'' && s[1] != '"')) return DictResult::none;
  if (s.back() != '}') return DictResult::none;
  const std::size_t phase_at = ev.fields.size();
  ev.add_text("phase", "step");  // the value is known once every key is seen
  bool end = false, eval = false, step = false;
  const bool ok = parse_py_dict(s, [&](string_view k, string_view v) {
    end = end || k == "train_runtime";
    eval = eval || k.starts_with("eval_") || k.starts_with("test_");
    step = step || k == "loss" || k == "learning_rate" || k == "grad_norm" || k == "epoch";
    add_metric(ev, k, v);
  });
  if (!ok) return DictResult::malformed;
  if (!end && !eval && !step) return DictResult::none;
  ev.fields[phase_at].value = end ? "end" : eval ? "eval" : "step";
  eval_metrics = eval;
  return DictResult::event;
}

}  // namespace gpucost::prep::trainlog

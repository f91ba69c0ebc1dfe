// Metrics of training-log lines (common.hpp).
#include "common.hpp"

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

// Keys of the tools mapped onto the event's names (units in the name).
string_view canonical_key(string_view key) {
  struct Map {
    string_view from, to;
  };
  static constexpr Map kKeys[] = {
      {"loss", "loss"},
      {"eval_loss", "eval_loss"},
      {"val_loss", "eval_loss"},
      {"learning_rate", "learning_rate"},
      {"lr", "learning_rate"},
      {"grad_norm", "grad_norm"},
      {"epoch", "epoch"},
      {"step", "step"},
      {"global_step", "step"},
      {"train_runtime", "train_runtime_s"},
      {"eval_runtime", "eval_runtime_s"},
      {"train_samples_per_second", "samples_per_second"},
      {"eval_samples_per_second", "samples_per_second"},
      {"train_steps_per_second", "steps_per_second"},
      {"eval_steps_per_second", "steps_per_second"},
  };
  for (const Map& m : kKeys)  // "Loss", "LR" in hand-written messages
    if (m.from.size() == key.size() && istarts_with(key, m.from)) return m.to;
  return key;
}

bool has_field(const Event& ev, string_view key) {
  for (const Field& f : ev.fields)
    if (f.key == key) return true;
  return false;
}

// "np.float64(0.5)", "tensor(0.5, device='cuda:0')" -> "0.5"; quotes removed from strings.
string_view unwrap_value(string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  const std::size_t open = v.find('(');
  if (open != string_view::npos && open > 0 && v.back() == ')') {
    string_view inner = v.substr(open + 1, v.size() - open - 2);
    return text::trim(inner.substr(0, inner.find(',')));
  }
  return v;
}

}  // namespace

string_view phase_name(Phase p) {
  switch (p) {
    case Phase::start: return "start";
    case Phase::epoch: return "epoch";
    case Phase::step: return "step";
    case Phase::eval: return "eval";
    case Phase::checkpoint: return "checkpoint";
    case Phase::end: return "end";
  }
  return "step";
}

// Keys a metric from the log must not take: the event's own, so they go under "extra".
bool reserved_key(string_view key) {
  static constexpr string_view kOwn[] = {"type",      "ts_ns",   "source",      "host",        "gpu",      "kind",
                                         "extra",     "phase",   "worker",      "level",       "logger",   "message",
                                         "time_from", "pattern", "dur_ns",      "total_steps", "it_per_s", "s_per_it",
                                         "elapsed_s", "path",    "total_epochs"};
  for (const string_view k : kOwn)
    if (k == key) return true;
  Metric m{};
  return metric_from_key(key, m);
}

bool is_number(string_view v) {
  double d = 0;
  bool json = false;
  return text::parse_number(v, d, json) && json;
}

// Adds key=value from the log under its canonical name; numbers unquoted, anything else text.
void add_metric(Event& ev, string_view key, string_view value) {
  const string_view out = canonical_key(key);
  if (out.empty() || has_field(ev, out)) return;
  value = unwrap_value(value);
  const bool extra = out == key && reserved_key(out);
  ev.fields.push_back(Field{out, value, is_number(value), extra});
}

void add_number_text(Event& ev, string_view key, string_view digits) {
  if (!has_field(ev, key)) ev.fields.push_back(Field{key, digits, true, false});
}

// "perplexity: 1222.15 eval_loss: 7.10", "l_g_pix: 1.4e-03 l_g_fea: 1.0": numeric pairs only.
void parse_colon_metrics(string_view s, Event& ev) {
  std::size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == ',' || s[pos] == '\t')) ++pos;
    std::size_t k = pos;
    while (k < s.size() &&
           (is_alpha(s[k]) || text::is_digit(s[k]) || s[k] == '_' || s[k] == '/' || s[k] == '.' || s[k] == '-'))
      ++k;
    const string_view key = s.substr(pos, k - pos);
    if (!key.empty() && k < s.size() && (s[k] == ':' || s[k] == '=')) {
      std::size_t v = k + 1;
      while (v < s.size() && s[v] == ' ') ++v;
      std::size_t e = v;
      while (e < s.size() && s[e] != ' ' && s[e] != ',' && s[e] != '\t') ++e;
      const string_view value = s.substr(v, e - v);
      if (is_alpha(key.front()) && is_number(value)) add_metric(ev, key, value);
      pos = e;
      continue;
    }
    while (k < s.size() && s[k] != ' ' && s[k] != '\t') ++k;  // not a pair: skip the word
    pos = k + 1;
  }
}

}  // namespace gpucost::prep::trainlog

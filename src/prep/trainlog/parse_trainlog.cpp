// Python training logs (formats.md §13): no single grammar, so each line (each '\r' segment of
// it: tqdm redraws its bar with '\r') is matched against the shapes of the tools:
//   10/10/2022 22:57:22 - INFO - __main__ - msg                 HF / accelerate examples (local time)
//   2024-06-12 14:22:18,123 - name - INFO - msg                 logging cookbook asctime
//   [2026-02-01 10:23:39,091: INFO: module: msg]                bracketed custom format
//   [2024-06-12 14:22:18,123] [INFO] [file.py:96:fn] msg        DeepSpeed; [ts][name][LEVEL] - msg (Hydra)
//   19-08-09 08:23:24.709 - INFO: <epoch: 86, iter: 107,200, lr:2.500e-05> l_g_pix: 1.4e-03   traiNNer
//   2020-08-15 15:50:30,390 INFO: [name..][epoch:207, iter:  20,100, lr:(1.000e-04,)] ...     BasicSR
//   2024-06-12 14:22:18.123 | INFO     | mod:fn:42 - msg          loguru
//   INFO:__main__:msg                                           logging.basicConfig default (no time)
//   {'loss': 2.0079, 'grad_norm': 2.62, 'learning_rate': 9e-07, 'epoch': 0.2}   HF Trainer (no time)
//    20%|██▌       | 49/245 [01:04<04:09,  1.27s/it]            tqdm (no time)
//   Epoch 0: 100%|██████████| 938/938 [00:15<00:00, 61.24it/s, v_num=0, train_loss=0.123]  Lightning
// before any of them, per-worker prefixes are removed: "(RayTrainWorker pid=N) ", "name logs: ",
// "[1,mpirank:0,algo-1]<stderr>:", "[default0]:", "[rank0]:".
// Lines that say where training is (start, epoch, step, eval, checkpoint, end) become `train`
// events; other log lines are ignored but set the time for the untimed lines after them. Lines
// that match a --pattern become `pattern` events (tried first).
#include "prep/kernel/klog_common.hpp"
#include "prep/parsers.hpp"
#include "prep/user_patterns.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <array>
#include <cstring>

namespace gpucost::prep {

namespace {

using std::string_view;

constexpr string_view kSource = "trainlog";

// ---- small text helpers -----------------------------------------------------------------

inline bool starts_with(string_view s, string_view p) { return s.substr(0, p.size()) == p; }
inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; }
inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// `lower` is lower case ASCII.
bool istarts_with(string_view s, string_view lower) {
  if (s.size() < lower.size()) return false;
  for (std::size_t i = 0; i < lower.size(); ++i)
    if (ascii_lower(s[i]) != lower[i]) return false;
  return true;
}

bool icontains(string_view s, string_view lower) {
  if (lower.empty()) return true;
  for (std::size_t i = 0; i + lower.size() <= s.size(); ++i)
    if (ascii_lower(s[i]) == lower[0] && istarts_with(s.substr(i), lower)) return true;
  return false;
}

string_view ltrim(string_view s) {
  while (!s.empty() && text::is_space(s.front())) s.remove_prefix(1);
  return s;
}

// Leading digits of s (none: empty).
string_view leading_digits(string_view s) {
  std::size_t n = 0;
  while (n < s.size() && text::is_digit(s[n])) ++n;
  return s.substr(0, n);
}

bool all_digits(string_view s) { return !s.empty() && leading_digits(s).size() == s.size(); }

bool is_level(string_view t) {
  static constexpr string_view kLevels[] = {"INFO",  "WARNING", "DEBUG", "ERROR", "CRITICAL", "WARN",
                                            "FATAL", "NOTSET",  "TRACE", "SUCCESS"};
  for (const string_view l : kLevels)
    if (t == l) return true;
  return false;
}

// Terminal escapes tqdm writes for nested bars ("\x1b[A") and colour codes, at the start.
string_view skip_ansi(string_view s) {
  while (s.size() >= 2 && s[0] == '\x1b' && s[1] == '[') {
    std::size_t i = 2;
    while (i < s.size() && (text::is_digit(s[i]) || s[i] == ';')) ++i;
    if (i >= s.size()) return {};
    s.remove_prefix(i + 1);
  }
  return s;
}

// ---- per-worker prefixes ----------------------------------------------------------------

// One prefix a launcher puts before every line of a worker; `worker` names it. s unchanged
// when there is none.
string_view strip_worker_prefix(string_view s, string_view& worker) {
  if (s.empty()) return s;
  if (s[0] == '(') {  // Ray: "(RayTrainWorker pid=123) ", "(Worker pid=1, ip=10.0.0.2) ", coloured on a tty
    const std::size_t close = s.substr(0, 160).find(')');
    if (close == string_view::npos || s.substr(1, close).find(" pid=") == string_view::npos) return s;
    const string_view after = skip_ansi(s.substr(close + 1));
    if (!after.empty() && after[0] != ' ') return s;
    worker = s.substr(1, close - 1);
    return after.empty() ? after : after.substr(1);
  }
  if (s[0] == '[') {
    const std::size_t close = s.substr(0, 80).find(']');
    if (close == string_view::npos) return s;
    const string_view inside = s.substr(1, close - 1);
    const string_view after = s.substr(close + 1);
    // SageMaker / mpirun --tag-output: "[1,mpirank:0,algo-1]<stderr>:"
    if (starts_with(after, "<stdout>:") || starts_with(after, "<stderr>:")) {
      worker = inside;
      return after.substr(9);
    }
    // torchrun --tee: "[default0]:"; PyTorch's "[rank0]:"
    const bool tee = (starts_with(inside, "default") && all_digits(inside.substr(7))) ||
                     (starts_with(inside, "rank") && all_digits(inside.substr(4)));
    if (tee && starts_with(after, ":")) {
      worker = inside;
      return after.substr(1);
    }
    return s;
  }
  // kubectl / Kubeflow: "pt-uwro96fh-worker-0 logs: "
  std::size_t n = 0;
  while (n < s.size() && n < 128 && (is_alpha(s[n]) || text::is_digit(s[n]) || s[n] == '-' || s[n] == '_' || s[n] == '.'))
    ++n;
  if (n > 0 && starts_with(s.substr(n), " logs: ")) {
    worker = s.substr(0, n);
    return s.substr(n + 7);
  }
  return s;
}

// Prefixes (at most two: a pod prefix around a rank prefix), ANSI codes and leading blanks.
string_view clean_segment(string_view seg, string_view& worker) {
  seg = skip_ansi(seg);
  for (int i = 0; i < 2; ++i) {
    const string_view before = seg;
    seg = strip_worker_prefix(seg, worker);
    if (seg.size() == before.size()) break;
  }
  return text::trim(skip_ansi(ltrim(seg)));
}

// ---- timestamps ---------------------------------------------------------------------------

struct Stamp {
  CivilTime civil;
  std::int64_t offset_s = 0;
  bool has_offset = false;  // ISO stamp with Z or +hh:mm: absolute, not local
  bool valid = false;       // the digits are in place and name a real date and time
};

bool read_fixed(string_view s, std::size_t pos, std::size_t n, unsigned& out) {
  if (pos + n > s.size()) return false;
  unsigned v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!text::is_digit(s[i])) return false;
    v = v * 10 + static_cast<unsigned>(s[i] - '0');
  }
  out = v;
  return true;
}

// ",123" / ".123456" after the seconds: nanos; advances pos.
void read_fraction(string_view s, std::size_t& pos, CivilTime& c) {
  if (pos + 1 >= s.size() || (s[pos] != ',' && s[pos] != '.') || !text::is_digit(s[pos + 1])) return;
  ++pos;
  std::int64_t scale = 100'000'000;
  while (pos < s.size() && text::is_digit(s[pos])) {
    c.nanos += (s[pos] - '0') * scale;
    scale /= 10;
    ++pos;
  }
}

// "Z", "+02:00", "+0200" after an ISO time; advances pos.
void read_offset(string_view s, std::size_t& pos, Stamp& st) {
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    st.has_offset = true;
    ++pos;
    return;
  }
  if (pos + 5 > s.size() || (s[pos] != '+' && s[pos] != '-')) return;
  unsigned hh = 0, mm = 0;
  std::size_t p = pos + 1;
  if (!read_fixed(s, p, 2, hh)) return;
  p += 2;
  if (p < s.size() && s[p] == ':') ++p;
  if (!read_fixed(s, p, 2, mm)) return;
  st.has_offset = true;
  st.offset_s = (s[pos] == '-' ? -1 : 1) * static_cast<std::int64_t>(hh * 3600 + mm * 60);
  pos = p + 2;
}

// "HH:MM:SS" at pos.
bool read_clock(string_view s, std::size_t pos, CivilTime& c) {
  return pos + 8 <= s.size() && s[pos + 2] == ':' && s[pos + 5] == ':' && read_fixed(s, pos, 2, c.hour) &&
         read_fixed(s, pos + 3, 2, c.minute) && read_fixed(s, pos + 6, 2, c.second);
}

// Length of the stamp at the start of s, 0 when there is none:
//   MM/DD/YYYY HH:MM:SS                    HF examples (datefmt "%m/%d/%Y %H:%M:%S")
//   YYYY-MM-DD[ T]HH:MM:SS[,.fff][offset]  asctime, loguru, ISO 8601
//   YY-MM-DD HH:MM:SS[.fff]                traiNNer / BasicSR (datefmt "%y-%m-%d %H:%M:%S")
std::size_t scan_stamp(string_view s, Stamp& st) {
  st = Stamp{};
  CivilTime& c = st.civil;
  unsigned year = 0;
  std::size_t pos = 0;
  if (s.size() >= 19 && s[2] == '/' && s[5] == '/' && s[10] == ' ') {
    if (!read_fixed(s, 0, 2, c.month) || !read_fixed(s, 3, 2, c.day) || !read_fixed(s, 6, 4, year) ||
        !read_clock(s, 11, c))
      return 0;
    pos = 19;
  } else if (s.size() >= 19 && s[4] == '-' && s[7] == '-' && (s[10] == ' ' || s[10] == 'T')) {
    if (!read_fixed(s, 0, 4, year) || !read_fixed(s, 5, 2, c.month) || !read_fixed(s, 8, 2, c.day) ||
        !read_clock(s, 11, c))
      return 0;
    pos = 19;
  } else if (s.size() >= 17 && s[2] == '-' && s[5] == '-' && s[8] == ' ') {
    if (!read_fixed(s, 0, 2, year) || !read_fixed(s, 3, 2, c.month) || !read_fixed(s, 6, 2, c.day) ||
        !read_clock(s, 9, c))
      return 0;
    year += 2000;  // %y: 2-digit year of this century
    pos = 17;
  } else {
    return 0;
  }
  c.year = static_cast<int>(year);
  read_fraction(s, pos, c);
  if (s[10] == 'T' || (pos < s.size() && (s[pos] == 'Z' || s[pos] == '+'))) read_offset(s, pos, st);
  if (pos < s.size() && !text::is_space(s[pos]) && s[pos] != ']' && s[pos] != ':' && s[pos] != '|') return 0;
  st.valid = valid_civil(c);
  return pos;
}

// ---- log line headers -------------------------------------------------------------------

struct LogHeader {
  string_view level, logger, message;
};

// "A - B - msg" with A or B a level (HF: LEVEL - logger; cookbook: logger - LEVEL).
bool dash_header(string_view body, LogHeader& h) {
  const std::size_t d1 = body.find(" - ");
  if (d1 == string_view::npos) return false;
  const string_view a = body.substr(0, d1), rest = body.substr(d1 + 3);
  const std::size_t d2 = rest.find(" - ");
  const string_view b = d2 == string_view::npos ? string_view() : rest.substr(0, d2);
  if (is_level(a)) {
    h.level = a;
    if (d2 != string_view::npos && b.find(' ') == string_view::npos) {
      h.logger = b;
      h.message = rest.substr(d2 + 3);
    } else {
      h.message = rest;
    }
    return true;
  }
  if (d2 != string_view::npos && is_level(b) && a.find(' ') == string_view::npos) {
    h.logger = a;
    h.level = b;
    h.message = rest.substr(d2 + 3);
    return true;
  }
  return false;
}

// "LEVEL: msg" (traiNNer after " - ", BasicSR after " ").
bool level_colon_header(string_view body, LogHeader& h) {
  const std::size_t colon = body.find(':');
  if (colon == string_view::npos || colon > 8 || !is_level(body.substr(0, colon))) return false;
  h.level = body.substr(0, colon);
  h.message = ltrim(body.substr(colon + 1));
  return true;
}

// "[LEVEL][name] - msg", "] [INFO] [file.py:96:fn] msg": bracket groups, one of them a level.
bool bracket_groups_header(string_view body, LogHeader& h) {
  while (true) {
    body = ltrim(body);
    if (body.empty() || body[0] != '[') break;
    const std::size_t close = body.find(']');
    if (close == string_view::npos) break;
    const string_view group = body.substr(1, close - 1);
    if (h.level.empty() && is_level(group)) h.level = group;
    else if (h.logger.empty()) h.logger = group;
    body = body.substr(close + 1);
  }
  if (starts_with(body, " - ")) body = body.substr(3);
  else if (starts_with(body, "- ")) body = body.substr(2);
  h.message = ltrim(body);
  return !h.level.empty();
}

// The header after a stamp (`rest` starts right after it); false when no level is found.
bool parse_header(string_view rest, LogHeader& h) {
  h = LogHeader{};
  if (starts_with(rest, " - ")) {
    const string_view body = rest.substr(3);
    return level_colon_header(body, h) || dash_header(body, h);
  }
  if (starts_with(rest, " | ")) {  // loguru: " | INFO     | mod:fn:42 - msg"
    const string_view body = rest.substr(3);
    const std::size_t bar = body.find(" | ");
    if (bar == string_view::npos || !is_level(text::trim(body.substr(0, bar)))) return false;
    h.level = text::trim(body.substr(0, bar));
    const string_view after = body.substr(bar + 3);
    const std::size_t dash = after.find(" - ");
    h.logger = dash == string_view::npos ? string_view() : after.substr(0, dash);
    h.message = dash == string_view::npos ? after : after.substr(dash + 3);
    return true;
  }
  if (starts_with(rest, ": ")) {  // bracketed custom, trailing ']' already cut: ": LEVEL: module: msg"
    LogHeader inner;
    if (!level_colon_header(rest.substr(2), inner)) return false;
    h.level = inner.level;
    const std::size_t colon = inner.message.find(": ");
    if (colon != string_view::npos && inner.message.substr(0, colon).find(' ') == string_view::npos) {
      h.logger = inner.message.substr(0, colon);
      h.message = inner.message.substr(colon + 2);
    } else {
      h.message = inner.message;
    }
    return true;
  }
  if (starts_with(rest, "]")) return bracket_groups_header(rest.substr(1), h);
  if (starts_with(rest, " [")) return bracket_groups_header(rest.substr(1), h);
  if (starts_with(rest, " ") || starts_with(rest, "\t")) {  // "INFO: msg", "INFO msg", Ray's "\tINFO file.py:1 -- msg"
    const string_view body = rest.substr(1);
    if (level_colon_header(body, h)) return true;
    const std::size_t sp = body.find(' ');
    if (sp != string_view::npos && is_level(body.substr(0, sp))) {
      h.level = body.substr(0, sp);
      h.message = ltrim(body.substr(sp + 1));
      return true;
    }
  }
  return false;
}

// A stamped log line: the stamp directly or after '[' (bracketed formats); `rest` is what
// follows the stamp, without a bracketed custom line's closing ']'. 0 when there is no stamp.
std::size_t scan_stamped(string_view s, Stamp& st, string_view& rest) {
  const bool bracketed = !s.empty() && s[0] == '[';
  const std::size_t len = scan_stamp(bracketed ? s.substr(1) : s, st);
  if (len == 0) return 0;
  const std::size_t end = len + (bracketed ? 1 : 0);
  rest = s.substr(end);
  if (bracketed && starts_with(rest, ":") && !rest.empty() && rest.back() == ']') rest.remove_suffix(1);
  if (bracketed && !starts_with(rest, ":") && !starts_with(rest, "]")) return 0;
  return end;
}

// logging.basicConfig's default "INFO:__main__:msg" (no time).
bool default_format(string_view s, LogHeader& h) {
  const std::size_t c1 = s.find(':');
  if (c1 == string_view::npos || c1 > 8 || !is_level(s.substr(0, c1))) return false;
  const std::size_t c2 = s.find(':', c1 + 1);
  if (c2 == string_view::npos) return false;
  const string_view logger = s.substr(c1 + 1, c2 - c1 - 1);
  if (logger.empty() || logger.find(' ') != string_view::npos) return false;
  h.level = s.substr(0, c1);
  h.logger = logger;
  h.message = s.substr(c2 + 1);
  return true;
}

// ---- tqdm bars ------------------------------------------------------------------------------

enum class BarParse { not_bar, ok, broken };

struct Bar {
  string_view desc;      // "Epoch 0", "Validation DataLoader 0", "Map", empty
  string_view n, total;  // "49", "245"; total empty when tqdm did not know it
  string_view elapsed;   // "01:04", "1:02:03"
  string_view rate;      // "1.27", empty for "?"
  string_view unit;      // "it/s", "s/it", "examples/s", ...
  string_view postfix;   // "v_num=0, train_loss=0.123"
  string_view tail;      // text glued after the closing ']' (a log line written after the bar)
};

// "[01:04<04:09,  1.27s/it, v_num=0]" (inside of the brackets given).
void parse_bar_brackets(string_view in, Bar& b) {
  const std::size_t comma = in.find(',');
  string_view times = in.substr(0, comma);
  b.elapsed = times.substr(0, times.find('<'));
  if (comma == string_view::npos) return;
  string_view after = in.substr(comma + 1);
  const std::size_t comma2 = after.find(',');
  const string_view rate = text::trim(after.substr(0, comma2));
  if (comma2 != string_view::npos) b.postfix = text::trim(after.substr(comma2 + 1));
  std::size_t n = 0;
  while (n < rate.size() && (text::is_digit(rate[n]) || rate[n] == '.')) ++n;
  b.rate = rate.substr(0, n);
  b.unit = text::trim(rate.substr(n));
  if (starts_with(b.unit, "?")) b.unit.remove_prefix(1);
}

// desc: n/total [elapsed<remaining, rate, postfix]; or desc: n<unit> [elapsed, rate] (no total).
BarParse parse_bar(string_view s, Bar& b) {
  b = Bar{};
  std::size_t open = 0;
  const std::size_t pct = s.find("%|");
  if (pct != string_view::npos) {
    std::size_t d = pct;
    while (d > 0 && text::is_digit(s[d - 1])) --d;
    if (d == pct || pct - d > 3 || d > 120) return BarParse::not_bar;
    b.desc = text::trim(s.substr(0, d));
    if (!b.desc.empty() && b.desc.back() == ':') b.desc.remove_suffix(1);
    const std::size_t bar_end = s.find('|', pct + 2);
    if (bar_end == string_view::npos || bar_end + 1 >= s.size() || s[bar_end + 1] != ' ') return BarParse::broken;
    const string_view counts = s.substr(bar_end + 2);
    const std::size_t slash = counts.find('/');
    open = counts.find(" [");
    if (slash == string_view::npos || open == string_view::npos || slash > open) return BarParse::broken;
    b.n = counts.substr(0, slash);
    b.total = counts.substr(slash + 1, open - slash - 1);
    open += bar_end + 2;
  } else {
    // "Epoch 3: 49it [01:04, 1.27it/s]": a count, "it", then the brackets.
    open = s.find("it [");
    if (open == string_view::npos || open == 0 || !text::is_digit(s[open - 1])) return BarParse::not_bar;
    std::size_t d = open;
    while (d > 0 && text::is_digit(s[d - 1])) --d;
    if (d > 0 && s[d - 1] != ' ') return BarParse::not_bar;
    b.desc = text::trim(s.substr(0, d));
    if (!b.desc.empty() && b.desc.back() == ':') b.desc.remove_suffix(1);
    if (b.desc.size() > 120) return BarParse::not_bar;
    b.n = s.substr(d, open - d);
    open += 2;
  }
  const std::size_t close = s.find(']', open);
  if (close == string_view::npos) return BarParse::broken;
  parse_bar_brackets(s.substr(open + 2, close - open - 2), b);
  if (b.elapsed.empty() || !text::is_digit(b.elapsed.front())) return BarParse::broken;
  b.tail = s.substr(close + 1);
  return BarParse::ok;
}

// "01:04" / "1:02:03" -> seconds; -1 when not a time.
std::int64_t elapsed_seconds(string_view s) {
  std::int64_t total = 0;
  std::size_t pos = 0;
  int parts = 0;
  while (pos < s.size()) {
    const string_view d = leading_digits(s.substr(pos));
    if (d.empty() || d.size() > 6) return -1;
    total = total * 60 + text::parse_int(d).value_or(0);
    pos += d.size();
    ++parts;
    if (pos < s.size()) {
      if (s[pos] != ':') return -1;
      ++pos;
    }
  }
  return parts >= 2 ? total : -1;
}

enum class BarKind { train, eval, other };

// What a bar counts: its description ("Epoch 0", "Validation DataLoader 0", "Map") and unit.
BarKind bar_kind(const Bar& b) {
  const string_view d = b.desc;
  if (istarts_with(d, "validat") || istarts_with(d, "eval") || istarts_with(d, "test")) return BarKind::eval;
  const bool train_desc = d.empty() || istarts_with(d, "epoch") || istarts_with(d, "train") ||
                          istarts_with(d, "step") || istarts_with(d, "iteration");
  if (!train_desc) return BarKind::other;  // datasets Map, downloads, checkpoint shards, sanity checks
  const bool iterations = b.unit.empty() || b.unit == "it/s" || b.unit == "s/it";
  return iterations || !d.empty() ? BarKind::train : BarKind::other;
}

// ---- metrics ---------------------------------------------------------------------------------

enum class Phase { start, epoch, step, eval, checkpoint, end };

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

// Keys a metric from the log must not take: the event's own, so they go under "extra".
bool reserved_key(string_view key) {
  static constexpr string_view kOwn[] = {"type",   "ts_ns",  "source",  "host",      "gpu",     "kind",
                                         "extra",  "phase",  "worker",  "level",     "logger",  "message",
                                         "time_from", "pattern", "dur_ns", "total_steps", "it_per_s", "s_per_it",
                                         "elapsed_s", "path", "total_epochs"};
  for (const string_view k : kOwn)
    if (k == key) return true;
  Metric m{};
  return metric_from_key(key, m);
}

bool has_field(const Event& ev, string_view key) {
  for (const Field& f : ev.fields)
    if (f.key == key) return true;
  return false;
}

// "np.float64(0.5)", "tensor(0.5, device='cuda:0')" -> "0.5"; quotes removed from strings.
string_view unwrap_value(string_view v) {
  v = text::trim(v);
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  const std::size_t open = v.find('(');
  if (open != string_view::npos && open > 0 && v.back() == ')') {
    string_view inner = v.substr(open + 1, v.size() - open - 2);
    return text::trim(inner.substr(0, inner.find(',')));
  }
  return v;
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

// A Python dict repr: {'loss': 2.0, 'rewards/chosen': -0.1, 'name': 'x'}; calls on_item(key,
// value) per item. False when the text is not one.
template <class OnItem>
bool parse_py_dict(string_view s, OnItem&& on_item) {
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') return false;
  std::size_t pos = 1;
  const auto skip = [&] {
    while (pos < s.size() && s[pos] == ' ') ++pos;
  };
  skip();
  if (pos == s.size() - 1) return true;  // {}
  while (pos < s.size()) {
    skip();
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"')) return false;
    const char q = s[pos];
    const std::size_t kend = s.find(q, pos + 1);
    if (kend == string_view::npos) return false;
    const string_view key = s.substr(pos + 1, kend - pos - 1);
    pos = kend + 1;
    skip();
    if (pos >= s.size() || s[pos] != ':') return false;
    ++pos;
    skip();
    const std::size_t vstart = pos;
    if (pos < s.size() && (s[pos] == '\'' || s[pos] == '"')) {
      const std::size_t vend = s.find(s[pos], pos + 1);
      if (vend == string_view::npos) return false;
      pos = vend + 1;
    } else {
      int depth = 0;
      while (pos < s.size() && (depth > 0 || (s[pos] != ',' && s[pos] != '}'))) {
        if (depth == 0 && (s[pos] == '\'' || s[pos] == '"' || s[pos] == ':')) return false;  // a lost comma
        if (s[pos] == '(' || s[pos] == '[' || s[pos] == '{') ++depth;
        if (s[pos] == ')' || s[pos] == ']' || s[pos] == '}') --depth;
        ++pos;
      }
    }
    const string_view value = text::trim(s.substr(vstart, pos - vstart));
    if (value.empty()) return false;
    on_item(key, value);
    skip();
    if (pos >= s.size()) return false;
    if (s[pos] == '}') return pos == s.size() - 1;
    if (s[pos] != ',') return false;
    ++pos;
  }
  return false;
}

// "perplexity: 1222.15 eval_loss: 7.10", "l_g_pix: 1.4e-03 l_g_fea: 1.0": numeric pairs only.
void parse_colon_metrics(string_view s, Event& ev) {
  std::size_t pos = 0;
  while (pos < s.size()) {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == ',' || s[pos] == '\t')) ++pos;
    std::size_t k = pos;
    while (k < s.size() && (is_alpha(s[k]) || text::is_digit(s[k]) || s[k] == '_' || s[k] == '/' || s[k] == '.' ||
                            s[k] == '-'))
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

// ---- the parser ---------------------------------------------------------------------------

class TrainlogParser final : public LineParser {
 public:
  explicit TrainlogParser(UserPatterns patterns) : m_patterns(std::move(patterns)) {}

  LineResult parse(string_view line, ParseContext& ctx) override {
    m_line_events = 0;
    m_malformed = false;
    m_has_bar = false;
    if (!m_patterns.empty()) {
      LineResult r = LineResult::ignored;
      if (match_patterns(line, ctx, r)) return r;
    }
    std::size_t pos = 0;
    while (pos <= line.size()) {
      const std::size_t cr = line.find('\r', pos);
      const string_view seg = line.substr(pos, cr == string_view::npos ? string_view::npos : cr - pos);
      segment(seg, ctx, 0);
      if (cr == string_view::npos) break;
      pos = cr + 1;
    }
    flush_bar(ctx);
    if (m_malformed) return LineResult::malformed;
    return m_line_events > 0 ? LineResult::event : LineResult::ignored;
  }

  void finish(ParseContext& ctx) override {
    if (!m_held.empty()) release_without_stamp(ctx);
    if (m_untimed > 0 && m_have_time)
      add_note(ctx.stats, fmt::format("{} from lines without a timestamp (HF Trainer dicts, tqdm bars, plain "
                                      "messages) {} the time of the nearest timestamped line before {} "
                                      "(field time_from); the time is a bound, not a measurement",
                                      text::counted(static_cast<long long>(m_untimed), "event"),
                                      m_untimed == 1 ? "takes" : "take", m_untimed == 1 ? "it" : "them"));
  }

  // Untimed events held from replayed lines were placed and counted by the run that read them.
  void end_replay(ParseContext& /*ctx*/) override {
    m_held.mute();
    m_untimed = 0;
  }

 private:
  // ---- one '\r' segment -------------------------------------------------------------------

  void segment(string_view raw, ParseContext& ctx, int depth) {
    string_view worker;
    const string_view s = clean_segment(raw, worker);
    if (s.empty()) return;
    if (stamped_line(s, worker, ctx)) return;
    Bar bar;
    switch (parse_bar(s, bar)) {
      case BarParse::ok:
        m_bar = bar;
        m_bar_worker = worker;
        m_has_bar = true;
        if (!bar.tail.empty() && depth == 0) segment(bar.tail, ctx, 1);
        return;
      case BarParse::broken:
        flush_bar(ctx);
        set_malformed(ctx, "a tqdm bar without 'n/total [elapsed<remaining, rate]'");
        return;
      case BarParse::not_bar:
        break;
    }
    flush_bar(ctx);
    if (s.front() == '{') {
      dict_line(s, worker, ctx);
      return;
    }
    if (LogHeader h; default_format(s, h)) {
      if (begin_message(h.message, worker, ctx, false)) {
        add_header(h, ctx.event);
        emit_untimed(ctx);
      }
      return;
    }
    if (begin_message(s, worker, ctx, true)) emit_untimed(ctx);
  }

  // "10/10/2022 22:57:22 - INFO - __main__ - msg" and the other stamped shapes.
  bool stamped_line(string_view s, string_view worker, ParseContext& ctx) {
    Stamp st;
    string_view rest;
    if (scan_stamped(s, st, rest) == 0) return false;
    flush_bar(ctx);
    if (!st.valid) {
      set_malformed(ctx, "bad date or time in the timestamp");
      return true;
    }
    set_time(st, ctx);
    LogHeader h;
    if (!parse_header(rest, h)) h.message = text::trim(rest);
    if (begin_message(h.message, worker, ctx, false)) {
      add_header(h, ctx.event);
      emit_at(ctx, m_last_ns);
    }
    return true;
  }

  static void add_header(const LogHeader& h, Event& ev) {
    if (!h.level.empty()) ev.add_text("level", h.level);
    if (!h.logger.empty()) ev.add_text("logger", h.logger);
  }

  // ---- messages ---------------------------------------------------------------------------

  // Starts a `train` event when the message says where training is. `anchored`: the phrase must
  // open the text (a line without a log header may be anything: warnings, tracebacks).
  bool begin_message(string_view msg, string_view worker, ParseContext& ctx, bool anchored) {
    const string_view t = text::trim(msg);
    note_totals(t);
    Event& ev = ctx.event;
    begin(ev, "train", worker);
    if (epoch_metrics(t, ev) || basicsr_metrics(t, ev) || lightning_checkpoint(t, ev) || progress_metrics(t, ev))
      return true;
    if (!t.empty() && t.front() == '{') return fill_dict(t, ev) == DictResult::event;  // logger.info(metrics)
    string_view core = t;
    while (!core.empty() && (core.front() == '*' || core.front() == '=' || core.front() == '>' || core.front() == ' '))
      core.remove_prefix(1);
    Phase phase{};
    if (!message_phase(core, anchored, phase)) return false;
    ev.add_text("phase", phase_name(phase));
    if (phase == Phase::checkpoint) checkpoint_details(core, ev);
    if (phase == Phase::eval) m_in_eval = true;
    ev.add_text("message", t);
    return true;
  }

  static bool phrase(string_view s, string_view lower, bool anchored) {
    return anchored ? istarts_with(s, lower) : icontains(s, lower);
  }

  static bool message_phase(string_view s, bool anchored, Phase& out) {
    struct Phrase {
      string_view text;
      Phase phase;
    };
    static constexpr Phrase kPhrases[] = {
        {"training completed", Phase::end},      {"training complete", Phase::end},
        {"training finished", Phase::end},       {"finished training", Phase::end},
        {"end of training", Phase::end},         {"`trainer.fit` stopped", Phase::end},
        {"saving model checkpoint", Phase::checkpoint}, {"saving checkpoint", Phase::checkpoint},
        {"saving model", Phase::checkpoint},     {"saving current state", Phase::checkpoint},
        {"saving models and training states", Phase::checkpoint}, {"saving the final model", Phase::checkpoint},
        {"running evaluation", Phase::eval},     {"running validation", Phase::eval},
        {"running training", Phase::start},      {"starting model training", Phase::start},
        {"starting training", Phase::start},     {"start training", Phase::start},
        {"training started", Phase::start},
    };
    for (const Phrase& p : kPhrases) {
      if (phrase(s, p.text, anchored)) {
        out = p.phase;
        return true;
      }
    }
    return false;
  }

  // "Saving model checkpoint to out/checkpoint-500": the path and the step in its name.
  static void checkpoint_details(string_view s, Event& ev) {
    const std::size_t to = s.find(" to ");
    if (to != string_view::npos) {
      string_view path = text::trim(s.substr(to + 4));
      if (path.size() >= 2 && (path.front() == '\'' || path.front() == '"') && path.back() == path.front())
        path = path.substr(1, path.size() - 2);
      if (!path.empty()) ev.add_text("path", path);
    }
    const std::size_t ck = s.rfind("checkpoint-");
    if (ck != string_view::npos) {
      const string_view d = leading_digits(s.substr(ck + 11));
      if (!d.empty()) add_number_text(ev, "step", d);
    }
  }

  // "epoch 0: perplexity: 1222.1 eval_loss: 7.10", "epoch 0: {'accuracy': 0.5687}"
  static bool epoch_metrics(string_view t, Event& ev) {
    if (!istarts_with(t, "epoch ")) return false;
    const string_view n = leading_digits(t.substr(6));
    if (n.empty() || t.size() <= 6 + n.size() || t[6 + n.size()] != ':') return false;
    const string_view rest = text::trim(t.substr(7 + n.size()));
    ev.add_text("phase", "epoch");
    add_number_text(ev, "epoch", n);
    if (!rest.empty() && rest.front() == '{') {
      parse_py_dict(rest, [&](string_view k, string_view v) { add_metric(ev, k, v); });
    } else {
      parse_colon_metrics(rest, ev);
    }
    return true;
  }

  // Hand-written loops: "Epoch [1/10], Step [100/600], Loss: 0.2345", "Epoch 2/10 - loss: 0.5",
  // "Epoch 1/10" (Keras). A step makes it a step, else an epoch line; needs a total, a step or a metric.
  static bool progress_metrics(string_view t, Event& ev) {
    if (!istarts_with(t, "epoch")) return false;
    std::size_t pos = 5;
    while (pos < t.size() && (t[pos] == ' ' || t[pos] == '[' || t[pos] == ':')) ++pos;
    const string_view e = leading_digits(t.substr(pos));
    if (e.empty()) return false;
    pos += e.size();
    string_view total;
    if (pos < t.size() && t[pos] == '/') {
      total = leading_digits(t.substr(pos + 1));
      pos += 1 + total.size();
    }
    if (pos < t.size() && t[pos] == ']') ++pos;
    const string_view rest = t.substr(pos);
    if (istarts_with(rest, ", global step")) return false;  // Lightning's "was not in top k"
    const std::size_t before = ev.fields.size();
    add_number_text(ev, "epoch", e);
    if (!total.empty()) add_number_text(ev, "total_epochs", total);
    const bool step = progress_step(rest, ev);
    parse_colon_metrics(rest, ev);
    if (total.empty() && !step && ev.fields.size() == before + 1) {
      ev.fields.resize(before);
      return false;
    }
    ev.add_text("phase", step ? "step" : "epoch");
    return true;
  }

  // "Step [100/600]", "step 100/600", "iter 100": step and total_steps.
  static bool progress_step(string_view rest, Event& ev) {
    for (const string_view word : {string_view("step"), string_view("iter")}) {
      for (std::size_t i = 0; i + word.size() < rest.size(); ++i) {
        if (!istarts_with(rest.substr(i), word) || (i > 0 && is_alpha(rest[i - 1]))) continue;
        std::size_t p = i + word.size();
        while (p < rest.size() && (is_alpha(rest[p]))) ++p;  // "steps", "iteration"
        while (p < rest.size() && (rest[p] == ' ' || rest[p] == '[' || rest[p] == ':')) ++p;
        const string_view n = leading_digits(rest.substr(p));
        if (n.empty()) continue;
        add_number_text(ev, "step", n);
        p += n.size();
        if (p < rest.size() && rest[p] == '/') {
          const string_view total = leading_digits(rest.substr(p + 1));
          if (!total.empty()) add_number_text(ev, "total_steps", total);
        }
        return true;
      }
    }
    return false;
  }

  // BasicSR / traiNNer: "[name..][epoch:207, iter:  20,100, lr:(1.000e-04,)] [eta: ...] l_pix: 1e-3",
  // "<epoch: 86, iter: 107,200, lr:2.500e-05> l_g_pix: ...", "<epoch: 86, iter: 107,000> psnr: 13.8".
  bool basicsr_metrics(string_view t, Event& ev) {
    string_view rest = t;
    bool found = false, has_lr = false;
    while (!rest.empty() && (rest.front() == '[' || rest.front() == '<')) {
      const char close_ch = rest.front() == '[' ? ']' : '>';
      const std::size_t close = rest.find(close_ch);
      if (close == string_view::npos) return false;
      const string_view group = rest.substr(1, close - 1);
      if (starts_with(group, "epoch:")) {
        found = true;
        has_lr = basicsr_group(group, ev);
      }
      rest = ltrim(rest.substr(close + 1));
    }
    if (!found) return false;
    ev.add_text("phase", has_lr ? "step" : "eval");
    parse_colon_metrics(rest, ev);
    return true;
  }

  // "epoch: 86, iter: 107,200, lr:2.500e-05": true when it carries a learning rate.
  bool basicsr_group(string_view g, Event& ev) {
    bool lr = false;
    std::size_t pos = 0;
    while (pos < g.size()) {
      const std::size_t colon = g.find(':', pos);
      if (colon == string_view::npos) break;
      const string_view key = text::trim(g.substr(pos, colon - pos));
      // The value runs to ", " before the next key (thousands separators have no space).
      std::size_t end = colon + 1;
      while (end < g.size() && !(g[end] == ',' && end + 1 < g.size() && g[end + 1] == ' ')) ++end;
      string_view value = text::trim(g.substr(colon + 1, end - colon - 1));
      if (key == "iter") {
        add_number_text(ev, "step", strip_thousands(value, ev));
      } else if (key == "epoch") {
        add_number_text(ev, "epoch", strip_thousands(value, ev));
      } else if (key == "lr") {
        if (!value.empty() && value.front() == '(') value = text::trim(value.substr(1, value.find_first_of(",)") - 1));
        if (is_number(value)) {
          add_number_text(ev, "learning_rate", value);
          lr = true;
        }
      }
      pos = end + 1;
    }
    return lr;
  }

  // "107,200" -> "107200" (owned by the event).
  static string_view strip_thousands(string_view v, Event& ev) {
    if (v.find(',') == string_view::npos) return v;
    std::array<char, 32> buf{};
    std::size_t n = 0;
    for (const char c : v)
      if (c != ',' && n < buf.size()) buf[n++] = c;
    return ev.own(string_view(buf.data(), n));
  }

  // Lightning ModelCheckpoint: "Epoch 0, global step 938: 'val_loss' reached 0.12 (best 0.12),
  // saving model to '/ckpt/epoch=0-step=938.ckpt' as top 1".
  static bool lightning_checkpoint(string_view t, Event& ev) {
    if (!istarts_with(t, "epoch ")) return false;
    const string_view e = leading_digits(t.substr(6));
    const string_view after = t.substr(6 + e.size());
    if (e.empty() || !starts_with(after, ", global step ")) return false;
    const string_view s = leading_digits(after.substr(14));
    if (s.empty() || !icontains(t, "saving model to")) return false;
    ev.add_text("phase", "checkpoint");
    add_number_text(ev, "epoch", e);
    add_number_text(ev, "step", s);
    if (const std::size_t to = t.find(" to "); to != string_view::npos) {
      string_view path = t.substr(to + 4);
      if (!path.empty() && path.front() == '\'') path = path.substr(1, path.find('\'', 1) - 1);
      ev.add_text("path", path);
    }
    ev.add_text("message", t);
    return true;
  }

  // "  Total optimization steps = 245": the total of the training bar (eval bars differ).
  void note_totals(string_view t) {
    if (!starts_with(t, "Total optimization steps = ")) return;
    m_train_total = text::parse_int(t.substr(27)).value_or(-1);
  }

  // ---- dicts and bars ---------------------------------------------------------------------

  enum class DictResult { none, event, malformed };

  // {'loss': ...} step, {'eval_loss': ...} eval, {'train_runtime': ...} end, into the begun
  // event; `none` for other dicts (a config printed as a dict) and multi-line dicts.
  DictResult fill_dict(string_view s, Event& ev) {
    if (s.size() < 3 || s.front() != '{' || (s[1] != '\'' && s[1] != '"')) return DictResult::none;
    if (s.back() != '}') return DictResult::none;
    const std::size_t phase_at = ev.fields.size();
    ev.add_text("phase", "step");  // the value is known once every key is seen
    bool end = false, eval = false, step = false;
    const bool ok = parse_py_dict(s, [&](string_view k, string_view v) {
      end = end || k == "train_runtime";
      eval = eval || starts_with(k, "eval_") || starts_with(k, "test_");
      step = step || k == "loss" || k == "learning_rate" || k == "grad_norm" || k == "epoch";
      add_metric(ev, k, v);
    });
    if (!ok) return DictResult::malformed;
    if (!end && !eval && !step) return DictResult::none;
    ev.fields[phase_at].value = end ? "end" : eval ? "eval" : "step";
    if (eval) m_in_eval = false;  // the evaluation is over
    return DictResult::event;
  }

  void dict_line(string_view s, string_view worker, ParseContext& ctx) {
    begin(ctx.event, "train", worker);
    switch (fill_dict(s, ctx.event)) {
      case DictResult::event: emit_untimed(ctx); break;
      case DictResult::malformed: set_malformed(ctx, "a metrics dict that is not a Python dict repr"); break;
      case DictResult::none: break;
    }
  }

  // The last bar of a run of bars in one line (tqdm redraws): one event.
  void flush_bar(ParseContext& ctx) {
    if (!m_has_bar) return;
    m_has_bar = false;
    const Bar& b = m_bar;
    const BarKind kind = bar_kind(b);
    if (kind == BarKind::other || !all_digits(b.n) || (!b.total.empty() && !all_digits(b.total))) return;
    Event& ev = ctx.event;
    begin(ev, "train", m_bar_worker);
    const std::int64_t total = b.total.empty() ? -1 : text::parse_int(b.total).value_or(-1);
    ev.add_text("phase", phase_name(bar_phase(b, kind, total)));
    if (istarts_with(b.desc, "epoch ")) {
      const string_view e = leading_digits(b.desc.substr(6));
      if (!e.empty()) add_number_text(ev, "epoch", e);
    }
    add_number_text(ev, "step", b.n);
    if (!b.total.empty()) add_number_text(ev, "total_steps", b.total);
    add_rate(b, ev);
    if (const std::int64_t secs = elapsed_seconds(b.elapsed); secs >= 0) ev.add_number("elapsed_s", secs);
    if (!b.postfix.empty()) parse_postfix(b.postfix, ev);
    emit_untimed(ctx);
  }

  // Training bar: step, or epoch when a Lightning "Epoch N" bar is full; HF Trainer's eval bar
  // has no description: it is a bar with another total than the training bar's (or drawn after
  // "Running Evaluation").
  Phase bar_phase(const Bar& b, BarKind kind, std::int64_t total) {
    if (kind == BarKind::eval) return Phase::eval;
    if (b.desc.empty()) {
      if (m_train_total < 0 && total > 0 && !m_in_eval) m_train_total = total;
      if (total > 0 && total == m_train_total) m_in_eval = false;
      if (m_in_eval || (total > 0 && total != m_train_total)) return Phase::eval;
    }
    if (istarts_with(b.desc, "epoch") && !b.total.empty() && b.n == b.total) return Phase::epoch;
    return Phase::step;
  }

  static void add_rate(const Bar& b, Event& ev) {
    if (b.rate.empty()) return;
    if (b.unit == "it/s") {
      if (is_number(b.rate)) ev.fields.push_back(Field{"it_per_s", b.rate, true, false});
      return;
    }
    if (b.unit != "s/it") {
      if (is_number(b.rate)) {
        ev.fields.push_back(Field{"rate", b.rate, true, false});
        ev.add_text("rate_unit", b.unit);
      }
      return;
    }
    const auto secs = text::parse_double(b.rate);
    if (!secs || !(*secs > 0) || !is_number(b.rate)) return;
    ev.fields.push_back(Field{"s_per_it", b.rate, true, false});
    std::array<char, 32> buf{};
    const auto out = fmt::format_to_n(buf.data(), buf.size(), "{:.6g}", 1.0 / *secs);
    ev.fields.push_back(Field{"it_per_s", ev.own(string_view(buf.data(), out.size)), true, false});
  }

  // "v_num=0, train_loss=0.123" (Lightning), "loss=0.5, lr=1e-05" (set_postfix).
  static void parse_postfix(string_view p, Event& ev) {
    std::size_t pos = 0;
    while (pos < p.size()) {
      std::size_t end = p.find(", ", pos);
      if (end == string_view::npos) end = p.size();
      const string_view item = p.substr(pos, end - pos);
      const std::size_t eq = item.find('=');
      if (eq != string_view::npos && eq > 0) add_metric(ev, text::trim(item.substr(0, eq)), item.substr(eq + 1));
      pos = end + 2;
    }
  }

  // ---- --pattern --------------------------------------------------------------------------

  bool match_patterns(string_view line, ParseContext& ctx, LineResult& result) {
    const string_view text = text::rtrim(line);
    const int p = m_patterns.match(text);
    if (p < 0) return false;
    Event& ev = ctx.event;
    begin(ev, "pattern", {});
    ev.add_number("pattern", p);
    bool timed = false, have_dur = false;
    std::int64_t ts = 0;
    for (const PatternGroup& g : m_patterns.groups(p)) {
      const string_view cap = m_patterns.capture(g.index);
      if (cap.empty()) continue;
      if (!pattern_group(p, g, cap, ctx, timed, ts, have_dur)) {
        result = LineResult::malformed;
        return true;
      }
    }
    if (!timed) timed = line_stamp(text, ctx, ts);
    result = LineResult::event;
    if (timed) {
      m_last_ns = ts;
      on_time(ctx);
      emit_at(ctx, ts);
    } else {
      emit_untimed(ctx);
    }
    return true;
  }

  bool pattern_group(int p, const PatternGroup& g, string_view cap, ParseContext& ctx, bool& timed, std::int64_t& ts,
                     bool& have_dur) {
    Event& ev = ctx.event;
    const auto bad = [&](string_view what) {
      ctx.reason_buf = fmt::format("pattern {}: group {} '{}' is not {}", p, g.name, cap.substr(0, 40), what);
      ctx.reason = ctx.reason_buf;
      return false;
    };
    switch (g.role) {
      case GroupRole::ts:
        if (!any_stamp(cap, ctx, ts)) return bad("a timestamp");
        timed = true;
        return true;
      case GroupRole::dur_ns:
      case GroupRole::dur_us:
      case GroupRole::dur_ms:
      case GroupRole::dur_s: {
        if (have_dur) return true;  // the first duration group that matched wins
        static constexpr int kExp[] = {0, 3, 6, 9};
        const int exp = kExp[static_cast<int>(g.role) - static_cast<int>(GroupRole::dur_ns)];
        std::int64_t ns = 0;
        if (!decimal_to_ns(cap, exp, ns)) return bad("a duration");
        ev.add_number("dur_ns", ns);
        have_dur = true;
        return true;
      }
      case GroupRole::step:
      case GroupRole::loss:
        if (!is_number(cap)) return bad("a number");
        ev.fields.push_back(Field{g.name, cap, true, false});
        return true;
      case GroupRole::phase:
      case GroupRole::name:
        ev.add_text(g.name, cap);
        return true;
      case GroupRole::other:
        ev.fields.push_back(Field{g.name, cap, is_number(cap), reserved_key(g.name)});
        return true;
    }
    return true;
  }

  // A `ts` group: the stamps above, ISO 8601, or seconds (ms, us, ns by digit count) since the epoch.
  bool any_stamp(string_view s, ParseContext& ctx, std::int64_t& ns) {
    s = text::trim(s);
    Stamp st;
    string_view rest;
    if (scan_stamped(s, st, rest) > 0 && st.valid && text::trim(rest).empty()) {
      ns = stamp_ns(st, ctx);
      return true;
    }
    const string_view whole = leading_digits(s);
    if (whole.size() >= 9 && whole.size() <= 19) {
      int exp = 9;
      if (whole.size() >= 12) exp = whole.size() >= 18 ? 0 : whole.size() >= 15 ? 3 : 6;
      if (!decimal_to_ns(s, exp, ns)) return false;
      klog::raise_basis(ctx.stats, TimeBasis::absolute);
      return true;
    }
    return false;
  }

  // The line's own stamp (after a worker prefix), for a pattern without a `ts` group.
  bool line_stamp(string_view line, ParseContext& ctx, std::int64_t& ns) {
    string_view worker;
    Stamp st;
    string_view rest;
    if (scan_stamped(clean_segment(line, worker), st, rest) == 0 || !st.valid) return false;
    ns = stamp_ns(st, ctx);
    return true;
  }

  // ---- time -------------------------------------------------------------------------------

  std::int64_t stamp_ns(const Stamp& st, ParseContext& ctx) {
    if (st.has_offset) {
      klog::raise_basis(ctx.stats, TimeBasis::absolute);
      return st.civil.as_utc_ns() - st.offset_s * kNsPerSecond;
    }
    klog::raise_basis(ctx.stats, TimeBasis::local);
    return ctx.clock.to_utc_ns(st.civil.as_utc_ns());
  }

  void set_time(const Stamp& st, ParseContext& ctx) {
    m_last_ns = stamp_ns(st, ctx);
    on_time(ctx);
  }

  // The first stamp places the untimed events held before it.
  void on_time(ParseContext& ctx) {
    m_have_time = true;
    if (m_held.empty()) return;
    const std::int64_t ns = m_last_ns;
    m_held.release(ctx, [ns](const klog::HeldTime&) { return ns; });
  }

  static void begin(Event& ev, string_view kind, string_view worker) {
    ev.reset();
    ev.source = kSource;
    ev.gpu = -1;
    ev.kind = kind;
    if (!worker.empty()) ev.add_text("worker", worker);
  }

  void emit_at(ParseContext& ctx, std::int64_t ns) {
    ctx.event.ts_ns = ns;
    ctx.emit();
    ++m_line_events;
  }

  // An event from a line without a time: the time of the stamp before it, else held until the
  // first stamp ("following line").
  void emit_untimed(ParseContext& ctx) {
    ++m_untimed;
    ++m_line_events;
    if (m_have_time) {
      ctx.event.add_text("time_from", "preceding line");
      ctx.event.ts_ns = m_last_ns;
      ctx.emit();
      return;
    }
    ctx.event.add_text("time_from", "following line");
    klog::HeldTime t;
    t.line = ctx.line_no;
    m_held.hold(ctx.event, t);
    if (m_held.full()) release_without_stamp(ctx);
  }

  // No stamp came: the held events go to --start, else to 0 (relative).
  void release_without_stamp(ParseContext& ctx) {
    std::int64_t ns = 0;
    string_view from = "none";
    if (const auto& start = ctx.options.start) {
      from = "--start";
      if (start->offset_s) {
        ns = start->civil.as_utc_ns() - *start->offset_s * kNsPerSecond;
        klog::raise_basis(ctx.stats, TimeBasis::absolute);
      } else {
        ns = ctx.clock.to_utc_ns(start->civil.as_utc_ns());
        klog::raise_basis(ctx.stats, TimeBasis::local);
      }
    } else {
      klog::raise_basis(ctx.stats, TimeBasis::relative);
      add_note(ctx.stats, "no timestamp in the training log before its first events: they are placed at 0 "
                          "(1970-01-01, relative); give --start to anchor them");
    }
    m_held.release(
        ctx, [ns](const klog::HeldTime&) { return ns; },
        [from](Event& ev) {
          for (Field& f : ev.fields)
            if (f.key == "time_from") f.value = from;
        });
  }

  void set_malformed(ParseContext& ctx, string_view why) {
    m_malformed = true;
    ctx.reason = why;
  }

  UserPatterns m_patterns;
  klog::HeldEvents m_held;
  Bar m_bar;                 // the last bar of the current line, not yet emitted
  string_view m_bar_worker;
  bool m_has_bar = false;
  bool m_malformed = false;
  std::uint64_t m_line_events = 0;
  std::uint64_t m_untimed = 0;
  std::int64_t m_last_ns = 0;  // time of the last stamped line
  bool m_have_time = false;
  std::int64_t m_train_total = -1;  // total of the training bar
  bool m_in_eval = false;           // between "Running Evaluation" and its metrics
};

// ---- detection ------------------------------------------------------------------------------

// One segment with a shape only training logs have.
bool recognised_segment(string_view raw) {
  string_view worker;
  const string_view s = clean_segment(raw, worker);
  if (s.empty()) return false;
  Stamp st;
  string_view rest;
  LogHeader h;
  if (scan_stamped(s, st, rest) > 0) return st.valid && parse_header(rest, h);
  Bar bar;
  if (parse_bar(s, bar) == BarParse::ok) return bar_kind(bar) != BarKind::other && all_digits(bar.n);
  if (starts_with(s, "{'")) {
    bool trainer = false;
    const bool ok = parse_py_dict(s, [&](string_view k, string_view) {
      trainer = trainer || k == "loss" || k == "eval_loss" || k == "train_runtime" || k == "learning_rate";
    });
    return ok && trainer;
  }
  if (default_format(s, h)) return true;  // "INFO:__main__:msg", "INFO:lightning.pytorch...:GPU available"
  return starts_with(s, "GPU available: ") || (starts_with(s, "LOCAL_RANK: ") && s.find("CUDA_VISIBLE_DEVICES") != string_view::npos);
}

// A Python logging line: a stamp without a zone (asctime, the HF and %y formats; not ISO 'T'
// stamps, which kernel logs print with an offset) and a header with a level.
bool python_logging_line(string_view line) {
  string_view worker;
  const string_view s = clean_segment(line, worker);
  Stamp st;
  string_view rest;
  LogHeader h;
  const bool bracketed = !s.empty() && s[0] == '[';
  if (scan_stamped(s, st, rest) == 0 || !st.valid || st.has_offset) return false;
  if (s.size() > 11 && s[bracketed ? 11 : 10] == 'T') return false;
  return parse_header(rest, h);
}

bool recognised_line(string_view line) {
  std::size_t pos = 0;
  while (pos <= line.size()) {
    const std::size_t cr = line.find('\r', pos);
    if (recognised_segment(line.substr(pos, cr == string_view::npos ? string_view::npos : cr - pos))) return true;
    if (cr == string_view::npos) break;
    pos = cr + 1;
  }
  return false;
}

// Calls on_line(line) for the first `max_lines` non-blank whole lines of `head` until it
// returns true; true when one did.
template <class OnLine>
bool any_head_line(std::string_view head, std::size_t max_lines, OnLine&& on_line) {
  std::size_t considered = 0, pos = 0;
  while (pos < head.size() && considered < max_lines) {
    const std::size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos && pos > 0 && head.size() >= 64 * 1024) break;  // a cut last line
    std::string_view line = head.substr(pos, nl == std::string_view::npos ? head.npos : nl - pos);
    pos = nl == std::string_view::npos ? head.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (text::trim(line).empty()) continue;
    ++considered;
    if (on_line(line)) return true;
  }
  return false;
}

}  // namespace

bool looks_like_python_logging(std::string_view head) {
  return any_head_line(head, 40, [](std::string_view line) { return python_logging_line(line); });
}

bool looks_like_trainlog(std::string_view head, const PrepOptions& options) {
  auto patterns = UserPatterns::compile(options.patterns);  // once per input; a bad one matches nothing
  const bool use_patterns = patterns && !patterns->empty();
  return any_head_line(head, 200, [&](std::string_view line) {
    return recognised_line(line) || (use_patterns && patterns->match(text::rtrim(line)) >= 0);
  });
}

Expected<std::unique_ptr<LineParser>> make_trainlog_parser(ParseContext& ctx, std::string_view /*head*/) {
  auto patterns = UserPatterns::compile(ctx.options.patterns);
  if (!patterns) return patterns.error();
  return std::unique_ptr<LineParser>(std::make_unique<TrainlogParser>(std::move(*patterns)));
}

}  // namespace gpucost::prep

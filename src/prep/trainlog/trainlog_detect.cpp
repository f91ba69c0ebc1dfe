// Detection of Python training logs: a line shape only they have in the first lines of an input.
#include "dialects.hpp"
#include "prep/parsers.hpp"
#include "prep/user_patterns.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep {

namespace {

using std::string_view;
using namespace trainlog;

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
  if (parse_bar(s, bar) == BarParse::ok) return bar_kind(bar) != BarKind::other && text::all_digits(bar.n);
  if (s.starts_with("{'")) {
    bool trainer = false;
    const bool ok = parse_py_dict(s, [&](string_view k, string_view) {
      trainer = trainer || k == "loss" || k == "eval_loss" || k == "train_runtime" || k == "learning_rate";
    });
    return ok && trainer;
  }
  if (default_format(s, h)) return true;  // "INFO:__main__:msg", "INFO:lightning.pytorch...:GPU available"
  return s.starts_with("GPU available: ") ||
         (s.starts_with("LOCAL_RANK: ") && s.find("CUDA_VISIBLE_DEVICES") != string_view::npos);
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
  HeadLines lines(head);
  std::string_view line;
  for (std::size_t considered = 0; considered < max_lines && lines.next(line); ++considered)
    if (on_line(line)) return true;
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

}  // namespace gpucost::prep

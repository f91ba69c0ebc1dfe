// Python training logs: what every dialect file of trainlog/ uses: small text helpers, and the
// metrics a line carries, put on the event under the names of docs/formats.md. Internal to prep.
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/text.hpp>

#include <cstddef>
#include <string_view>

namespace gpucost::prep::trainlog {

// ---- small text helpers -----------------------------------------------------------------

using text::ascii_lower;
using text::icontains;
using text::is_alpha;
using text::istarts_with;
using text::ltrim;

/// Leading digits of s (none: empty).
inline std::string_view leading_digits(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && text::is_digit(s[n])) ++n;
  return s.substr(0, n);
}

// ---- metrics ---------------------------------------------------------------------------------

enum class Phase { start, epoch, step, eval, checkpoint, end };

std::string_view phase_name(Phase p);

/// Keys a metric from the log must not take: the event's own, so they go under "extra".
bool reserved_key(std::string_view key);

bool is_number(std::string_view v);

/// Adds key=value from the log under its canonical name; numbers unquoted, anything else text.
void add_metric(Event& ev, std::string_view key, std::string_view value);

void add_number_text(Event& ev, std::string_view key, std::string_view digits);

/// A Python dict repr: {'loss': 2.0, 'rewards/chosen': -0.1, 'name': 'x'}; calls on_item(key,
/// value) per item. False when the text is not one.
template <class OnItem>
bool parse_py_dict(std::string_view s, OnItem&& on_item) {
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
    if (kend == std::string_view::npos) return false;
    const std::string_view key = s.substr(pos + 1, kend - pos - 1);
    pos = kend + 1;
    skip();
    if (pos >= s.size() || s[pos] != ':') return false;
    ++pos;
    skip();
    const std::size_t vstart = pos;
    if (pos < s.size() && (s[pos] == '\'' || s[pos] == '"')) {
      const std::size_t vend = s.find(s[pos], pos + 1);
      if (vend == std::string_view::npos) return false;
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
    const std::string_view value = text::trim(s.substr(vstart, pos - vstart));
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

/// "perplexity: 1222.15 eval_loss: 7.10", "l_g_pix: 1.4e-03 l_g_fea: 1.0": numeric pairs only.
void parse_colon_metrics(std::string_view s, Event& ev);

}  // namespace gpucost::prep::trainlog

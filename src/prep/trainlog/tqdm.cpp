// Progress bars of tqdm and the tools that draw with it (dialects.hpp).
#include "dialects.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <array>

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

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
  if (b.unit.starts_with("?")) b.unit.remove_prefix(1);
}

}  // namespace

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

// The bar's rate: it_per_s (and s_per_it when tqdm shows seconds per iteration), or rate and its unit.
void add_bar_rate(const Bar& b, Event& ev) {
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
void add_bar_postfix(string_view p, Event& ev) {
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

}  // namespace gpucost::prep::trainlog

// BasicSR and traiNNer metric lines (dialects.hpp).
#include "dialects.hpp"

#include <gpucost/core/text.hpp>

#include <array>

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

// "107,200" -> "107200" (owned by the event).
string_view strip_thousands(string_view v, Event& ev) {
  if (v.find(',') == string_view::npos) return v;
  std::array<char, 32> buf{};
  std::size_t n = 0;
  for (const char c : v)
    if (c != ',' && n < buf.size()) buf[n++] = c;
  return ev.own(string_view(buf.data(), n));
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

}  // namespace

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
    if (group.starts_with("epoch:")) {
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

}  // namespace gpucost::prep::trainlog

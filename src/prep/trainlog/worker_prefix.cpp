// Per-worker prefixes that launchers put before every line of a worker (dialects.hpp).
#include "dialects.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

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
    if (after.starts_with("<stdout>:") || after.starts_with("<stderr>:")) {
      worker = inside;
      return after.substr(9);
    }
    // torchrun --tee: "[default0]:"; PyTorch's "[rank0]:"
    const bool tee = (inside.starts_with("default") && text::all_digits(inside.substr(7))) ||
                     (inside.starts_with("rank") && text::all_digits(inside.substr(4)));
    if (tee && after.starts_with(":")) {
      worker = inside;
      return after.substr(1);
    }
    return s;
  }
  // kubectl / Kubeflow: "pt-uwro96fh-worker-0 logs: "
  std::size_t n = 0;
  while (n < s.size() && n < 128 &&
         (is_alpha(s[n]) || text::is_digit(s[n]) || s[n] == '-' || s[n] == '_' || s[n] == '.'))
    ++n;
  if (n > 0 && s.substr(n).starts_with(" logs: ")) {
    worker = s.substr(0, n);
    return s.substr(n + 7);
  }
  return s;
}

}  // namespace

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

}  // namespace gpucost::prep::trainlog

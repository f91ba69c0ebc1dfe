// The fields of Slurm's accounting output (slurm_fields.hpp).
#include "slurm_fields.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep::slurm {

namespace {

/// Splits `s` at the commas outside brackets.
std::vector<std::string_view> split_outside_brackets(std::string_view s) {
  std::vector<std::string_view> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') ++depth;
    if (s[i] == ']') --depth;
    if (s[i] == ',' && depth == 0) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

/// The numbers of one bracket's ranges ("01-03,07"), as text with the first bound's padding.
std::optional<std::vector<std::string>> expand_ranges(std::string_view ranges, std::size_t limit) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = ranges.find(',', start);
    const std::string_view part = ranges.substr(start, comma == std::string_view::npos ? ranges.npos : comma - start);
    const std::size_t dash = part.find('-');
    const std::string_view lo = part.substr(0, dash), hi = dash == std::string_view::npos ? lo : part.substr(dash + 1);
    if (!text::all_digits(lo) || !text::all_digits(hi) || lo.size() > 9 || hi.size() > 9) return std::nullopt;
    const auto a = text::parse_int(lo), b = text::parse_int(hi);
    if (!a || !b || *b < *a || static_cast<std::size_t>(*b - *a) >= limit - out.size()) return std::nullopt;
    for (std::int64_t n = *a; n <= *b; ++n) {
      std::string digits = std::to_string(n);
      if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
      out.push_back(std::move(digits));
    }
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

bool valid_host_char(char c) { return text::is_alpha(c) || text::is_digit(c) || c == '-' || c == '_' || c == '.'; }

/// Expands one name with brackets ("gpu[1-2]-ib[0-1]") into `out`.
bool expand_name(std::string_view name, std::vector<std::string>& out) {
  std::vector<std::string> partial{""};
  std::size_t pos = 0;
  while (pos < name.size()) {
    if (name[pos] == '[') {
      const std::size_t close = name.find(']', pos);
      if (close == std::string_view::npos) return false;
      const auto numbers = expand_ranges(name.substr(pos + 1, close - pos - 1), kMaxHosts);
      if (!numbers || partial.size() * numbers->size() + out.size() > kMaxHosts) return false;
      std::vector<std::string> next;
      next.reserve(partial.size() * numbers->size());
      for (const std::string& p : partial)
        for (const std::string& n : *numbers) next.push_back(p + n);
      partial = std::move(next);
      pos = close + 1;
      continue;
    }
    if (!valid_host_char(name[pos])) return false;
    for (std::string& p : partial) p += name[pos];
    ++pos;
  }
  if (partial.front().empty()) return false;
  out.insert(out.end(), partial.begin(), partial.end());
  return true;
}

}  // namespace

std::optional<std::vector<std::string>> expand_hostlist(std::string_view list) {
  list = text::trim(list);
  std::vector<std::string> out;
  if (list.empty() || list == "None assigned" || list == "(null)") return out;
  for (const std::string_view name : split_outside_brackets(list))
    if (!expand_name(text::trim(name), out)) return std::nullopt;
  return out;
}

std::optional<AllocTres> parse_alloc_tres(std::string_view tres) {
  AllocTres out;
  tres = text::trim(tres);
  if (tres.empty()) return out;
  std::int64_t typed_gpus = 0;
  bool typed = false;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = tres.find(',', start);
    const std::string_view entry = tres.substr(start, comma == std::string_view::npos ? tres.npos : comma - start);
    const std::size_t eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0) return std::nullopt;
    const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    const auto number = text::parse_int(value);
    if (name == "gres/gpu") {
      if (!number || *number < 0) return std::nullopt;
      out.gpus = number;
    } else if (name.starts_with("gres/gpu:")) {
      if (!number || *number < 0) return std::nullopt;
      typed_gpus += *number;
      typed = true;
      if (!out.gpu_types.empty()) out.gpu_types += ',';
      out.gpu_types += name.substr(9);
    } else if (name == "cpu") {
      out.cpus = number;
    } else if (name == "node") {
      out.nodes = number;
    } else if (name == "billing") {
      out.billing = number;
    } else if (name == "mem") {
      out.mem = std::string(value);
    } else if (name == "energy") {
      if (!number || *number < 0) return std::nullopt;
      out.energy_j = number;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!out.gpus && typed) out.gpus = typed_gpus;
  return out;
}

std::optional<GresGpus> parse_gres_gpus(std::string_view gres) {
  GresGpus out;
  gres = text::trim(gres);
  if (gres.empty() || gres == "N/A" || gres == "(null)") return out;
  std::int64_t sum = 0;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= gres.size(); ++i) {
    if (i < gres.size() && gres[i] == '(') ++depth;
    if (i < gres.size() && gres[i] == ')') --depth;
    if (i < gres.size() && (gres[i] != ',' || depth > 0)) continue;
    std::string_view entry = text::trim(gres.substr(start, i - start));
    start = i + 1;
    entry = entry.substr(0, entry.find('('));  // gpu:a100:4(IDX:0-3): the indices
    if (entry.starts_with("gres/") || entry.starts_with("gres:")) entry.remove_prefix(5);
    const std::size_t colon = entry.find(':');
    if (entry.substr(0, colon) != "gpu") continue;  // mps:100, shard:2, another GRES
    std::string_view rest = colon == std::string_view::npos ? std::string_view() : entry.substr(colon + 1);
    std::string_view type;
    std::int64_t count = 1;  // "gpu", "gpu:a100": one, as --gres=gpu asks for
    const std::size_t last = rest.rfind(':');
    const std::string_view tail = last == std::string_view::npos ? rest : rest.substr(last + 1);
    if (text::all_digits(tail)) {
      const auto n = text::parse_int(tail);
      if (!n || *n > kMaxGres) return std::nullopt;
      count = *n;
      type = last == std::string_view::npos ? std::string_view() : rest.substr(0, last);
    } else if (last != std::string_view::npos) {
      return std::nullopt;  // gpu:a100:four
    } else {
      type = rest;
    }
    sum += count;
    out.gpus = sum;
    if (!type.empty()) {
      if (!out.gpu_types.empty()) out.gpu_types += ',';
      out.gpu_types += type;
    }
  }
  return out;
}

std::optional<std::int64_t> parse_time_string(std::string_view text_in) {
  std::string_view s = text::trim(text_in);
  if (const std::size_t dot = s.find('.'); dot != std::string_view::npos) {
    if (!text::all_digits(s.substr(dot + 1))) return std::nullopt;
    s = s.substr(0, dot);  // microseconds: only the CPU fields have them
  }
  std::int64_t days = 0;
  const std::size_t dash = s.find('-');
  const bool with_days = dash != std::string_view::npos;
  if (with_days) {
    const std::string_view d = s.substr(0, dash);
    if (!text::all_digits(d) || d.size() > 6) return std::nullopt;
    days = *text::parse_int(d);
    s = s.substr(dash + 1);
  }
  std::int64_t parts[3] = {0, 0, 0};
  std::size_t n = 0;
  for (std::size_t pos = 0;;) {
    const std::size_t colon = s.find(':', pos);
    const std::string_view part = s.substr(pos, colon == std::string_view::npos ? s.npos : colon - pos);
    if (n == 3 || !text::all_digits(part) || part.size() > 9) return std::nullopt;
    parts[n++] = *text::parse_int(part);
    if (colon == std::string_view::npos) break;
    pos = colon + 1;
  }
  // With days: H, H:M, H:M:S. Without: M, M:S, H:M:S.
  std::int64_t h = 0, m = 0, sec = 0;
  if (with_days || n == 3) {
    h = parts[0];
    m = n > 1 ? parts[1] : 0;
    sec = n > 2 ? parts[2] : 0;
  } else {
    m = parts[0];
    sec = n > 1 ? parts[1] : 0;
  }
  const std::int64_t total = ((days * 24 + h) * 60 + m) * 60 + sec;
  if (total > kMaxTimeSpanS) return std::nullopt;
  return total;
}

namespace {

// sacct's JOB STATE CODES; the first five may go on (docs/formats.md, "Slurm jobs").
constexpr std::string_view kOpenStates[] = {"PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "RESIZING"};
constexpr std::string_view kEndedStates[] = {"BOOT_FAIL", "CANCELLED",     "COMPLETED", "DEADLINE", "FAILED",
                                             "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "REVOKED",  "TIMEOUT"};

}  // namespace

bool is_ended_state(std::string_view name) {
  for (const std::string_view s : kEndedStates)
    if (s == name) return true;
  return false;
}

bool is_known_state(std::string_view name) {
  for (const std::string_view s : kOpenStates)
    if (s == name) return true;
  return is_ended_state(name);
}

std::optional<JobState> parse_job_state(std::string_view state) {
  state = text::trim(state);
  JobState out;
  const std::size_t space = state.find(' ');
  out.name = state.substr(0, space);
  if (!out.name.empty() && out.name.back() == '+') out.name.remove_suffix(1);  // a state cut to the column width
  if (out.name.empty()) return std::nullopt;
  for (const char c : out.name)
    if (!(c >= 'A' && c <= 'Z') && c != '_') return std::nullopt;
  if (space != std::string_view::npos) {
    const std::string_view rest = text::trim(state.substr(space + 1));
    if (!rest.starts_with("by ")) return std::nullopt;
    const auto uid = text::parse_int(text::trim(rest.substr(3)));
    if (!uid) return std::nullopt;
    out.cancelled_by = uid;
  }
  return out;
}

std::optional<ExitCode> parse_exit_code(std::string_view text_in) {
  const std::string_view s = text::trim(text_in);
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view a = s.substr(0, colon), b = s.substr(colon + 1);
  if (!text::all_digits(a) || !text::all_digits(b)) return std::nullopt;
  const auto code = text::parse_int(a), signal = text::parse_int(b);
  if (!code || !signal) return std::nullopt;
  return ExitCode{*code, *signal};
}

std::optional<JobId> split_job_id(std::string_view id) {
  id = text::trim(id);
  JobId out;
  const std::size_t dot = id.find('.');
  out.job = id.substr(0, dot);
  if (dot != std::string_view::npos) {
    out.step = id.substr(dot + 1);
    if (out.step.empty()) return std::nullopt;
    for (const char c : out.step)
      if (!text::is_alpha(c) && !text::is_digit(c) && c != '_' && c != '+') return std::nullopt;
  }
  std::size_t i = 0;
  while (i < out.job.size() && text::is_digit(out.job[i])) ++i;
  if (i == 0) return std::nullopt;
  if (i == out.job.size()) return out;
  const std::string_view rest = out.job.substr(i + 1);
  if (out.job[i] == '+' && text::all_digits(rest)) return out;  // a heterogeneous job's component
  if (out.job[i] == '_' && (text::all_digits(rest) || (rest.starts_with('[') && rest.ends_with(']'))))
    return out;  // an array task, or its pending tasks
  return std::nullopt;
}

}  // namespace gpucost::prep::slurm

#include <gpucost/pipeline/event_filter.hpp>

#include <gpucost/core/text.hpp>
#include <gpucost/pipeline/settings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::pipeline {

namespace {

bool is_kind_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

}  // namespace

std::string EventSelection::describe() const {
  std::string out;
  if (!kinds.empty()) out += "--kinds " + text::join(kinds, ",");
  if (from_ns) out += fmt::format("{}--from {}", out.empty() ? "" : " ", format_utc(*from_ns));
  if (to_ns) out += fmt::format("{}--to {}", out.empty() ? "" : " ", format_utc(*to_ns));
  return out;
}

Expected<EventSelection> parse_event_selection(const std::string& kinds, const std::string& from, const std::string& to,
                                               LocalClock& clock) {
  EventSelection s;
  std::string_view rest = kinds;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view kind = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (!is_kind_name(kind))
      return make_error(ErrorKind::usage, fmt::format("--kinds: '{}' is not an event kind", kind),
                        "a comma-separated list of kinds, e.g. --kinds xid,aer,gpu_lost (docs/formats.md lists them)");
    if (std::find(s.kinds.begin(), s.kinds.end(), kind) == s.kinds.end()) s.kinds.emplace_back(kind);
  }
  auto window = window_options(from, to, clock);
  if (!window) return window.error();
  s.from_ns = window->from_ns;
  s.to_ns = window->to_ns;
  if (s.from_ns && s.to_ns && *s.to_ns <= *s.from_ns)
    return make_error(ErrorKind::usage, fmt::format("--to {} is not after --from {}", to, from),
                      "the window is [--from, --to): --to must be later");
  return s;
}

void EventFilter::on_event(const Event& event) {
  // Kinds are few: a new one is copied once, then each event costs a compare per kind seen.
  if (std::find(m_seen.begin(), m_seen.end(), event.kind) == m_seen.end()) m_seen.emplace_back(event.kind);
  bool pass = true;
  if (!m_selection.kinds.empty()) {
    const auto it = std::find(m_selection.kinds.begin(), m_selection.kinds.end(), event.kind);
    pass = it != m_selection.kinds.end();
    if (pass) m_matched[static_cast<std::size_t>(it - m_selection.kinds.begin())] = true;
  }
  pass = pass && (!m_selection.from_ns || event.ts_ns >= *m_selection.from_ns) &&
         (!m_selection.to_ns || event.ts_ns < *m_selection.to_ns);
  if (!pass) {
    ++m_left_out;
    return;
  }
  ++m_passed;
  m_next.on_event(event);
}

std::vector<std::string> EventFilter::kinds_not_seen() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < m_selection.kinds.size(); ++i)
    if (!m_matched[i]) out.push_back(m_selection.kinds[i]);
  return out;
}

}  // namespace gpucost::pipeline

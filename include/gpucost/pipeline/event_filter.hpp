// prep --kinds and --from/--to: the events of some kinds, or of a time window, pass on; the rest
// are counted (the stream's summary and a note say how many were left out), never dropped silently.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/prep/prep.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpucost::pipeline {

struct EventSelection {
  std::vector<std::string> kinds;              ///< empty: every kind
  std::optional<std::int64_t> from_ns, to_ns;  ///< [from, to)
  [[nodiscard]] bool everything() const { return kinds.empty() && !from_ns && !to_ns; }
  /// "--kinds xid,aer --from 2024-06-12T12:00:00Z": the selection as the flags gave it.
  [[nodiscard]] std::string describe() const;
};

/// --kinds "xid,aer" (comma-separated event kinds), --from, --to (ISO 8601, local in `clock`
/// unless Z or an offset); any of them may be empty.
Expected<EventSelection> parse_event_selection(const std::string& kinds, const std::string& from, const std::string& to,
                                               LocalClock& clock);

class EventFilter final : public EventSink {
 public:
  EventFilter(EventSink& next, EventSelection selection) : m_next(next), m_selection(std::move(selection)) {
    m_matched.assign(m_selection.kinds.size(), false);
  }
  void on_event(const Event& event) override;

  [[nodiscard]] std::uint64_t passed() const { return m_passed; }
  [[nodiscard]] std::uint64_t left_out() const { return m_left_out; }
  /// The kinds asked for that no event had (a typo, or a log without them).
  [[nodiscard]] std::vector<std::string> kinds_not_seen() const;
  /// Every kind the inputs had, in the order first seen.
  [[nodiscard]] const std::vector<std::string>& kinds_seen() const { return m_seen; }

 private:
  EventSink& m_next;
  EventSelection m_selection;
  std::vector<bool> m_matched;
  std::vector<std::string> m_seen;
  std::uint64_t m_passed = 0, m_left_out = 0;
};

}  // namespace gpucost::pipeline

// Events kept past the call that handed them over, with their strings: one (HeldEvent: the
// merge of several inputs holds each input's next event) or many in order (EventBuffer: prep -j
// keeps a chunk's events on a worker until the chunk is joined).
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>

#include <cstddef>
#include <deque>
#include <string>

namespace gpucost {

/// An event copied out of its parser's buffers: every view of `event` points into `text` (so a
/// HeldEvent must not be moved: a short `text` lives inside it).
struct HeldEvent {
  Event event;
  std::string text;
  /// Copies `ev` here (reusing the capacity of the event before).
  void hold(const Event& ev);
};

class EventBuffer {
 public:
  /// Copies `event`, its strings included.
  void add(const Event& event);
  /// Hands every event kept to `sink`, in the order added.
  void replay(EventSink& sink) const;
  /// Forgets the events (their slots are kept for the next ones).
  void clear() { m_size = 0; }
  [[nodiscard]] bool empty() const { return m_size == 0; }
  [[nodiscard]] std::size_t size() const { return m_size; }

 private:
  std::deque<HeldEvent> m_events;  // a deque: a held event's views stay valid as others are added
  std::size_t m_size = 0;
};

}  // namespace gpucost

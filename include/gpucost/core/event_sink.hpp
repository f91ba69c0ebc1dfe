// EventSink: the one interface the stages meet at. The events writer, the events-stream
// reader's consumer, extract's collector and the report's collectors are all sinks.
#pragma once

#include <gpucost/core/event.hpp>

namespace gpucost {

/// Receives events; the Event and its string_views are valid only during the call.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
};

}  // namespace gpucost

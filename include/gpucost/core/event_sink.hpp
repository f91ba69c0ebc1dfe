// EventSink: the one interface the stages meet at. The events writer, the events-stream
// reader's consumer, extract's collector and the report's collectors are all sinks.
#pragma once

#include <gpucost/core/event.hpp>

#include <memory>

namespace gpucost {

class ForkableSink;

/// Receives events; the Event and its string_views are valid only during the call.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void on_event(const Event& event) = 0;
  /// Non-null when events made on several threads at once can reach this sink (prep -j).
  virtual ForkableSink* forkable() { return nullptr; }
};

/// A sink that takes the events of one input's chunks parsed side by side (prep -j): each chunk's
/// events go to a sink of their own, made by fork() and filled on a worker thread; join() then
/// hands them on, chunk after chunk in input order, as if they had come here one by one.
class ForkableSink {
 public:
  virtual ~ForkableSink() = default;
  [[nodiscard]] virtual std::unique_ptr<EventSink> fork() = 0;
  /// Hands on the events `forked` (made by fork()) holds, and empties it for another chunk.
  virtual void join(EventSink& forked) = 0;
  /// Drops the events `forked` holds (a chunk that is parsed again).
  virtual void discard(EventSink& forked) = 0;
};

}  // namespace gpucost

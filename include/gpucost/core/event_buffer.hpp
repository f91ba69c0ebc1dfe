// EventBuffer: events kept past the call that handed them over, with their strings, to be handed
// on later in the same order (prep -j: a chunk's events wait on a worker until the chunk is joined).
#pragma once

#include <gpucost/core/event.hpp>
#include <gpucost/core/event_sink.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace gpucost {

class EventBuffer {
 public:
  /// Copies `event`, its strings included.
  void add(const Event& event);
  /// Hands every event kept to `sink`, in the order added.
  void replay(EventSink& sink) const;
  void clear();
  [[nodiscard]] bool empty() const { return m_events.empty(); }
  [[nodiscard]] std::size_t size() const { return m_events.size(); }

 private:
  struct Text {  // a string kept in m_text
    std::uint32_t at = 0, size = 0;
  };
  struct StoredField {
    Text key, value;
    bool numeric = false, extra = false;
  };
  struct Stored {
    std::int64_t ts_ns = 0;
    std::int32_t gpu = -1;
    std::uint64_t present = 0;
    Text source, host, kind;
    std::uint32_t first_value = 0, value_count = 0;  // in m_values: the present metrics
    std::uint32_t first_field = 0, field_count = 0;
  };
  struct StoredValue {
    std::uint32_t metric = 0;
    double value = 0;
    Text text;
  };
  Text keep(std::string_view s);
  [[nodiscard]] std::string_view view(Text t) const { return std::string_view(m_text).substr(t.at, t.size); }

  std::vector<Stored> m_events;
  std::vector<StoredValue> m_values;
  std::vector<StoredField> m_fields;
  std::string m_text;
};

}  // namespace gpucost

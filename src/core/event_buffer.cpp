#include <gpucost/core/event_buffer.hpp>

namespace gpucost {

EventBuffer::Text EventBuffer::keep(std::string_view s) {
  const Text t{static_cast<std::uint32_t>(m_text.size()), static_cast<std::uint32_t>(s.size())};
  m_text.append(s);
  return t;
}

void EventBuffer::add(const Event& event) {
  Stored e;
  e.ts_ns = event.ts_ns;
  e.gpu = event.gpu;
  e.present = event.present;
  e.source = keep(event.source);
  e.host = keep(event.host);
  e.kind = keep(event.kind);
  e.first_value = static_cast<std::uint32_t>(m_values.size());
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    if (!event.has(static_cast<Metric>(i))) continue;
    m_values.push_back(StoredValue{static_cast<std::uint32_t>(i), event.values[i], keep(event.texts[i])});
  }
  e.value_count = static_cast<std::uint32_t>(m_values.size()) - e.first_value;
  e.first_field = static_cast<std::uint32_t>(m_fields.size());
  e.field_count = static_cast<std::uint32_t>(event.fields.size());
  for (const Field& f : event.fields) m_fields.push_back(StoredField{keep(f.key), keep(f.value), f.numeric, f.extra});
  m_events.push_back(e);
}

void EventBuffer::replay(EventSink& sink) const {
  Event ev;
  for (const Stored& e : m_events) {
    ev.reset();
    ev.ts_ns = e.ts_ns;
    ev.gpu = e.gpu;
    ev.source = view(e.source);
    ev.host = view(e.host);
    ev.kind = view(e.kind);
    for (std::uint32_t v = 0; v < e.value_count; ++v) {
      const StoredValue& s = m_values[e.first_value + v];
      ev.set(static_cast<Metric>(s.metric), s.value, view(s.text));
    }
    for (std::uint32_t f = 0; f < e.field_count; ++f) {
      const StoredField& s = m_fields[e.first_field + f];
      ev.fields.push_back(Field{view(s.key), view(s.value), s.numeric, s.extra});
    }
    sink.on_event(ev);
  }
}

void EventBuffer::clear() {
  m_events.clear();
  m_values.clear();
  m_fields.clear();
  m_text.clear();
}

}  // namespace gpucost

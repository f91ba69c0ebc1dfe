#include <gpucost/core/event_buffer.hpp>

namespace gpucost {

void HeldEvent::hold(const Event& ev) {
  std::size_t bytes = ev.source.size() + ev.host.size() + ev.kind.size();
  for (std::uint64_t bits = ev.present; bits != 0; bits &= bits - 1)
    bytes += ev.texts[static_cast<std::size_t>(__builtin_ctzll(bits))].size();
  for (const Field& f : ev.fields) bytes += f.key.size() + f.value.size();
  text.clear();
  text.reserve(bytes);  // no reallocation below: the views taken stay valid
  const auto copy = [&](std::string_view s) {
    const std::size_t at = text.size();
    text.append(s);
    return std::string_view(text.data() + at, s.size());
  };
  event.ts_ns = ev.ts_ns;
  event.gpu = ev.gpu;
  event.present = ev.present;
  event.values = ev.values;
  event.source = copy(ev.source);
  event.host = copy(ev.host);
  event.kind = copy(ev.kind);
  for (std::uint64_t bits = ev.present; bits != 0; bits &= bits - 1) {  // the present metrics only
    const auto i = static_cast<std::size_t>(__builtin_ctzll(bits));
    event.texts[i] = copy(ev.texts[i]);
  }
  event.fields.clear();
  for (const Field& f : ev.fields) event.fields.push_back(Field{copy(f.key), copy(f.value), f.numeric, f.extra});
}

void EventBuffer::add(const Event& event) {
  if (m_size == m_events.size()) m_events.emplace_back();
  m_events[m_size++].hold(event);
}

void EventBuffer::replay(EventSink& sink) const {
  for (std::size_t i = 0; i < m_size; ++i) sink.on_event(m_events[i].event);
}

}  // namespace gpucost

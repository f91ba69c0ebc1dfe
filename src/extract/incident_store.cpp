// The incident store: bounded memory for kernel and system incidents (src/extract/spill.cpp).
#include <gpucost/extract/incident_store.hpp>

#include <algorithm>
#include <limits>

namespace gpucost::extract {

IncidentStore::IncidentStore(std::size_t budget) : m_budget(std::max<std::size_t>(budget, 16)) {
  id_of(kTooManyNames);  // id 0
}

std::uint16_t IncidentStore::id_of(std::string_view text) {
  const auto found = m_ids.find(text);
  if (found != m_ids.end()) return found->second;
  if (m_names.size() >= kMaxNames) return 0;  // kTooManyNames
  const std::string& kept = m_names.emplace_back(text);
  const auto id = static_cast<std::uint16_t>(m_names.size() - 1);
  m_ids.emplace(kept, id);
  return id;
}

void IncidentStore::add(std::int64_t ts_ns, EventKind kind, std::string_view detail, int code, std::string_view device,
                        FaultCause cause) {
  const bool fits =
      code >= std::numeric_limits<std::int16_t>::min() && code <= std::numeric_limits<std::int16_t>::max();
  const auto kept_code = static_cast<std::int16_t>(fits ? code : -1);
  m_series.add(Stored{ts_ns, id_of(detail), id_of(device), kept_code, kind, cause});
  ++m_total;
  m_min_ts = std::min(m_min_ts, ts_ns);
  m_max_ts = std::max(m_max_ts, ts_ns);
  if (m_series.in_memory() > m_budget && !m_series.spill(m_file))
    m_budget *= 2;  // the file failed: keep the incidents in memory rather than lose them
}

}  // namespace gpucost::extract

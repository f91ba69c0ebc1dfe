#include "host_ops.hpp"

#include <algorithm>
#include <unordered_map>

namespace gpucost::prep::trace {

std::string_view to_string(HostOpKind k) {
  switch (k) {
    case HostOpKind::cpu_op: return "cpu_op";
    case HostOpKind::runtime: return "runtime";
    case HostOpKind::annotation: return "annotation";
  }
  return "cpu_op";
}

namespace {

bool starts_inside(const HostOp& op, const std::vector<StepMark>& steps) {
  return std::any_of(steps.begin(), steps.end(), [&](const StepMark& s) {
    return op.start_ns >= s.start_ns && op.start_ns < s.start_ns + s.dur_ns;
  });
}

}  // namespace

std::vector<OperatorRow> operator_table(const TraceData& data, const std::optional<std::vector<StepMark>>& steps) {
  // One row per (kind, name): the same name as a cpu_op and an annotation stays two rows.
  std::unordered_map<std::uint64_t, std::size_t> row_of;
  std::vector<OperatorRow> rows;
  for (const HostOp& op : data.host_ops) {
    if (steps && !starts_inside(op, *steps)) continue;
    const std::uint64_t key = (std::uint64_t{op.name} << 2) | static_cast<std::uint64_t>(op.kind);
    auto [it, added] = row_of.try_emplace(key, rows.size());
    if (added) rows.push_back(OperatorRow{data.names[op.name], op.kind, 0, 0, 0});
    OperatorRow& row = rows[it->second];
    ++row.calls;
    row.total_ns += op.dur_ns;
    row.max_ns = std::max(row.max_ns, op.dur_ns);
  }
  std::sort(rows.begin(), rows.end(), [](const OperatorRow& a, const OperatorRow& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return rows;
}

}  // namespace gpucost::prep::trace

#include <gpucost/core/input_stats.hpp>

#include <algorithm>
#include <utility>

namespace gpucost {

std::string_view to_string(TimeBasis b) {
  switch (b) {
    case TimeBasis::absolute: return "absolute";
    case TimeBasis::local: return "local";
    case TimeBasis::uptime: return "uptime";
    case TimeBasis::relative: return "relative";
    case TimeBasis::none: break;
  }
  return "none";
}

void add_note(InputStats& stats, std::string text) {
  if (std::find(stats.notes.begin(), stats.notes.end(), text) == stats.notes.end())
    stats.notes.push_back(std::move(text));
}

}  // namespace gpucost

#include <gpucost/breakeven/gpu_speed.hpp>

#include "toml_list.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <cctype>

namespace gpucost::breakeven {

namespace {

constexpr std::string_view kTable =
#include "gpu_speed.inc"
    ;

Expected<GpuSpeed> read_gpu(const toml::table& t, std::string_view origin, std::size_t index) {
  GpuSpeed g;
  g.model = t["model"].value_or(std::string());
  g.precision = t["precision"].value_or(std::string());
  g.source = t["source"].value_or(std::string());
  g.date_seen = t["date_seen"].value_or(std::string());
  g.idle_source = t["idle_source"].value_or(std::string());
  g.interconnect = t["interconnect"].value_or(std::string());
  if (g.model.empty() || g.source.empty() || g.date_seen.empty())
    return make_error(ErrorKind::config,
                      fmt::format("{}: gpu {}: model, source and date_seen are required", origin, index));
  if (const auto* m = t["match"].as_array())
    for (const auto& v : *m) g.match.push_back(gpu_name_words(v.value_or(std::string())));
  if (g.match.empty())
    return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': 'match' is missing", origin, g.model));
  for (auto [key, field] : {std::pair{"dense_tflops", &g.dense_tflops}, std::pair{"tdp_w", &g.tdp_w},
                            std::pair{"memory_gb", &g.memory_gb}, std::pair{"idle_w", &g.idle_w},
                            std::pair{"memory_bw_gbs", &g.memory_bw_gbs},
                            std::pair{"interconnect_gbs", &g.interconnect_gbs}}) {
    const auto v = t[key].value<double>();
    if (!v) continue;
    if (!(*v > 0))
      return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': {} must be > 0", origin, g.model, key));
    *field = *v;
  }
  if (g.idle_w && g.idle_source.empty())
    return make_error(ErrorKind::config,
                      fmt::format("{}: gpu '{}': idle_w needs idle_source (what measured it)", origin, g.model));
  if (g.idle_w && g.tdp_w && *g.idle_w >= *g.tdp_w)
    return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': idle_w must be below tdp_w", origin, g.model));
  return g;
}

bool starts_with_words(const std::vector<std::string>& name, const std::vector<std::string>& prefix) {
  if (prefix.empty() || prefix.size() > name.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (name[i] != prefix[i]) return false;
  return true;
}

}  // namespace

std::vector<std::string> gpu_name_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty() && word != "nvidia" && word != "geforce" && word != "tesla" && word != "amd" &&
        word != "instinct")
      words.push_back(word);
    word.clear();
  };
  for (const char ch : name) {
    if (ch == ' ' || ch == '-' || ch == '_' || ch == '\t')
      flush();
    else
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  flush();
  return words;
}

Expected<std::vector<GpuSpeed>> parse_gpu_speeds(std::string_view toml_text, std::string_view origin) {
  return parse_toml_list<GpuSpeed>(toml_text, origin, "gpu", read_gpu);
}

const std::vector<GpuSpeed>& gpu_speeds() {
  static const std::vector<GpuSpeed> kSpeeds = [] {
    auto parsed = parse_gpu_speeds(kTable, "data/gpu-speed.toml");
    return parsed ? std::move(*parsed) : std::vector<GpuSpeed>{};  // a unit test parses it
  }();
  return kSpeeds;
}

const GpuSpeed* find_gpu_speed(std::string_view name, const std::vector<GpuSpeed>& table) {
  const std::vector<std::string> words = gpu_name_words(name);
  const GpuSpeed* best = nullptr;
  std::size_t best_len = 0;
  for (const GpuSpeed& g : table)
    for (const auto& m : g.match)
      if (m.size() > best_len && starts_with_words(words, m)) {
        best = &g;
        best_len = m.size();
      }
  return best;
}

std::optional<TableRatio> table_speed_ratio(std::string_view local_model, std::string_view cloud_model,
                                            std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<TableRatio> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (local_model.empty()) return fail("the local GPU model is not in the logs");
  const GpuSpeed* local = find_gpu_speed(local_model);
  const GpuSpeed* cloud = find_gpu_speed(cloud_model);
  if (local == nullptr) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", local_model));
  if (cloud == nullptr) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", cloud_model));
  if (!local->dense_tflops) return fail(fmt::format("no published throughput for {}", local->model));
  if (!cloud->dense_tflops) return fail(fmt::format("no published throughput for {}", cloud->model));
  TableRatio r;
  r.ratio = *cloud->dense_tflops / *local->dense_tflops;
  r.source = fmt::format(
      "table: peak dense TFLOPS {} {:g} / {} {:g} (data/gpu-speed.toml, seen {}; a peak ratio: "
      "real jobs gain less)",
      cloud->model, *cloud->dense_tflops, local->model, *local->dense_tflops, cloud->date_seen);
  return r;
}

}  // namespace gpucost::breakeven

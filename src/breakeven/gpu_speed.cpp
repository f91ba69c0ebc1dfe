#include <gpucost/breakeven/gpu_speed.hpp>

#include "toml_list.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cmath>

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
  g.bandwidth_source = t["bandwidth_source"].value_or(std::string());
  g.accumulate = t["accumulate"].value_or(std::string());
  if (const auto* v = t["variants"].as_array())
    for (const auto& name : *v) g.variants.push_back(name.value_or(std::string()));
  if (g.model.empty() || g.source.empty() || g.date_seen.empty())
    return make_error(ErrorKind::config,
                      fmt::format("{}: gpu {}: model, source and date_seen are required", origin, index));
  if (const auto* m = t["match"].as_array())
    for (const auto& v : *m) g.match.push_back(gpu_name_words(v.value_or(std::string())));
  if (g.match.empty())
    return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': 'match' is missing", origin, g.model));
  for (auto [key, field] :
       {std::pair{"dense_tflops", &g.dense_tflops}, std::pair{"tdp_w", &g.tdp_w}, std::pair{"memory_gb", &g.memory_gb},
        std::pair{"idle_w", &g.idle_w}, std::pair{"memory_bw_gbs", &g.memory_bw_gbs},
        std::pair{"interconnect_gbs", &g.interconnect_gbs}}) {
    const auto v = t[key].value<double>();
    if (!v) continue;
    if (!(*v > 0))
      return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': {} must be > 0", origin, g.model, key));
    *field = *v;
  }
  // A throughput without its accumulator could be compared with one of the other kind, off by 2x.
  if (g.dense_tflops && g.accumulate.empty())
    return make_error(
        ErrorKind::config,
        fmt::format("{}: gpu '{}': dense_tflops needs accumulate (\"fp32\" or \"fp16\")", origin, g.model));
  if (!g.accumulate.empty() && g.accumulate != "fp32" && g.accumulate != "fp16")
    return make_error(ErrorKind::config, fmt::format("{}: gpu '{}': accumulate is \"fp32\" or \"fp16\", not \"{}\"",
                                                     origin, g.model, g.accumulate));
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
  auto gpus = parse_toml_list<GpuSpeed>(toml_text, origin, "gpu", read_gpu);
  if (!gpus) return gpus;
  for (const GpuSpeed& g : *gpus)
    for (const std::string& v : g.variants) {
      const auto it = std::find_if(gpus->begin(), gpus->end(), [&](const GpuSpeed& o) { return o.model == v; });
      if (it == gpus->end() || !it->variants.empty())
        return make_error(
            ErrorKind::config,
            fmt::format("{}: gpu '{}': variant '{}' is not a model of one board in the table", origin, g.model, v));
    }
  return gpus;
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

namespace {

// The form factor a word names: boards of one GPU that differ in power, bandwidth and throughput.
std::string_view form_of_word(std::string_view w) {
  if (w == "sxm" || w == "sxm2" || w == "sxm4" || w == "sxm5") return "sxm";
  if (w == "pcie") return "pcie";
  if (w == "nvl") return "nvl";
  return {};
}

std::vector<std::string> form_words(std::string_view text) {
  std::vector<std::string> out;
  for (const std::string& w : gpu_name_words(text))
    if (const auto f = form_of_word(w); !f.empty() && std::find(out.begin(), out.end(), f) == out.end())
      out.emplace_back(f);
  return out;
}

std::string joined(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : std::string(sep)) + p;
  return out;
}

std::string models_of(const std::vector<const GpuSpeed*>& boards) {
  std::vector<std::string> names;
  for (const GpuSpeed* b : boards) names.push_back(b->model);
  return joined(names, ", ");
}

// The ratio with `share` of the step not sped up: 1 / ((1 - share) / r + share), between r and 1.
double with_fixed_share(double ratio) { return 1.0 / ((1.0 - kSpeedFixedShare) / ratio + kSpeedFixedShare); }

std::string accumulate_text(std::string_view accumulate) {
  return accumulate == "fp16" ? "FP16 with FP16 accumulate" : "FP16/BF16 with FP32 accumulate";
}

}  // namespace

GpuIdentity identify_gpu(std::string_view name, const GpuHints& hints, const std::vector<GpuSpeed>& table) {
  GpuIdentity id;
  const GpuSpeed* entry = find_gpu_speed(name, table);
  if (entry == nullptr) return id;
  if (entry->variants.empty()) {
    id.boards.push_back(entry);
    return id;
  }
  std::vector<const GpuSpeed*> all;
  for (const std::string& v : entry->variants)
    for (const GpuSpeed& g : table)
      if (g.model == v) all.push_back(&g);
  std::vector<const GpuSpeed*> kept = all;
  std::vector<std::string> told;
  std::vector<std::string> said = form_words(name);
  const bool from_hints = said.empty();
  if (from_hints) said = form_words(hints.text);
  if (!said.empty()) {
    std::vector<const GpuSpeed*> by_form;
    for (const GpuSpeed* b : kept) {
      const auto forms = form_words(b->model);
      if (std::any_of(forms.begin(), forms.end(),
                      [&](const std::string& f) { return std::find(said.begin(), said.end(), f) != said.end(); }))
        by_form.push_back(b);
    }
    if (!by_form.empty() && by_form.size() < kept.size()) {
      kept = std::move(by_form);
      told.push_back(
          fmt::format("'{}' in '{}'", joined(said, "', '"), from_hints ? std::string(hints.text) : std::string(name)));
    }
  }
  if (hints.memory_gb > 0 && kept.size() > 1) {
    std::vector<const GpuSpeed*> by_memory;
    for (const GpuSpeed* b : kept)
      if (b->memory_gb && std::abs(*b->memory_gb - hints.memory_gb) < 0.5) by_memory.push_back(b);
    if (!by_memory.empty() && by_memory.size() < kept.size()) {
      kept = std::move(by_memory);
      told.push_back(fmt::format("{:g} GB per GPU", hints.memory_gb));
    }
  }
  id.boards = kept;
  id.basis = kept.size() == 1
                 ? fmt::format("'{}' read as {} (from {})", name, kept.front()->model, joined(told, " and "))
                 : fmt::format("'{}' does not tell the board{}: the range spans {}", name,
                               told.empty() ? "" : " (" + joined(told, " and ") + " leave several)", models_of(kept));
  return id;
}

std::string SpeedRange::sentence() const {
  if (low == high && from_model == to_model)  // the same board: nothing to bound
    return fmt::format("x{:.3g}: the same GPU ({}){} (data/gpu-speed.toml)", middle, to_model,
                       identification.empty() ? "" : "; " + identification);
  return fmt::format(
      "a range x{:.3g} \u2026 x{:.3g}, middle x{:.3g} ({} over {}): low {}; high {}; middle {}{} (data/gpu-speed.toml, "
      "seen {}; measure your job on the other GPU and pass --speed-ratio for a point)",
      low, high, middle, to_model, from_model, low_basis, high_basis, middle_basis,
      identification.empty() ? "" : "; " + identification, date_seen);
}

std::optional<SpeedRange> speed_ratio_range(const GpuSpeed& from, const GpuSpeed& to, std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<SpeedRange> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  for (const GpuSpeed* g : {&from, &to}) {
    if (!g->dense_tflops) return fail(fmt::format("no published dense throughput for {}", g->model));
    if (!g->memory_bw_gbs) return fail(fmt::format("no memory bandwidth for {}", g->model));
  }
  if (from.accumulate != to.accumulate)
    return fail(fmt::format("the throughputs are of different kinds ({}: {}; {}: {}): not compared", from.model,
                            accumulate_text(from.accumulate), to.model, accumulate_text(to.accumulate)));
  const double memory = *to.memory_bw_gbs / *from.memory_bw_gbs;
  const double compute = *to.dense_tflops / *from.dense_tflops;
  const std::string memory_text = fmt::format("memory-bound x{:.3g} (peak memory bandwidth {:g} / {:g} GB/s)", memory,
                                              *to.memory_bw_gbs, *from.memory_bw_gbs);
  const std::string compute_text = fmt::format("compute-bound x{:.3g} (peak dense TFLOPS, {}, {:g} / {:g})", compute,
                                               accumulate_text(to.accumulate), *to.dense_tflops, *from.dense_tflops);
  const bool memory_lower = memory <= compute;
  const double lower = std::min(memory, compute), upper = std::max(memory, compute);
  const auto moved = [](double raw, double bound) {
    return bound == raw ? std::string()
                        : fmt::format(", with {:g} % of the step not sped up: x{:.3g}", kSpeedFixedShare * 100, bound);
  };
  SpeedRange r;
  r.low = std::min(lower, with_fixed_share(lower));
  r.high = std::max(upper, with_fixed_share(upper));
  r.middle = with_fixed_share(std::sqrt(memory * compute));
  r.low_basis = (memory_lower ? memory_text : compute_text) + moved(lower, r.low);
  r.high_basis = (memory_lower ? compute_text : memory_text) + moved(upper, r.high);
  r.middle_basis = fmt::format("the geometric mean x{:.3g} of the two, with {:g} % of the step not sped up",
                               std::sqrt(memory * compute), kSpeedFixedShare * 100);
  r.from_model = from.model;
  r.to_model = to.model;
  r.date_seen = std::max(from.date_seen, to.date_seen);
  return r;
}

std::optional<SpeedRange> speed_ratio_range(std::string_view from_name, std::string_view to_name,
                                            const GpuHints& to_hints, std::string* why) {
  const auto fail = [&](std::string reason) -> std::optional<SpeedRange> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (from_name.empty()) return fail("the local GPU model is not in the logs");
  const GpuIdentity from = identify_gpu(from_name);
  const GpuIdentity to = identify_gpu(to_name, to_hints);
  if (from.boards.empty()) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", from_name));
  if (to.boards.empty()) return fail(fmt::format("'{}' is not in data/gpu-speed.toml", to_name));
  std::vector<SpeedRange> pairs;
  std::vector<std::string> left_out;
  for (const GpuSpeed* f : from.boards)
    for (const GpuSpeed* t : to.boards) {
      std::string reason;
      if (auto r = speed_ratio_range(*f, *t, &reason))
        pairs.push_back(std::move(*r));
      else if (std::find(left_out.begin(), left_out.end(), reason) == left_out.end())
        left_out.push_back(std::move(reason));
    }
  if (pairs.empty()) return fail(joined(left_out, "; "));
  std::vector<std::string> notes;
  for (const GpuIdentity* id : {&from, &to})
    if (!id->basis.empty()) notes.push_back(id->basis);
  if (!left_out.empty()) notes.push_back("left out: " + joined(left_out, "; "));
  if (pairs.size() == 1) {
    SpeedRange r = std::move(pairs.front());
    r.identification = joined(notes, "; ");
    return r;
  }
  // Several boards: the range holds every pair's, the middle is their middles' geometric mean.
  const auto lowest =
      std::min_element(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.low < b.low; });
  const auto highest =
      std::max_element(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.high < b.high; });
  double log_sum = 0;
  std::vector<std::string> from_models, to_models;
  SpeedRange r;
  for (const SpeedRange& p : pairs) {
    log_sum += std::log(p.middle);
    if (std::find(from_models.begin(), from_models.end(), p.from_model) == from_models.end())
      from_models.push_back(p.from_model);
    if (std::find(to_models.begin(), to_models.end(), p.to_model) == to_models.end()) to_models.push_back(p.to_model);
    r.date_seen = std::max(r.date_seen, p.date_seen);
  }
  r.low = lowest->low;
  r.high = highest->high;
  r.middle = std::exp(log_sum / static_cast<double>(pairs.size()));
  r.low_basis = fmt::format("{} over {}, {}", lowest->to_model, lowest->from_model, lowest->low_basis);
  r.high_basis = fmt::format("{} over {}, {}", highest->to_model, highest->from_model, highest->high_basis);
  r.middle_basis = fmt::format("the geometric mean of the {} boards' middles", pairs.size());
  r.from_model = joined(from_models, " / ");
  r.to_model = joined(to_models, " / ");
  r.identification = joined(notes, "; ");
  return r;
}

Error unknown_gpu_error(std::string_view option, std::string_view name) {
  std::vector<std::string_view> models;
  for (const GpuSpeed& g : gpu_speeds()) models.push_back(g.model);
  const std::string_view best = text::closest_name(name, models);
  return make_error(ErrorKind::usage, fmt::format("{}: '{}' is not in the GPU table", option, name),
                    best.empty() ? std::string("gpucost gpus lists the models it knows")
                                 : fmt::format("did you mean '{}'? (gpucost gpus lists the models it knows)", best));
}

Expected<SpeedRange> compare_gpu_speed(std::string_view from_name, std::string_view to_name) {
  for (const std::string_view name : {from_name, to_name})
    if (find_gpu_speed(name) == nullptr) return unknown_gpu_error("--speed", name);
  std::string why;
  auto r = speed_ratio_range(from_name, to_name, {}, &why);
  if (!r)
    return make_error(ErrorKind::usage,
                      fmt::format("--speed: no speed range of {} over {}: {}", to_name, from_name, why),
                      "measure the job on both GPUs and pass the ratio to breakeven with --speed-ratio");
  return std::move(*r);
}

}  // namespace gpucost::breakeven

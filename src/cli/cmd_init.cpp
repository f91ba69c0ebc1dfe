// gpucost init: writes a commented starter cost configuration, filled with what the logs,
// nvidia-smi or --gpu say about the machine (breakeven::starter_config).
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/breakeven/gpu_speed.hpp>
#include <gpucost/breakeven/starter_config.hpp>
#include <gpucost/core/text.hpp>
#include <gpucost/extract/sample_collector.hpp>
#include <gpucost/io/atomic_file.hpp>
#include <gpucost/pipeline/inputs.hpp>
#include <gpucost/prices/offer_catalogue.hpp>
#include <gpucost/record/smi_probe.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <utility>

namespace gpucost::cli {

namespace {

constexpr int kProbeTimeoutMs = 10'000;

struct InitArgs {
  InputArgs in;
  std::string gpu, country, output = "-";
  int gpus = 0;
  bool force = false, no_probe = false;
};

std::string logs_text(const std::vector<std::string>& paths) {
  std::string out;
  for (std::size_t i = 0; i < paths.size() && i < 3; ++i) out += fmt::format("{}{}", i == 0 ? "" : ", ", paths[i]);
  if (paths.size() > 3) out += fmt::format(" and {} more", paths.size() - 3);
  return fmt::format("the logs ({})", out);
}

/// The power of each GPU's samples at 0 % utilisation, for idle_power_from_samples.
std::vector<std::vector<double>> zero_util_power(const extract::SampleCollector& samples,
                                                 const extract::Features& features) {
  std::vector<std::vector<double>> out;
  for (const extract::GpuFeatures& g : features.gpus) {
    std::vector<double> w;
    for (const extract::Sample& s : samples.of_host(g.host).samples_of(g.gpu))
      if (s.util_pct == 0 && std::isfinite(s.power_w) && features.contains(s.ts_ns)) w.push_back(s.power_w);
    out.push_back(std::move(w));
  }
  return out;
}

/// Every input can be read as one run of raw logs (a features document, or stdin that may hold
/// one, goes through load_features, without samples).
bool raw_logs_only(const std::vector<pipeline::ProbedInput>& probed) {
  return std::none_of(probed.begin(), probed.end(), [](const pipeline::ProbedInput& p) {
    return p.read_once || p.kind == pipeline::ProbedInput::Kind::features_document;
  });
}

/// The GPUs of the logs: their names (the inputs' fingerprint), count, memory and idle power.
Expected<breakeven::MachineFacts> facts_from_logs(const InputArgs& in, int& status) {
  auto inputs = open_inputs(in);
  if (!inputs) return inputs.error();
  std::vector<InputStats> stats;
  extract::SampleCollector samples;
  auto features =
      raw_logs_only(inputs->probed)
          ? pipeline::collect_features(inputs->probed, inputs->prep, inputs->clock, samples, samples,
                                       extract::ExtractOptions{}, stats)
          : pipeline::load_features(inputs->probed, inputs->prep, inputs->clock, extract::ExtractOptions{}, stats);
  status = finish_inputs(stats, in, inputs->clock);
  if (!features) return features.error();
  breakeven::MachineFacts m = breakeven::machine_facts_from_logs(*features, stats);
  if (const auto idle = breakeven::idle_power_from_samples(zero_util_power(samples, *features))) {
    m.idle_power_w = idle->watts;
    m.idle_basis = breakeven::idle_power_basis(*idle);
  }
  m.source = logs_text(inputs->paths);
  return m;
}

int run_init(const InitArgs& a) {
  breakeven::StarterOptions o;
  if (!a.country.empty()) {
    auto cc = breakeven::normalise_country(a.country);
    if (!cc) return fail(cc.error());
    o.country = *cc;
  }
  if (a.gpus < 0 || a.gpus > 1024)
    return fail(make_error(ErrorKind::usage, fmt::format("--gpus {}: out of range", a.gpus),
                           "the machine's GPU count, e.g. --gpu H100 --gpus 8"));
  std::error_code ec;
  if (a.output != "-" && !a.force && std::filesystem::exists(a.output, ec))
    return fail(make_error(ErrorKind::usage, fmt::format("{}: exists: not overwritten", a.output),
                           "give another -o FILE, or --force to replace it"));
  int status = kOk;
  if (!a.in.inputs.empty()) {
    auto m = facts_from_logs(a.in, status);
    if (!m) return fail(m.error());
    o.machine = std::move(*m);
  } else if (a.gpu.empty() && a.no_probe) {
    o.notes.emplace_back("nvidia-smi not asked (--no-probe)");
  } else if (a.gpu.empty()) {
    const std::string smi = record::nvidia_smi_on_path();
    if (smi.empty()) {
      o.notes.emplace_back("nvidia-smi is not on PATH: the GPUs are unknown (give logs or --gpu NAME)");
    } else if (auto m = record::probe_nvidia_smi(smi, kProbeTimeoutMs); !m) {
      o.notes.push_back(fmt::format("{}: the GPUs are unknown (give logs or --gpu NAME)", m.error().message));
    } else {
      o.machine = std::move(*m);
    }
  }
  // A typo would write a config whose estimates and speed ratios all fail later, one by one.
  if (!a.gpu.empty() && breakeven::find_gpu_speed(a.gpu) == nullptr)
    return fail(breakeven::unknown_gpu_error("--gpu", a.gpu));
  if (!a.gpu.empty()) {  // names the model over what the logs say; their count and idle power stay
    o.machine.gpu_names = {a.gpu};
    o.machine.source = o.machine.source.empty() ? "--gpu" : "--gpu, and " + o.machine.source;
    if (o.machine.gpu_count == 0) o.machine.gpu_count = 1;
  }
  if (a.gpus > 0) o.machine.gpu_count = a.gpus;
  // The ECB rates gpucost offers update stored, for an offer in another currency (the built-in ones
  // when none are as recent); a catalogue that does not read is said, not fatal.
  if (auto catalogue = prices::load_catalogue({prices::user_catalogue_path(), {}}); catalogue)
    o.user_rates = std::move(catalogue->rates);
  else
    o.notes.push_back(fmt::format("{}: its exchange rates are not used", catalogue.error().message));
  const breakeven::StarterConfig config = breakeven::starter_config(o);
  if (auto st = io::write_file_atomically(a.output, config.toml); !st) return fail(st.error());
  if (!a.in.quiet) {
    for (const auto& n : o.notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), text::printable(n));
    for (const auto& n : config.notes) fmt::print(stderr, "{} {}\n", prefix(Level::note), text::printable(n));
    if (a.output != "-")
      fmt::print(stderr, "{} wrote {}: then gpucost breakeven -c {} LOGS...\n", prefix(Level::note), a.output,
                 a.output);
  }
  return status;
}

}  // namespace

Runner define_init(CLI::App& cmd) {
  auto args = std::make_shared<InitArgs>();
  add_input_options(&cmd, args->in);
  cmd.add_option("--gpu", args->gpu,
                 "the GPU model, as nvidia-smi names it (over the logs; nvidia-smi is then not asked)")
      ->type_name("NAME")
      ->group("Machine");
  cmd.add_option("--gpus", args->gpus, "the number of GPUs (default: the logs', nvidia-smi's, or 1 with --gpu)")
      ->type_name("N")
      ->group("Machine");
  cmd.add_option("--country", args->country,
                 "ISO 3166-1 country code: the currency (and the offer's exchange rate into it), and the electricity "
                 "price where data/electricity-prices.toml has a sourced figure")
      ->type_name("CC")
      ->group("Machine");
  cmd.add_flag("--no-probe", args->no_probe,
               "do not run nvidia-smi when no logs and no --gpu are given (scripts, tests)")
      ->group("Machine");
  cmd.add_option("-o,--output", args->output, "output file (written atomically), - = stdout")
      ->type_name("FILE")
      ->group("Output");
  cmd.add_flag("--force", args->force, "replace an existing -o FILE")->group("Output");
  cmd.footer(footer_with_example("gpucost init --country DE -o cost.toml query.csv"));
  return [args] { return run_init(*args); };
}

}  // namespace gpucost::cli

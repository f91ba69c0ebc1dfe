// gpucost offers: the cloud catalogue a run prices against (built-in, the user catalogue that
// `offers update` writes, --clouds files), listed and filtered; `offers update` is in
// cmd_offers_update.cpp.
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/breakeven/cloud_offers.hpp>
#include <gpucost/report/listings.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

struct ListArgs {
  std::vector<std::string> clouds, regions;
  std::string gpu, kind, output = "-";
  bool json = false, quiet = false;
};

int run_offers_list(const ListArgs& args) {
  if (!args.kind.empty() && !breakeven::parse_offer_kind(args.kind))
    return fail(make_error(ErrorKind::usage, fmt::format("--kind: '{}' is not a kind of offer", args.kind),
                           "give on-demand, spot, reserved-1y, reserved-3y or savings-plan"));
  auto catalogue = run_catalogue(args.clouds, args.quiet);
  if (!catalogue) return fail(catalogue.error());
  const auto offers = breakeven::filter_offers((*catalogue)->offers, {args.gpu, args.kind, args.regions});
  const std::string today = today_date();
  const std::string text =
      args.json ? report::cloud_offers_json(offers, today) : printable_text(report::cloud_offers_table(offers, today));
  return write_result(args.output, text, kOk);
}

Runner define_offers_list(CLI::App& cmd) {
  auto args = std::make_shared<ListArgs>();
  cmd.add_option("--gpu", args->gpu, "only offers of this GPU model (any case, part of the name: h100, a100 80)")
      ->type_name("MODEL");
  cmd.add_option("--region", args->regions, "only offers in this region, or regions starting so (repeatable)")
      ->type_name("REGION")
      ->allow_extra_args(false);
  cmd.add_option("--kind", args->kind,
                 "only offers of this kind: on-demand, spot, reserved-1y, reserved-3y, "
                 "savings-plan")
      ->type_name("KIND");
  cmd.add_option("--clouds", args->clouds,
                 "add a catalogue of your own (repeatable): gpucost's TOML, or a SkyPilot vms.csv")
      ->type_name("FILE")
      ->allow_extra_args(false);
  cmd.add_flag("--json", args->json, "print JSON: every field, the age in days and the catalogue each came from");
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE");
  cmd.add_flag("-q,--quiet", args->quiet, "no notes on stderr (what each --clouds file added)");
  cmd.footer(footer_with_example("gpucost offers list --gpu H100 --kind on-demand"));
  return [args] { return run_offers_list(*args); };
}

}  // namespace

Runner define_offers(CLI::App& cmd) {
  cmd.require_subcommand(1);
  std::vector<std::pair<CLI::App*, Runner>> subs;
  CLI::App* list = cmd.add_subcommand("list", "list the cloud offers with their price, age and source");
  subs.emplace_back(list, define_offers_list(*list));
  CLI::App* update = cmd.add_subcommand(
      "update", "refresh list prices from the providers' public price lists into the user catalogue");
  subs.emplace_back(update, define_offers_update(*update));
  cmd.footer(footer_with_example("gpucost offers list --gpu H100"));
  return [subs]() -> int {
    for (const auto& [sub, run] : subs)
      if (sub->parsed()) return run();
    return static_cast<int>(kError);  // not reached: one subcommand is required
  };
}

}  // namespace gpucost::cli

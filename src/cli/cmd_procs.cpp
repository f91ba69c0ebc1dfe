// gpucost procs: the processes holding NVIDIA device files (/dev/nvidia*, NVIDIA DRM nodes), from
// /proc/*/fd and /proc/*/maps, as a table or the gpucost.procs JSON document (docs/procs.md).
#include "commands.hpp"
#include "console.hpp"

#include <gpucost/io/atomic_file.hpp>
#include <gpucost/procs/listing.hpp>
#include <gpucost/procs/scan.hpp>

#include <fmt/format.h>

#include <memory>

namespace gpucost::cli {

namespace {

struct ProcsArgs {
  procs::ScanOptions scan;
  std::string output = "-";
  bool json = false, quiet = false;
};

int run_procs(const ProcsArgs& args) {
  auto scanner = procs::Scanner::create(args.scan);
  if (!scanner) return fail(scanner.error());
  auto scan = scanner->scan();
  if (!scan) return fail(scan.error());
  const std::string text = args.json ? procs::procs_json(*scan) : procs::procs_table(*scan);
  if (auto st = io::write_file_atomically(args.output, text); !st) return fail(st.error());
  // The table on stdout says it already; else a warning on stderr (never a silent gap).
  const bool table_shown = !args.json && args.output == "-";
  if (const std::string u = procs::unreadable_summary(*scan); !u.empty() && !table_shown && !args.quiet)
    fmt::print(stderr, "{} {}\n  hint: run as root (or as their user) to read them\n", prefix(Level::warning), u);
  if (const std::string r = procs::refused_summary(*scan); !r.empty() && !table_shown && !args.quiet)
    fmt::print(stderr, "{} {}\n", prefix(Level::warning), r);
  return kOk;
}

}  // namespace

Runner define_procs(CLI::App& cmd) {
  auto args = std::make_shared<ProcsArgs>();
  cmd.add_flag("--json", args->json, "print the gpucost.procs JSON document (every field) instead of the table");
  cmd.add_option("--proc-root", args->scan.root,
                 "read DIR/proc, DIR/sys and DIR/etc/passwd instead of this machine's (default /)")
      ->type_name("DIR");
  cmd.add_option("--device-pattern", args->scan.device_patterns,
                 "also count files whose path matches this RE2 pattern as device handles (repeatable)")
      ->type_name("REGEX")
      ->allow_extra_args(false);
  cmd.add_option("-o,--output", args->output, "output file, - = stdout")->type_name("FILE");
  cmd.add_flag("-q,--quiet", args->quiet,
               "no warning on stderr about processes that could not be read (still counted in the output)");
  cmd.footer(
      "Example: sudo gpucost procs --json\n"
      "Exit status: 0 the scan ran (processes that could not be read are counted in the output),\n"
      "2 a bad option (--device-pattern, --proc-root) or a /proc that cannot be listed. See docs/procs.md.");
  return [args] { return run_procs(*args); };
}

}  // namespace gpucost::cli

// procs on a tree it must not trust (docs/security.md): a planted --proc-root, or another
// user's /proc entries read as root. Files that are links, FIFOs or devices are refused with a
// reason, never opened through or waited on; reads stop at a cap; the processes' own text (argv,
// names) is escaped in the table and stays valid JSON.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <gpucost/procs/listing.hpp>
#include <gpucost/procs/scan.hpp>
#include <gpucost/procs/tree_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace gpucost;
using namespace gpucost::procs;
namespace fs = std::filesystem;

namespace {

const std::string kTree = std::string(GPUCOST_TESTDATA_DIR) + "/proc-trees/basic";
constexpr std::string_view kSecret = "top-secret-contents";

void write(const fs::path& p, std::string_view text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

/// The fixture tree with planted files: 1234's maps a link to /dev/zero, 2345's cmdline a link
/// to a secret, 3456's maps a FIFO, 5678's argv escape sequences and a forged table row.
fs::path planted_tree(const fs::path& dir) {
  const fs::path root = dir / "tree";
  fs::remove_all(root);
  fs::copy(kTree, root, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  const fs::path proc = root / "proc";
  write(dir / "secret", kSecret);
  fs::remove(proc / "1234" / "maps");
  fs::create_symlink("/dev/zero", proc / "1234" / "maps");
  fs::remove(proc / "2345" / "cmdline");
  fs::create_symlink(dir / "secret", proc / "2345" / "cmdline");
  fs::remove(proc / "3456" / "maps");
  REQUIRE(::mkfifo((proc / "3456" / "maps").c_str(), 0600) == 0);
  using namespace std::string_literals;
  write(proc / "5678" / "cmdline",
        "python3\0\x1b]0;owned\x07\0--x\x1b[31m\0evil\n9999  root  2024-01-01 00:00:00  0  nvidia0\0"s);
  return root;
}

ScanResult scan_tree(const std::string& root) {
  auto scanner = Scanner::create(ScanOptions{root, {}});
  REQUIRE(scanner);
  auto result = scanner->scan();
  REQUIRE(result);
  return *result;
}

const Refused* refused(const ScanResult& r, int pid, std::string_view file) {
  const auto it = std::find_if(r.refused.begin(), r.refused.end(),
                               [&](const Refused& x) { return x.pid == pid && x.file == file; });
  return it == r.refused.end() ? nullptr : &*it;
}

const Holder* holder(const ScanResult& r, int pid) {
  for (const Holder& h : r.holders)
    if (h.pid == pid) return &h;
  return nullptr;
}

}  // namespace

TEST_CASE("procs: a tree's file is read only when it is a regular file, up to a cap", "[procs][security]") {
  static const test::ScratchDir dir{"procs-tree-file"};
  const fs::path d = dir.path();
  write(d / "plain", "hello\n");
  const TreeFile plain = read_tree_file(AT_FDCWD, (d / "plain").string(), kSmallFileCap);
  CHECK(plain.ok());
  CHECK(plain.text == "hello\n");
  CHECK_FALSE(plain.cut);

  fs::create_symlink("/dev/zero", d / "zero-link");
  const TreeFile link = read_tree_file(AT_FDCWD, (d / "zero-link").string(), kSmallFileCap);
  CHECK(link.refused == "a symbolic link (not followed)");
  CHECK(link.text.empty());

  // The device itself (a planted tree may hold one): refused, not read until memory runs out.
  const TreeFile zero = read_tree_file(AT_FDCWD, "/dev/zero", kSmallFileCap);
  CHECK(zero.refused == "a device, not a regular file");

  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);  // no writer: a blocking open would hang
  const TreeFile fifo = read_tree_file(AT_FDCWD, (d / "fifo").string(), kSmallFileCap);
  CHECK(fifo.refused == "a FIFO, not a regular file");

  write(d / "big", std::string(100, 'x'));
  const TreeFile big = read_tree_file(AT_FDCWD, (d / "big").string(), 64);
  CHECK(big.ok());
  CHECK(big.cut);
  CHECK(big.text.size() == 64);

  const TreeFile missing = read_tree_file(AT_FDCWD, (d / "none").string(), 64);
  CHECK(missing.err == ENOENT);
  CHECK(missing.reason() == "No such file or directory");
}

TEST_CASE("procs: a planted tree's links and FIFOs are refused with a reason", "[procs][security]") {
  static const test::ScratchDir dir{"procs-planted"};
  const fs::path root = planted_tree(dir.path());
  const ScanResult r = scan_tree(root.string());

  // 1234: maps -> /dev/zero. Still a holder through fd/, its maps unread: partial.
  const Refused* zero = refused(r, 1234, "maps");
  REQUIRE(zero != nullptr);
  CHECK(zero->reason == "a symbolic link (not followed)");
  const Holder* py = holder(r, 1234);
  REQUIRE(py != nullptr);
  CHECK(py->partial);
  CHECK(py->devices.front().mappings == 0);
  // 3456: maps a FIFO: refused at once, never waited on.
  const Refused* fifo = refused(r, 3456, "maps");
  REQUIRE(fifo != nullptr);
  CHECK(fifo->reason == "a FIFO, not a regular file");
  // 2345: cmdline -> a secret: not read, the command is stat's name.
  REQUIRE(refused(r, 2345, "cmdline") != nullptr);
  const Holder* tf = holder(r, 2345);
  REQUIRE(tf != nullptr);
  CHECK(tf->argv.empty());
  CHECK(tf->command() == "[tf (worker) 1]");

  const std::string table = procs_table(r);
  const std::string json = procs_json(r);
  CHECK(table.find(kSecret) == std::string::npos);
  CHECK(json.find(kSecret) == std::string::npos);
  CHECK(table.find("3 files of the tree left unread or read in part (1234/maps: a symbolic link (not followed); "
                   "2345/cmdline: a symbolic link (not followed); 3456/maps: a FIFO, not a regular file)") !=
        std::string::npos);
  CHECK(json.find(R"({"pid": 3456, "file": "maps", "reason": "a FIFO, not a regular file"})") != std::string::npos);
  CHECK(std::count_if(r.unreadable.begin(), r.unreadable.end(), [](const Unreadable& u) { return u.what == "maps"; }) ==
        2);
}

TEST_CASE("procs: argv's escape sequences and newlines are shown escaped in the table", "[procs][security]") {
  static const test::ScratchDir dir{"procs-escapes"};
  const fs::path root = planted_tree(dir.path());
  const ScanResult r = scan_tree(root.string());
  const std::string table = procs_table(r);
  CHECK(table.find('\x1b') == std::string::npos);
  CHECK(table.find('\x07') == std::string::npos);
  CHECK(table.find(R"(python3 \x1b]0;owned\a --x\x1b[31m evil\n9999  root)") != std::string::npos);
  // No line of the table starts with the forged row.
  CHECK(table.find("\n9999") == std::string::npos);
  // JSON keeps the bytes, escaped as JSON does: \u001b, \u0007, \n.
  const std::string json = procs_json(r);
  CHECK(json.find('\x1b') == std::string::npos);
  CHECK(json.find(R"("\u001b]0;owned\u0007", "--x\u001b[31m", "evil\n9999  root)") != std::string::npos);
}

TEST_CASE("procs: a process directory that is a link is not followed", "[procs][security]") {
  static const test::ScratchDir dir{"procs-dir-link"};
  const fs::path root = planted_tree(dir.path());
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", root / "proc" / "4242");
  const ScanResult r = scan_tree(root.string());
  const auto it =
      std::find_if(r.unreadable.begin(), r.unreadable.end(), [](const Unreadable& u) { return u.pid == 4242; });
  REQUIRE(it != r.unreadable.end());
  CHECK(it->what == "stat");
  CHECK(it->reason == "a symbolic link (not followed)");
}

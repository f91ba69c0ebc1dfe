// Files written atomically get the mode a plain open() would give them (so that node_exporter,
// running as another user, can read the textfile), and a closed stdin is an error, not an empty
// stream (a cron job whose input went missing must fail, not price nothing).
#include <catch2/catch.hpp>

#include <gpucost/io/atomic_file.hpp>
#include <gpucost/io/line_reader.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace gpucost;

fs::path fresh_dir() {
  const fs::path dir = fs::temp_directory_path() / fmt::format("gpucost-output-file-test-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const std::string& path, const char* text) {
  auto out = io::OutputFile::open(path);
  REQUIRE(out);
  std::fputs(text, out->stream());
  REQUIRE(out->commit());
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("output file: a new file takes the umask's mode, a replaced one keeps its own", "[io]") {
  const fs::path dir = fresh_dir();
  const mode_t before = ::umask(022);
  const std::string prom = (dir / "gpucost.prom").string();
  write(prom, "a 1\n");
  CHECK(mode_of(prom) == 0644);  // readable by node_exporter's user, not 0600
  ::umask(077);
  const std::string secret = (dir / "secret.json").string();
  write(secret, "{}\n");
  CHECK(mode_of(secret) == 0600);
  ::umask(022);
  REQUIRE(::chmod(prom.c_str(), 0640) == 0);
  write(prom, "a 2\n");  // replaced: the mode the operator chose stays
  CHECK(mode_of(prom) == 0640);
  ::umask(before);
  fs::remove_all(dir);
}

TEST_CASE("line reader: a closed stdin is an error", "[io]") {
  const int saved = ::dup(0);
  REQUIRE(saved >= 0);
  ::close(0);
  auto reader = io::LineReader::open("-");
  REQUIRE(::dup2(saved, 0) == 0);
  ::close(saved);
  REQUIRE_FALSE(reader);
  CHECK(reader.error().message == "<stdin>: standard input is closed");
}

TEST_CASE("output file: --mode gives the written file its permission bits, whatever the umask") {
  CHECK(gpucost::io::parse_file_mode("0644") == 0644u);
  CHECK(gpucost::io::parse_file_mode("640") == 0640u);
  CHECK(gpucost::io::parse_file_mode("0o600") == 0600u);
  CHECK_FALSE(gpucost::io::parse_file_mode("0888"));
  CHECK_FALSE(gpucost::io::parse_file_mode("rw-r--r--"));
  CHECK_FALSE(gpucost::io::parse_file_mode("01777"));
  CHECK_FALSE(gpucost::io::parse_file_mode(""));
  const fs::path dir = fs::temp_directory_path() / fmt::format("gpucost-mode-{}", ::getpid());
  fs::create_directories(dir);
  const std::string path = (dir / "gpucost.prom").string();
  const mode_t old = ::umask(077);  // a umask that would give 0600
  const auto st = gpucost::io::write_file_atomically(path, "x 1\n", 0644u);
  ::umask(old);
  REQUIRE(st);
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0644);
  fs::remove_all(dir);
}

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

TEST_CASE("output file: a new file is 0644 less the umask, a replaced one of ours keeps its own", "[io]") {
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
  const auto st = gpucost::io::write_file_atomically(
      path, "x 1\n", gpucost::io::WriteOptions{0644u, gpucost::io::Readers::shared, false});
  ::umask(old);
  REQUIRE(st);
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0644);
  fs::remove_all(dir);
}

namespace {

std::string slurp(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buf[256];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

}  // namespace

TEST_CASE("output file: a link at the name is replaced, never written through", "[io][security]") {
  const fs::path dir = fresh_dir();
  const std::string victim = (dir / "victim").string();
  const std::string out = (dir / "out.txt").string();
  REQUIRE(io::write_file_atomically(victim, "victim\n"));
  fs::create_symlink(victim, out);
  REQUIRE(io::write_file_atomically(out, "new\n"));
  CHECK(slurp(victim) == "victim\n");
  CHECK_FALSE(fs::is_symlink(out));
  CHECK(slurp(out) == "new\n");
  // A dangling link: replaced too, nothing created where it pointed.
  const std::string dangling = (dir / "dangling.txt").string();
  fs::create_symlink(dir / "nowhere", dangling);
  REQUIRE(io::write_file_atomically(dangling, "x\n"));
  CHECK_FALSE(fs::exists(dir / "nowhere"));
  fs::remove_all(dir);
}

TEST_CASE("output file: a FIFO or a device at the name is refused, never opened", "[io][security]") {
  const fs::path dir = fresh_dir();
  const std::string fifo = (dir / "gpu.prom").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const auto st = io::write_file_atomically(fifo, "x 1\n");  // would block without a reader if opened
  REQUIRE_FALSE(st);
  CHECK(st.error().message == fifo + ": is a FIFO, not a regular file: not written");
  CHECK(fs::is_fifo(fifo));
  const auto full = io::write_file_atomically("/dev/full", "x\n");
  REQUIRE_FALSE(full);
  CHECK(full.error().message == "/dev/full: is a device, not a regular file: not written");
  CHECK(io::write_file_atomically("/dev/null", "discarded\n"));
  fs::remove_all(dir);
}

TEST_CASE("output file: the chosen mode never keeps setuid, nor another user's bits", "[io][security]") {
  const mode_t before = ::umask(022);
  const io::WriteOptions shared{};
  const io::WriteOptions private_file{std::nullopt, io::Readers::private_, false};
  CHECK(io::chosen_file_mode(shared, std::nullopt, false) == 0644u);
  CHECK(io::chosen_file_mode(private_file, std::nullopt, false) == 0600u);
  CHECK(io::chosen_file_mode(shared, 04755u, true) == 0755u);  // ours: kept, setuid cleared
  CHECK(io::chosen_file_mode(shared, 0666u, false) == 0644u);  // planted by another user: not copied
  CHECK(io::chosen_file_mode(private_file, 0644u, true) == 0600u);
  CHECK(io::chosen_file_mode(io::WriteOptions{0640u, io::Readers::private_, false}, 0666u, true) == 0640u);
  ::umask(002);
  CHECK(io::chosen_file_mode(shared, std::nullopt, false) == 0644u);  // group write never added
  ::umask(077);
  CHECK(io::chosen_file_mode(shared, std::nullopt, false) == 0600u);  // a stricter umask is kept
  ::umask(before);
}

TEST_CASE("own file: never through a link, a FIFO refused without blocking", "[io][security]") {
  const fs::path dir = fresh_dir();
  const std::string victim = (dir / "victim").string();
  REQUIRE(io::write_file_atomically(victim, "victim\n"));
  const std::string link = (dir / "train.log").string();
  fs::create_symlink(victim, link);
  const auto through_link = io::open_own_file(link, false);
  REQUIRE_FALSE(through_link);
  CHECK(through_link.error().message == link + ": cannot write: it is a symbolic link");
  CHECK(slurp(victim) == "victim\n");
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  CHECK_FALSE(io::open_own_file(fifo, true));
  const auto fd = io::open_own_file((dir / "new.log").string(), true);
  REQUIRE(fd);
  CHECK(::write(*fd, "a\n", 2) == 2);
  ::close(*fd);
  fs::remove_all(dir);
}

TEST_CASE("regular file read: a FIFO, a directory and an oversized file are refused", "[io][security]") {
  const fs::path dir = fresh_dir();
  const std::string fifo = (dir / "cost.toml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const auto from_fifo = io::read_regular_file(fifo, 1024, "--config");
  REQUIRE_FALSE(from_fifo);
  CHECK(from_fifo.error().message == fifo + ": is a FIFO, not a regular file: not read");
  CHECK_FALSE(io::read_regular_file(dir.string(), 1024, "--config"));
  const std::string big = (dir / "big.toml").string();
  REQUIRE(io::write_file_atomically(big, std::string(2000, 'x')));
  CHECK_FALSE(io::read_regular_file(big, 1024, "--config"));
  const auto ok = io::read_regular_file(big, 4096, "--config");
  REQUIRE(ok);
  CHECK(ok->size() == 2000);
  CHECK_FALSE(io::read_regular_file("/dev/zero", 1024, "--config"));  // a device: never read
  fs::remove_all(dir);
}

// The follower: one live parse per file, looked at again when inotify says a watched directory
// changed (or every poll interval), and the signals that end or refresh a follow loop.
#include <gpucost/pipeline/follow.hpp>

#include <gpucost/core/log.hpp>
#include <gpucost/io/line_reader.hpp>
#include <gpucost/pipeline/inputs.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <utility>

#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpucost::pipeline {

// ---- signals ----------------------------------------------------------------------------------

namespace {

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_hangups = 0;
std::array<int, 2> g_wake = {-1, -1};

extern "C" void on_follow_signal(int sig) {
  if (sig == SIGHUP)
    g_hangups = g_hangups + 1;
  else
    g_stop = 1;
  const char byte = 1;
  const ssize_t ignored = ::write(g_wake[1], &byte, 1);  // full pipe: a wake is pending anyway
  (void)ignored;
}

}  // namespace

Status FollowSignals::install() {
  if (g_wake[0] >= 0) return {};
  if (::pipe2(g_wake.data(), O_NONBLOCK | O_CLOEXEC) != 0)
    return make_error(ErrorKind::io, "--follow: cannot create the signal pipe", "too many open files?");
  struct sigaction sa {};
  sa.sa_handler = on_follow_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  return {};
}

bool FollowSignals::stop_requested() { return g_stop != 0; }

bool FollowSignals::take_hangup() {
  if (g_hangups == 0) return false;
  g_hangups = g_hangups - 1;
  return true;
}

int FollowSignals::wake_fd() { return g_wake[0]; }

void FollowSignals::drain() {
  std::array<char, 64> buf{};
  while (g_wake[0] >= 0 && ::read(g_wake[0], buf.data(), buf.size()) > 0) {
  }
}

// ---- the follower -----------------------------------------------------------------------------

namespace {

bool is_glob(const std::string& p) { return p.find_first_of("*?[") != std::string::npos; }

/// The files a pattern names now: a glob's matches (sorted), or the path itself.
std::vector<std::string> files_of(const std::string& pattern) {
  if (!is_glob(pattern)) return {pattern};
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

/// The directory a pattern's files are in ("." for a bare name); its directories hold no glob.
std::string directory_of(const std::string& pattern) {
  const std::size_t slash = pattern.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : pattern.substr(0, slash);
}

/// A whole document (a profiler trace) modified in the last 2 s: its writer may not be done, and
/// it is read once, whole. Looked at again later (inotify's close-write, or the next poll).
bool being_written_whole(io::LineReader& reader, const struct stat& st, const prep::PrepOptions& options) {
  const Format f =
      options.forced != Format::unknown ? options.forced : prep::detect_format(reader.peek(64 * 1024), options);
  if (!format_traits(f).whole_document) return false;
  const std::int64_t modified_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return wall_clock_ns() - modified_ns < 2'000'000'000;
}

}  // namespace

struct Follower::Tail {
  std::string path;
  std::uint64_t device = 0, inode = 0;
  std::unique_ptr<io::LineReader> reader;
  std::unique_ptr<prep::InputParse> parse;
  InputStats* stats = nullptr;
};

Follower::Follower(std::vector<std::string> patterns, const prep::PrepOptions& options, LocalClock& clock,
                   EventSink& sink, FollowSettings settings)
    : m_patterns(std::move(patterns)), m_options(options), m_clock(clock), m_sink(sink), m_settings(settings) {}

Follower::~Follower() {
  if (m_inotify >= 0) ::close(m_inotify);
}

Status Follower::start() {
  for (const std::string& p : m_patterns) {
    if (p == "-")
      return make_error(ErrorKind::usage, "--follow: stdin cannot be followed",
                        "name the files (or a quoted glob); a pipe is read to its end without --follow");
    struct stat st {};
    if (::stat(directory_of(p).c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return make_error(ErrorKind::io, fmt::format("{}: its directory {} does not exist", p, directory_of(p)),
                        "--follow waits for files to appear, not for directories");
  }
  if (m_settings.inotify) {
    m_inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_inotify < 0) log().info("--follow: inotify unavailable, polling every {} ms", m_settings.poll.count());
  }
  watch_directories();
  look();
  return {};
}

void Follower::watch_directories() {
  if (m_inotify < 0) return;
  for (const std::string& p : m_patterns) {
    const std::string dir = directory_of(p);
    if (m_watched.count(dir) != 0) continue;
    constexpr std::uint32_t kMask =
        IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB;
    if (::inotify_add_watch(m_inotify, dir.c_str(), kMask) >= 0) m_watched.insert(dir);
  }
}

std::uint64_t Follower::events() const {
  std::uint64_t n = 0;
  for (const InputStats& s : m_stats) n += s.events;
  return n;
}

std::uint64_t Follower::wait_and_read(std::chrono::milliseconds timeout) {
  // With inotify a look is due on a change; the poll interval still bounds the wait (a write
  // inotify cannot see: another host's NFS client), ten times longer.
  const auto poll_every = m_inotify >= 0 ? m_settings.poll * 10 : m_settings.poll;
  const auto wait = std::min(timeout, poll_every);
  std::array<pollfd, 2> fds{};
  nfds_t n = 0;
  if (m_inotify >= 0) fds[n++] = pollfd{m_inotify, POLLIN, 0};
  if (FollowSignals::wake_fd() >= 0) fds[n++] = pollfd{FollowSignals::wake_fd(), POLLIN, 0};
  if (!FollowSignals::stop_requested()) ::poll(fds.data(), n, static_cast<int>(wait.count()));
  if (m_inotify >= 0) {
    alignas(inotify_event) std::array<char, 4096> buf{};
    while (::read(m_inotify, buf.data(), buf.size()) > 0) {
    }
  }
  const std::uint64_t before = events();
  look();
  return events() - before;
}

void Follower::look() {
  watch_directories();
  for (auto& t : m_tails) {
    read_new_lines(*t);
    check_rotation(*t);
  }
  std::erase_if(m_tails, [](const auto& t) { return !t->parse; });
  open_new_files();
}

void Follower::read_new_lines(Tail& t) {
  if (!t.parse) return;
  t.reader->rearm();
  while (t.parse->step()) {
  }
}

void Follower::check_rotation(Tail& t) {
  struct stat st {};
  const bool gone = ::stat(t.path.c_str(), &st) != 0;
  const bool replaced = !gone && (st.st_dev != t.device || st.st_ino != t.inode);
  const bool truncated = !gone && !replaced && static_cast<std::uint64_t>(st.st_size) < t.reader->bytes_read();
  if (!gone && !replaced && !truncated) return;
  if (!truncated) read_new_lines(t);  // what the writer added before it renamed the file
  t.parse->finish();
  if (!truncated) m_rotated[{t.device, t.inode}] = t.reader->bytes_read();
  add_note(*t.stats, truncated ? "truncated while followed (copytruncate): read again from its start"
                               : "renamed or removed while followed (a rotation): read to its end");
  t.parse.reset();  // the tail is dropped; the file at its path is opened anew
  t.reader.reset();
}

void Follower::open_new_files() {
  for (const std::string& pattern : m_patterns) {
    for (const std::string& path : files_of(pattern)) {
      if (m_skipped.count(path) != 0) continue;
      if (std::any_of(m_tails.begin(), m_tails.end(), [&](const auto& t) { return t->path == path; })) continue;
      struct stat st {};
      // An empty file waits for its first line: its format is told from its start.
      if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) continue;
      if (const auto r = m_rotated.find({st.st_dev, st.st_ino});
          r != m_rotated.end() && r->second == static_cast<std::uint64_t>(st.st_size))
        continue;
      auto reader = io::LineReader::open(path);
      if (!reader) continue;  // gone again, or unreadable: looked at again next time
      if ((*reader)->compression() != io::Compression::none) {
        m_skipped.insert(path);  // a compressed rotation: nothing will be appended to it
        continue;
      }
      if (being_written_whole(**reader, st, m_options)) continue;  // looked at again until it is left alone
      auto t = std::make_unique<Tail>();
      t->path = path;
      t->device = st.st_dev;
      t->inode = st.st_ino;
      t->reader = std::move(*reader);
      t->reader->set_max_line(m_options.max_line);
      t->reader->hold_back_unterminated_line();
      t->stats = &m_stats.emplace_back();
      t->stats->path = path;
      t->parse = std::make_unique<prep::InputParse>(*t->reader, m_options, m_clock, m_sink, *t->stats);
      if (auto started = t->parse->start(); !started) {
        m_warnings.push_back(fmt::format("{}: not followed: {}", path, started.error().message));
        m_skipped.insert(path);
        continue;
      }
      t->parse->set_live();
      read_new_lines(*t);
      m_tails.push_back(std::move(t));
    }
  }
}

std::vector<InputStats> Follower::finish() {
  for (auto& t : m_tails) {
    read_new_lines(*t);
    t->parse->finish();
  }
  m_tails.clear();
  return {m_stats.begin(), m_stats.end()};
}

}  // namespace gpucost::pipeline

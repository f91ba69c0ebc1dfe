// --follow (docs/live.md): read what the inputs hold, then what is appended to them, as `tail -F`
// does: files that appear later (globs are expanded again), rotation by rename (the old file is
// read to its end, then the new one from its start) and by copytruncate (a file shorter than what
// was read starts again from its start). Compressed files are rotations: not followed. Each file's
// events go to the sink as its lines come, in its own order; memory is one parse per file.
#pragma once

#include <gpucost/core/error.hpp>
#include <gpucost/core/event_sink.hpp>
#include <gpucost/core/input_stats.hpp>
#include <gpucost/core/time.hpp>
#include <gpucost/prep/prep.hpp>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpucost::pipeline {

struct FollowSettings {
  /// How often the files are looked at when inotify cannot tell (or is off), and globs expanded.
  std::chrono::milliseconds poll{1000};
  bool inotify = true;  ///< false: polling only (GPUCOST_FOLLOW_POLL=1)
};

/// SIGTERM and SIGINT (stop) and SIGHUP (reopen the outputs) for a follow loop: the handlers set
/// a flag and wake the loop's wait at once.
class FollowSignals {
 public:
  /// Installs the handlers (once per process).
  static Status install();
  [[nodiscard]] static bool stop_requested();
  /// True once per SIGHUP received.
  [[nodiscard]] static bool take_hangup();
  /// A descriptor that becomes readable when a signal came (-1 before install()).
  [[nodiscard]] static int wake_fd();
  /// Drains the wake descriptor.
  static void drain();
};

class Follower {
 public:
  /// `patterns`: files or globs (expanded again at each look); "-" is not followed.
  Follower(std::vector<std::string> patterns, const prep::PrepOptions& options, LocalClock& clock, EventSink& sink,
           FollowSettings settings = {});
  ~Follower();
  Follower(const Follower&) = delete;
  Follower& operator=(const Follower&) = delete;

  /// Reads what every file holds now. Fails when a pattern that is not a glob names nothing
  /// readable and cannot appear (its directory is missing).
  Status start();
  /// Waits up to `timeout` for a change (a write, a new or renamed file, a signal), then reads
  /// what is new in every file. Returns the events read.
  std::uint64_t wait_and_read(std::chrono::milliseconds timeout);
  /// Ends every parse (the events a parser holds back are emitted) and returns the counts of
  /// every file followed, in the order they were opened.
  std::vector<InputStats> finish();
  /// Events read so far.
  [[nodiscard]] std::uint64_t events() const;
  /// The counts of every file followed so far, in the order they were opened.
  [[nodiscard]] std::vector<InputStats> stats() const { return {m_stats.begin(), m_stats.end()}; }
  /// The files left alone since the last call, each with why (a format no parser knows).
  [[nodiscard]] std::vector<std::string> take_warnings() { return std::exchange(m_warnings, {}); }

 private:
  struct Tail;
  void look();  // globs again, rotations, new lines
  void open_new_files();
  void check_rotation(Tail& t);
  void read_new_lines(Tail& t);
  void watch_directories();

  std::vector<std::string> m_patterns;
  const prep::PrepOptions& m_options;
  LocalClock& m_clock;
  EventSink& m_sink;
  FollowSettings m_settings;
  std::vector<std::unique_ptr<Tail>> m_tails;
  std::deque<InputStats> m_stats;   // a deque: each parse keeps a reference to its counts
  std::set<std::string> m_skipped;  // compressed rotations: not followed
  int m_inotify = -1;
  std::set<std::string> m_watched;
  /// Files read to their end and renamed away, (device, inode) -> bytes read: a glob that finds
  /// one under its new name (q.csv.1), of that size, leaves it alone (a new file that reuses the
  /// inode differs in size, almost always).
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> m_rotated;
  std::vector<std::string> m_warnings;
};

}  // namespace gpucost::pipeline

// What the Prometheus-shaped inputs share: a saved HTTP API answer (parse_prometheus_json.cpp) and
// an exporter's /metrics text (parse_exposition.cpp) name the same series, dcgm-exporter's
// DCGM_FI_* and nvidia_gpu_exporter's nvidia_smi_*, with the same labels. Here: the table of the
// series gpucost reads and their units, a GPU's identity and workload from the labels, --match
// on the labels, and the join of one-metric series into one sample per GPU and time.
#pragma once

#include "prep/line_parser.hpp"

#include <gpucost/core/error.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace gpucost::prep::prom {

enum class Role : std::uint8_t { metric, field, xid, throttle, info };

/// One series name gpucost reads, and what it becomes.
struct PromMetric {
  std::string_view name;
  Role role;
  Metric metric = Metric::count_;
  std::string_view field;  ///< Role::field: the event's numeric field (dcgmi's short name where it has one)
  double divisor = 1.0;    ///< exporter unit -> gpucost unit (Hz -> MHz: 1e6; bytes -> MiB: 1048576)
  double factor = 1.0;     ///< ratio 0-1 -> % : 100
  int priority = 0;        ///< when several series feed one metric, the lowest wins
};

/// Every series name gpucost reads, dcgm-exporter's first.
std::span<const PromMetric> metric_table();
/// The table's row of a series name; null for a series gpucost does not read.
const PromMetric* find_metric(std::string_view name);

/// One label of a series, its value unescaped.
struct Label {
  std::string_view name, value;
};
using Labels = std::span<const Label>;

/// The value of label `key`; empty when the series has none (Prometheus' own rule: an empty
/// label is no label).
std::string_view label(Labels labels, std::string_view key);

/// The host a series names: dcgm-exporter's `Hostname`, else the scrape target's `instance`
/// without its port.
std::string_view host_of(Labels labels);

/// "NaN", "+Inf", "-Inf", "Inf": an exporter's or Prometheus' "no value".
bool is_non_finite_text(std::string_view text);

/// --match on the series of a saved answer or a scrape: every matcher must hold, as in a
/// Prometheus selector (an absent label reads as ""; a regex is anchored at both ends).
class LabelFilter {
 public:
  LabelFilter();
  ~LabelFilter();
  LabelFilter(LabelFilter&&) noexcept;
  LabelFilter& operator=(LabelFilter&&) noexcept;
  /// Compiles `label="v"`, `!=`, `=~`, `!~` matchers (the value in double or single quotes, with
  /// backslash escapes); fails (usage) on one that is not a matcher or whose regex does not compile.
  static Expected<LabelFilter> compile(const std::vector<std::string>& matchers);
  [[nodiscard]] bool empty() const { return m_matchers.empty(); }
  [[nodiscard]] bool matches(Labels labels) const;
  /// The matchers as given, comma-separated: what a note names.
  [[nodiscard]] const std::string& text() const { return m_text; }

 private:
  struct Matcher {
    std::string label, value;
    bool negate = false;
    std::unique_ptr<re2::RE2> regex;  ///< =~ and !~
  };
  std::vector<Matcher> m_matchers;
  std::string m_text;
};

/// The series of every GPU filed by time, until they are emitted as `sample` events (and `xid`
/// events where DCGM's last-Xid gauge changes). A reader files each point it reads with add_point
/// and calls emit() when no later input can add a point before the times held: at the end for a
/// saved answer, at each scrape's end for a /metrics text with scrape times.
class SeriesJoin {
 public:
  /// `source`: the events' source name ("prometheus", "exposition").
  explicit SeriesJoin(std::string_view source) : m_source(source) {}

  /// A series' place in the join: its metric, its GPU and its workload.
  struct Series {
    const PromMetric* metric = nullptr;
    std::size_t gpu = 0;         ///< index in m_gpus
    std::int32_t workload = -1;  ///< index in m_workloads
  };
  enum class Outcome : std::uint8_t { series, ignored, info, filtered, no_gpu };
  /// Looks at a series' name and labels: a series gpucost reads (`out` set), one it does not
  /// (counted by name), nvidia_smi_gpu_info (kept for the identities), one --match leaves out, or
  /// one that names no GPU (malformed for the caller).
  Outcome classify(std::string_view name, Labels labels, const LabelFilter& filter, Series& out);
  /// Files one value (as the exporter wrote it) at `ts_ns`. False, with `why`, when the text is no
  /// number; NaN and Inf are no value (counted, true).
  bool add_point(const Series& series, std::int64_t ts_ns, std::string_view text, std::string_view& why);
  /// Emits the samples held from before `until_ns` (all by default), in time order (then host,
  /// then GPU index), and forgets them; the GPUs and what the Xid detection knows stay.
  void emit(ParseContext& ctx, std::int64_t until_ns = std::numeric_limits<std::int64_t>::max());
  /// Forgets the samples filed at `ts_ns`.
  void drop(std::int64_t ts_ns);
  /// Files the samples held at `from_ns` at `to_ns` instead (a time learnt later).
  void move(std::int64_t from_ns, std::int64_t to_ns);
  /// The notes of the whole input: ignored series by name, NaN values, duplicates, --match.
  void summarise(ParseContext& ctx) const;
  /// GPUs seen so far (nvidia_smi_gpu_info alone is none).
  [[nodiscard]] std::size_t gpu_count() const { return m_gpus.size(); }

 private:
  struct Point {
    std::uint16_t slot = 0;  ///< index in the metric table
    double value = 0;
  };
  struct Sample {
    std::vector<Point> points;
    std::int32_t workload = -1;
  };
  /// A GPU's samples on one time grid, origin + row x step: a query_range answer gives every
  /// series on the same grid, so a point is filed by arithmetic into flat columns (one per metric
  /// table row the GPU has), with no node or vector per sample. The buffers are kept, cleared,
  /// for the next slice.
  struct Grid {
    std::int64_t origin = 0;
    std::uint64_t step = 0;  ///< 0: one time seen so far
    std::size_t rows = 0;    ///< 0: empty
    /// Per row: the points of its sample (0: none). The vectors hold room beyond `rows`, kept empty
    /// (0, -1) so that a row opened there needs no writing.
    std::vector<std::uint8_t> filled;
    std::vector<std::int32_t> workload;      ///< per row, as Sample::workload
    std::vector<std::uint16_t> column_slot;  ///< per column: its index in the metric table
    std::vector<std::uint8_t> column_of;     ///< per metric table index: 1 + its column; 0: none
    /// Per row, per column (row x columns + column), so that a row's points are side by side.
    std::vector<double> value;
    std::vector<std::uint8_t> order;  ///< as value: 1 + the point's place in its sample; 0: none
    [[nodiscard]] std::size_t cell(std::size_t row, std::size_t column) const {
      return row * column_slot.size() + column;
    }
    [[nodiscard]] std::int64_t ts_of(std::size_t row) const {
      return static_cast<std::int64_t>(static_cast<std::uint64_t>(origin) + row * step);
    }
    /// The row of `ts_ns` when it is on the grid: never before the origin, nor far beyond the end.
    [[nodiscard]] bool row_of(std::int64_t ts_ns, std::size_t& row) const;
    void resize(std::size_t n);
    std::size_t add_column(std::uint16_t slot);
    void empty_from(std::size_t from);
    void clear();
    void erase_before(std::size_t row);
  };
  struct GpuIdentity {
    std::string host, uuid, model, driver, bus_id;
    std::int32_t index = -1;
  };
  struct GpuSeries {
    GpuIdentity id;
    Grid grid;                               ///< the samples while every point fell on one grid
    std::map<std::int64_t, Sample> samples;  ///< by time, ns since the epoch: the samples otherwise
    std::int64_t last_xid = -1;              ///< the last Xid gauge value emitted; -1: none yet
    bool counted = false;                    ///< in the fingerprint
  };
  struct Workload {
    std::string pod, ns, container;
    bool operator==(const Workload&) const = default;
  };

  std::size_t gpu_of(Labels labels, std::string_view host);
  void note_info(Labels labels, std::string_view host);
  std::int32_t workload_of(Labels labels);
  void resolve_identities(ParseContext& ctx);
  Event& begin_event(const GpuSeries& gpu, std::string_view kind, std::int64_t ts_ns, ParseContext& ctx) const;
  bool file_on_grid(Grid& grid, std::uint16_t slot, std::int64_t ts_ns, double value, std::int32_t workload);
  void grid_to_map(GpuSeries& gpu);
  bool emit_same_grid(const std::vector<GpuSeries*>& order, std::int64_t until_ns, ParseContext& ctx);
  void emit_row(GpuSeries& gpu, std::size_t row, ParseContext& ctx);
  void emit_sample(GpuSeries& gpu, std::int64_t ts_ns, std::span<const Point> points, std::int32_t workload,
                   ParseContext& ctx);
  void add_identity(const GpuIdentity& id, std::int32_t workload, Event& ev) const;
  void note_xid(GpuSeries& gpu, std::int64_t ts_ns, double value, ParseContext& ctx);

  std::string_view m_source;
  std::vector<std::unique_ptr<GpuSeries>> m_gpus;  ///< in order of first appearance
  std::map<std::string, std::size_t> m_gpu_index;  ///< by host and gpu label (or uuid)
  std::vector<GpuIdentity> m_infos;
  std::vector<Workload> m_workloads;
  std::map<std::string, std::uint64_t> m_ignored_names;
  std::uint64_t m_non_finite = 0, m_duplicates = 0, m_filtered = 0;
  std::string m_filter_text;
  std::vector<Point> m_row_points;  ///< a grid row's points in order, reused
  bool m_numbered_note = false;
};

}  // namespace gpucost::prep::prom

// Python training logs (docs/formats.md, "Python training logs"): no single grammar, so each line (each '\r' segment of
// it: tqdm redraws its bar with '\r') is matched against the shapes of the tools:
//   10/10/2022 22:57:22 - INFO - __main__ - msg                 HF / accelerate examples (local time)
//   2024-06-12 14:22:18,123 - name - INFO - msg                 logging cookbook asctime
//   [2026-02-01 10:23:39,091: INFO: module: msg]                bracketed custom format
//   [2024-06-12 14:22:18,123] [INFO] [file.py:96:fn] msg        DeepSpeed; [ts][name][LEVEL] - msg (Hydra)
//   19-08-09 08:23:24.709 - INFO: <epoch: 86, iter: 107,200, lr:2.500e-05> l_g_pix: 1.4e-03   traiNNer
//   2020-08-15 15:50:30,390 INFO: [name..][epoch:207, iter:  20,100, lr:(1.000e-04,)] ...     BasicSR
//   2024-06-12 14:22:18.123 | INFO     | mod:fn:42 - msg          loguru
//   INFO:__main__:msg                                           logging.basicConfig default (no time)
//   {'loss': 2.0079, 'grad_norm': 2.62, 'learning_rate': 9e-07, 'epoch': 0.2}   HF Trainer (no time)
//    20%|██▌       | 49/245 [01:04<04:09,  1.27s/it]            tqdm (no time)
//   Epoch 0: 100%|██████████| 938/938 [00:15<00:00, 61.24it/s, v_num=0, train_loss=0.123]  Lightning
// before any of them, per-worker prefixes are removed: "(RayTrainWorker pid=N) ", "name logs: ",
// "[1,mpirank:0,algo-1]<stderr>:", "[default0]:", "[rank0]:".
// Lines that say where training is (start, epoch, step, eval, checkpoint, end) become `train`
// events; other log lines are ignored but set the time for the untimed lines after them. Lines
// that match a --pattern become `pattern` events (tried first).
// Each shape is read in a file of its own (dialects.hpp); this parser puts them together, places
// the lines without a time, and matches --pattern.
#include "dialects.hpp"
#include "prep/kernel/klog_common.hpp"
#include "prep/parsers.hpp"
#include "prep/user_patterns.hpp"

#include <gpucost/core/text.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpucost::prep {

namespace {

using std::string_view;
using namespace trainlog;

constexpr string_view kSource = "trainlog";

/// The value after `label` and its colon ("PyTorch version (GPU?): 2.1.0+cu121 (True)" gives
/// "2.1.0+cu121"); empty when `s` does not hold `label` followed by one.
string_view labelled_value(string_view s, string_view label) {
  const std::size_t at = s.find(label);
  if (at == string_view::npos) return {};
  string_view rest = s.substr(at + label.size());
  if (rest.starts_with(" (GPU?)")) rest.remove_prefix(7);  // accelerate env, transformers env
  if (!rest.starts_with(':')) return {};
  rest = text::trim(rest.substr(1));
  return rest.substr(0, rest.find(' '));
}

/// The software stack the environment reports print (python -m torch.utils.collect_env,
/// accelerate env, transformers env), often copied into a job's log: into the fingerprint.
void note_stack(string_view s, Fingerprint& fp) {
  if (s.find("ersion") == string_view::npos && s.find("PyTorch") == string_view::npos) return;
  if (const string_view v = labelled_value(s, "PyTorch version"); !v.empty())
    Fingerprint::add(fp.stack, fmt::format("PyTorch {}", v));
  if (const string_view v = labelled_value(s, "CUDA used to build PyTorch"); !v.empty() && v != "None")
    Fingerprint::add(fp.stack, fmt::format("CUDA (PyTorch build) {}", v));
  if (const string_view v = labelled_value(s, "Nvidia driver version"); !v.empty()) Fingerprint::add(fp.drivers, v);
}

/// The count in "n_gpu: 2" (HF examples' "Process rank: 0, device: cuda:0, n_gpu: 2") or in
/// "CUDA_VISIBLE_DEVICES: [0,1]" (Lightning's "LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0,1]"); 0: none.
std::uint64_t logged_gpu_count(string_view s) {
  if (const auto at = s.find("n_gpu: "); at != string_view::npos) {
    std::uint64_t n = 0;
    for (std::size_t i = at + 7; i < s.size() && s[i] >= '0' && s[i] <= '9' && n < 100000; ++i)
      n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
    return n;
  }
  if (const auto at = s.find("CUDA_VISIBLE_DEVICES: ["); at != string_view::npos) {
    const string_view list = s.substr(at + 23, s.find(']', at) - (at + 23));
    if (text::trim(list).empty()) return 0;
    return static_cast<std::uint64_t>(std::count(list.begin(), list.end(), ',')) + 1;
  }
  return 0;
}

/// The GPUs a log names: "GPU 0: NVIDIA A100-SXM4-80GB" (python -m torch.utils.collect_env,
/// nvidia-smi -L with its " (UUID: ...)") and "- GPU type: NVIDIA A100-SXM4-80GB" (accelerate env);
/// with the counts of logged_gpu_count. Breakeven's estimate reads them (docs/cost-model.md).
void note_devices(string_view s, Fingerprint& fp) {
  if (s.find("GPU") == string_view::npos && s.find("n_gpu") == string_view::npos &&
      s.find("CUDA_VISIBLE") == string_view::npos)
    return;
  fp.gpu_count = std::max(fp.gpu_count, logged_gpu_count(s));
  string_view name;
  std::uint64_t index = 0;
  if (const auto at = s.find("GPU type: "); at != string_view::npos) {
    name = s.substr(at + 10);
  } else {
    // "GPU <n>: <name>", also after "GPU models and configuration: " on one line.
    std::size_t i = string_view::npos;
    for (auto gpu = s.find("GPU "); gpu != string_view::npos && i == string_view::npos; gpu = s.find("GPU ", gpu + 4)) {
      std::size_t k = gpu + 4;
      index = 0;
      while (k < s.size() && s[k] >= '0' && s[k] <= '9' && k - gpu < 8)
        index = index * 10 + static_cast<std::uint64_t>(s[k++] - '0');
      if (k > gpu + 4 && s.substr(k, 2) == ": ") i = k + 2;
    }
    if (i == string_view::npos) return;
    name = s.substr(i);
    if (const auto uuid = name.find(" (UUID:"); uuid != string_view::npos) name = name.substr(0, uuid);
    fp.gpu_count = std::max(fp.gpu_count, index + 1);
  }
  name = text::trim(name);
  // A product name, not a sentence: "NVIDIA ...", "Tesla ...", "AMD Instinct ...", short.
  if (name.size() > 64 || !(name.starts_with("NVIDIA ") || name.starts_with("Tesla ") ||
                            name.starts_with("AMD Instinct ") || name.starts_with("Quadro ")))
    return;
  Fingerprint::add(fp.gpus, name);
}

class TrainlogParser final : public LineParser {
 public:
  explicit TrainlogParser(UserPatterns patterns) : m_patterns(std::move(patterns)) {}

  LineResult parse(string_view line, ParseContext& ctx) override {
    m_line_events = 0;
    m_malformed = false;
    m_has_bar = false;
    if (!m_patterns.empty()) {
      LineResult r = LineResult::ignored;
      if (match_patterns(line, ctx, r)) return r;
    }
    std::size_t pos = 0;
    while (pos <= line.size()) {
      const std::size_t cr = line.find('\r', pos);
      const string_view seg = line.substr(pos, cr == string_view::npos ? string_view::npos : cr - pos);
      segment(seg, ctx, 0);
      if (cr == string_view::npos) break;
      pos = cr + 1;
    }
    flush_bar(ctx);
    if (m_malformed) return LineResult::malformed;
    return m_line_events > 0 ? LineResult::event : LineResult::ignored;
  }

  void finish(ParseContext& ctx) override {
    if (!m_held.empty()) release_without_stamp(ctx);
    if (m_untimed > 0 && m_have_time)
      add_note(ctx.stats, fmt::format("{} from lines without a timestamp (HF Trainer dicts, tqdm bars, plain "
                                      "messages) {} the time of the nearest timestamped line before {} "
                                      "(field time_from); the time is a bound, not a measurement",
                                      text::counted(static_cast<long long>(m_untimed), "event"),
                                      m_untimed == 1 ? "takes" : "take", m_untimed == 1 ? "it" : "them"));
  }

  // Untimed events held from replayed lines were placed and counted by the run that read them.
  void end_replay(ParseContext& /*ctx*/) override {
    m_held.mute();
    m_untimed = 0;
  }

 private:
  // ---- one '\r' segment -------------------------------------------------------------------

  void segment(string_view raw, ParseContext& ctx, int depth) {
    string_view worker;
    const string_view s = clean_segment(raw, worker);
    if (s.empty()) return;
    note_stack(s, ctx.stats.fingerprint);
    note_devices(s, ctx.stats.fingerprint);
    if (stamped_line(s, worker, ctx)) return;
    Bar bar;
    switch (parse_bar(s, bar)) {
      case BarParse::ok:
        m_bar = bar;
        m_bar_worker = worker;
        m_has_bar = true;
        if (!bar.tail.empty() && depth == 0) segment(bar.tail, ctx, 1);
        return;
      case BarParse::broken:
        flush_bar(ctx);
        set_malformed(ctx, "a tqdm bar without 'n/total [elapsed<remaining, rate]'");
        return;
      case BarParse::not_bar: break;
    }
    flush_bar(ctx);
    if (s.front() == '{') {
      dict_line(s, worker, ctx);
      return;
    }
    if (LogHeader h; default_format(s, h)) {
      if (begin_message(h.message, worker, ctx, false)) {
        add_header(h, ctx.event);
        emit_untimed(ctx);
      }
      return;
    }
    if (begin_message(s, worker, ctx, true)) emit_untimed(ctx);
  }

  // "10/10/2022 22:57:22 - INFO - __main__ - msg" and the other stamped shapes.
  bool stamped_line(string_view s, string_view worker, ParseContext& ctx) {
    Stamp st;
    string_view rest;
    if (scan_stamped(s, st, rest) == 0) return false;
    flush_bar(ctx);
    if (!st.valid) {
      set_malformed(ctx, "bad date or time in the timestamp");
      return true;
    }
    set_time(st, ctx);
    LogHeader h;
    if (!parse_header(rest, h)) h.message = text::trim(rest);
    if (begin_message(h.message, worker, ctx, false)) {
      add_header(h, ctx.event);
      emit_at(ctx, m_last_ns);
    }
    return true;
  }

  static void add_header(const LogHeader& h, Event& ev) {
    if (!h.level.empty()) ev.add_text("level", h.level);
    if (!h.logger.empty()) ev.add_text("logger", h.logger);
  }

  // ---- messages ---------------------------------------------------------------------------

  // Starts a `train` event when the message says where training is. `anchored`: the phrase must
  // open the text (a line without a log header may be anything: warnings, tracebacks).
  bool begin_message(string_view msg, string_view worker, ParseContext& ctx, bool anchored) {
    const string_view t = text::trim(msg);
    note_totals(t);
    Event& ev = ctx.event;
    begin(ev, "train", worker);
    if (epoch_metrics(t, ev) || basicsr_metrics(t, ev) || lightning_checkpoint(t, ev) || progress_metrics(t, ev))
      return true;
    if (!t.empty() && t.front() == '{') return fill_dict(t, ev) == DictResult::event;  // logger.info(metrics)
    string_view core = t;
    while (!core.empty() && (core.front() == '*' || core.front() == '=' || core.front() == '>' || core.front() == ' '))
      core.remove_prefix(1);
    Phase phase{};
    if (!message_phase(core, anchored, phase)) return false;
    ev.add_text("phase", phase_name(phase));
    if (phase == Phase::checkpoint) checkpoint_details(core, ev);
    if (phase == Phase::eval) m_in_eval = true;
    ev.add_text("message", t);
    return true;
  }

  // "  Total optimization steps = 245": the total of the training bar (eval bars differ).
  void note_totals(string_view t) {
    if (!t.starts_with("Total optimization steps = ")) return;
    m_train_total = text::parse_int(t.substr(27)).value_or(-1);
  }

  // ---- dicts and bars ---------------------------------------------------------------------

  // A metrics dict (hf_trainer.cpp) into the begun event; its evaluation metrics end the evaluation.
  DictResult fill_dict(string_view s, Event& ev) {
    bool eval_metrics = false;
    const DictResult result = trainer_dict(s, ev, eval_metrics);
    if (eval_metrics) m_in_eval = false;  // the evaluation is over
    return result;
  }

  void dict_line(string_view s, string_view worker, ParseContext& ctx) {
    begin(ctx.event, "train", worker);
    switch (fill_dict(s, ctx.event)) {
      case DictResult::event: emit_untimed(ctx); break;
      case DictResult::malformed: set_malformed(ctx, "a metrics dict that is not a Python dict repr"); break;
      case DictResult::none: break;
    }
  }

  // The last bar of a run of bars in one line (tqdm redraws): one event.
  void flush_bar(ParseContext& ctx) {
    if (!m_has_bar) return;
    m_has_bar = false;
    const Bar& b = m_bar;
    const BarKind kind = bar_kind(b);
    if (kind == BarKind::other || !text::all_digits(b.n) || (!b.total.empty() && !text::all_digits(b.total))) return;
    Event& ev = ctx.event;
    begin(ev, "train", m_bar_worker);
    const std::int64_t total = b.total.empty() ? -1 : text::parse_int(b.total).value_or(-1);
    ev.add_text("phase", phase_name(bar_phase(b, kind, total)));
    if (istarts_with(b.desc, "epoch ")) {
      const string_view e = leading_digits(b.desc.substr(6));
      if (!e.empty()) add_number_text(ev, "epoch", e);
    }
    add_number_text(ev, "step", b.n);
    if (!b.total.empty()) add_number_text(ev, "total_steps", b.total);
    add_bar_rate(b, ev);
    if (const std::int64_t secs = elapsed_seconds(b.elapsed); secs >= 0) ev.add_number("elapsed_s", secs);
    if (!b.postfix.empty()) add_bar_postfix(b.postfix, ev);
    emit_untimed(ctx);
  }

  // Training bar: step, or epoch when a Lightning "Epoch N" bar is full; HF Trainer's eval bar
  // has no description: it is a bar with another total than the training bar's (or drawn after
  // "Running Evaluation").
  Phase bar_phase(const Bar& b, BarKind kind, std::int64_t total) {
    if (kind == BarKind::eval) return Phase::eval;
    if (b.desc.empty()) {
      if (m_train_total < 0 && total > 0 && !m_in_eval) m_train_total = total;
      if (total > 0 && total == m_train_total) m_in_eval = false;
      if (m_in_eval || (total > 0 && total != m_train_total)) return Phase::eval;
    }
    if (istarts_with(b.desc, "epoch") && !b.total.empty() && b.n == b.total) return Phase::epoch;
    return Phase::step;
  }

  // ---- --pattern --------------------------------------------------------------------------

  bool match_patterns(string_view line, ParseContext& ctx, LineResult& result) {
    const string_view text = text::rtrim(line);
    const int p = m_patterns.match(text);
    if (p < 0) return false;
    Event& ev = ctx.event;
    begin(ev, "pattern", {});
    ev.add_number("pattern", p);
    bool timed = false, have_dur = false;
    std::int64_t ts = 0;
    for (const PatternGroup& g : m_patterns.groups(p)) {
      const string_view cap = m_patterns.capture(g.index);
      if (cap.empty()) continue;
      if (!pattern_group(p, g, cap, ctx, timed, ts, have_dur)) {
        result = LineResult::malformed;
        return true;
      }
    }
    if (!timed) timed = line_stamp(text, ctx, ts);
    result = LineResult::event;
    if (timed) {
      m_last_ns = ts;
      on_time(ctx);
      emit_at(ctx, ts);
    } else {
      emit_untimed(ctx);
    }
    return true;
  }

  bool pattern_group(int p, const PatternGroup& g, string_view cap, ParseContext& ctx, bool& timed, std::int64_t& ts,
                     bool& have_dur) {
    Event& ev = ctx.event;
    const auto bad = [&](string_view what) {
      ctx.reason_buf = fmt::format("pattern {}: group {} '{}' is not {}", p, g.name, cap.substr(0, 40), what);
      ctx.reason = ctx.reason_buf;
      return false;
    };
    switch (g.role) {
      case GroupRole::ts:
        if (!any_stamp(cap, ctx, ts)) return bad("a timestamp");
        timed = true;
        return true;
      case GroupRole::dur_ns:
      case GroupRole::dur_us:
      case GroupRole::dur_ms:
      case GroupRole::dur_s: {
        if (have_dur) return true;  // the first duration group that matched wins
        static constexpr int kExp[] = {0, 3, 6, 9};
        const int exp = kExp[static_cast<int>(g.role) - static_cast<int>(GroupRole::dur_ns)];
        std::int64_t ns = 0;
        if (!decimal_to_ns(cap, exp, ns)) return bad("a duration");
        ev.add_number("dur_ns", ns);
        have_dur = true;
        return true;
      }
      case GroupRole::step:
      case GroupRole::loss:
        if (!is_number(cap)) return bad("a number");
        ev.fields.push_back(Field{g.name, cap, true, false});
        return true;
      case GroupRole::phase:
      case GroupRole::name: ev.add_text(g.name, cap); return true;
      case GroupRole::other: ev.fields.push_back(Field{g.name, cap, is_number(cap), reserved_key(g.name)}); return true;
    }
    return true;
  }

  // A `ts` group: the stamps above, ISO 8601, or seconds (ms, us, ns by digit count) since the epoch.
  bool any_stamp(string_view s, ParseContext& ctx, std::int64_t& ns) {
    s = text::trim(s);
    Stamp st;
    string_view rest;
    if (scan_stamped(s, st, rest) > 0 && st.valid && text::trim(rest).empty()) {
      ns = stamp_ns(st, ctx);
      return true;
    }
    const string_view whole = leading_digits(s);
    if (whole.size() >= 9 && whole.size() <= 19) {
      int exp = 9;
      if (whole.size() >= 12) exp = whole.size() >= 18 ? 0 : whole.size() >= 15 ? 3 : 6;
      if (!decimal_to_ns(s, exp, ns)) return false;
      klog::raise_basis(ctx.stats, TimeBasis::absolute);
      return true;
    }
    return false;
  }

  // The line's own stamp (after a worker prefix), for a pattern without a `ts` group.
  bool line_stamp(string_view line, ParseContext& ctx, std::int64_t& ns) {
    string_view worker;
    Stamp st;
    string_view rest;
    if (scan_stamped(clean_segment(line, worker), st, rest) == 0 || !st.valid) return false;
    ns = stamp_ns(st, ctx);
    return true;
  }

  // ---- time -------------------------------------------------------------------------------

  std::int64_t stamp_ns(const Stamp& st, ParseContext& ctx) {
    if (st.has_offset) {
      klog::raise_basis(ctx.stats, TimeBasis::absolute);
      return st.civil.as_utc_ns() - st.offset_s * kNsPerSecond;
    }
    klog::raise_basis(ctx.stats, TimeBasis::local);
    return ctx.clock.to_utc_ns(st.civil.as_utc_ns());
  }

  void set_time(const Stamp& st, ParseContext& ctx) {
    m_last_ns = stamp_ns(st, ctx);
    on_time(ctx);
  }

  // The first stamp places the untimed events held before it.
  void on_time(ParseContext& ctx) {
    m_have_time = true;
    if (m_held.empty()) return;
    const std::int64_t ns = m_last_ns;
    m_held.release(ctx, [ns](const klog::HeldTime&) { return ns; });
  }

  static void begin(Event& ev, string_view kind, string_view worker) {
    ev.reset();
    ev.source = kSource;
    ev.gpu = -1;
    ev.kind = kind;
    if (!worker.empty()) ev.add_text("worker", worker);
  }

  void emit_at(ParseContext& ctx, std::int64_t ns) {
    ctx.event.ts_ns = ns;
    ctx.emit();
    ++m_line_events;
  }

  // An event from a line without a time: the time of the stamp before it, else held until the
  // first stamp ("following line").
  void emit_untimed(ParseContext& ctx) {
    ++m_untimed;
    ++m_line_events;
    if (m_have_time) {
      ctx.event.add_text("time_from", "preceding line");
      ctx.event.ts_ns = m_last_ns;
      ctx.emit();
      return;
    }
    ctx.event.add_text("time_from", "following line");
    klog::HeldTime t;
    t.line = ctx.line_no;
    m_held.hold(ctx.event, t);
    if (m_held.full()) release_without_stamp(ctx);
  }

  // No stamp came: the held events go to --start, else to 0 (relative).
  void release_without_stamp(ParseContext& ctx) {
    std::int64_t ns = 0;
    string_view from = "none";
    if (const auto& start = ctx.options.start) {
      from = "--start";
      if (start->offset_s) {
        ns = start->civil.as_utc_ns() - *start->offset_s * kNsPerSecond;
        klog::raise_basis(ctx.stats, TimeBasis::absolute);
      } else {
        ns = ctx.clock.to_utc_ns(start->civil.as_utc_ns());
        klog::raise_basis(ctx.stats, TimeBasis::local);
      }
    } else {
      klog::raise_basis(ctx.stats, TimeBasis::relative);
      add_note(ctx.stats,
               "no timestamp in the training log before its first events: they are placed at 0 "
               "(1970-01-01, relative); give --start to anchor them");
    }
    m_held.release(
        ctx, [ns](const klog::HeldTime&) { return ns; },
        [from](Event& ev) {
          for (Field& f : ev.fields)
            if (f.key == "time_from") f.value = from;
        });
  }

  void set_malformed(ParseContext& ctx, string_view why) {
    m_malformed = true;
    ctx.reason = why;
  }

  UserPatterns m_patterns;
  klog::HeldEvents m_held;
  Bar m_bar;  // the last bar of the current line, not yet emitted
  string_view m_bar_worker;
  bool m_has_bar = false;
  bool m_malformed = false;
  std::uint64_t m_line_events = 0;
  std::uint64_t m_untimed = 0;
  std::int64_t m_last_ns = 0;  // time of the last stamped line
  bool m_have_time = false;
  std::int64_t m_train_total = -1;  // total of the training bar
  bool m_in_eval = false;           // between "Running Evaluation" and its metrics
};

}  // namespace

Expected<std::unique_ptr<LineParser>> make_trainlog_parser(ParseContext& ctx, std::string_view /*head*/) {
  auto patterns = UserPatterns::compile(ctx.options.patterns);
  if (!patterns) return patterns.error();
  return std::unique_ptr<LineParser>(std::make_unique<TrainlogParser>(std::move(*patterns)));
}

}  // namespace gpucost::prep

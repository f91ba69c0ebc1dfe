// The dialects of Python training logs, one file each (trainlog_parser.cpp puts them together):
// what a line of each looks like and what it says of training. Internal to prep.
#pragma once

#include "common.hpp"

#include <gpucost/core/event.hpp>
#include <gpucost/core/time.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpucost::prep::trainlog {

// ---- worker_prefix.cpp: launchers' per-worker prefixes (Ray, SageMaker / mpirun, torchrun, kubectl)

/// Prefixes (at most two: a pod prefix around a rank prefix), ANSI codes and leading blanks.
std::string_view clean_segment(std::string_view seg, std::string_view& worker);

// ---- python_logging.cpp: stamped logging lines (HF / accelerate, asctime, bracketed, DeepSpeed,
// Hydra, traiNNer, BasicSR, loguru) and logging.basicConfig's default

struct Stamp {
  CivilTime civil;
  std::int64_t offset_s = 0;
  bool has_offset = false;  // ISO stamp with Z or +hh:mm: absolute, not local
  bool valid = false;       // the digits are in place and name a real date and time
};

struct LogHeader {
  std::string_view level, logger, message;
};

/// A stamped log line: the stamp directly or after '[' (bracketed formats); `rest` is what
/// follows the stamp, without a bracketed custom line's closing ']'. 0 when there is no stamp.
std::size_t scan_stamped(std::string_view s, Stamp& st, std::string_view& rest);

/// The header after a stamp (`rest` starts right after it); false when no level is found.
bool parse_header(std::string_view rest, LogHeader& h);

/// logging.basicConfig's default "INFO:__main__:msg" (no time).
bool default_format(std::string_view s, LogHeader& h);

// ---- tqdm.cpp: progress bars (tqdm, Lightning, HF Trainer) ----------------------------------

enum class BarParse { not_bar, ok, broken };

struct Bar {
  std::string_view desc;      // "Epoch 0", "Validation DataLoader 0", "Map", empty
  std::string_view n, total;  // "49", "245"; total empty when tqdm did not know it
  std::string_view elapsed;   // "01:04", "1:02:03"
  std::string_view rate;      // "1.27", empty for "?"
  std::string_view unit;      // "it/s", "s/it", "examples/s", ...
  std::string_view postfix;   // "v_num=0, train_loss=0.123"
  std::string_view tail;      // text glued after the closing ']' (a log line written after the bar)
};

/// desc: n/total [elapsed<remaining, rate, postfix]; or desc: n<unit> [elapsed, rate] (no total).
BarParse parse_bar(std::string_view s, Bar& b);

/// "01:04" / "1:02:03" -> seconds; -1 when not a time.
std::int64_t elapsed_seconds(std::string_view s);

enum class BarKind { train, eval, other };

/// What a bar counts: its description ("Epoch 0", "Validation DataLoader 0", "Map") and unit.
BarKind bar_kind(const Bar& b);

/// The bar's rate: it_per_s (and s_per_it when tqdm shows seconds per iteration), or rate and its unit.
void add_bar_rate(const Bar& b, Event& ev);

/// "v_num=0, train_loss=0.123" (Lightning), "loss=0.5, lr=1e-05" (set_postfix).
void add_bar_postfix(std::string_view p, Event& ev);

// ---- hf_trainer.cpp: the HF Trainer's metric dicts --------------------------------------------

enum class DictResult { none, event, malformed };

/// {'loss': ...} step, {'eval_loss': ...} eval, {'train_runtime': ...} end, into the begun
/// event; `none` for other dicts (a config printed as a dict) and multi-line dicts. `eval_metrics`:
/// the dict holds an evaluation's metrics (the evaluation is over).
DictResult trainer_dict(std::string_view s, Event& ev, bool& eval_metrics);

// ---- basicsr.cpp: BasicSR and traiNNer metric lines -------------------------------------------

/// BasicSR / traiNNer: "[name..][epoch:207, iter:  20,100, lr:(1.000e-04,)] [eta: ...] l_pix: 1e-3",
/// "<epoch: 86, iter: 107,200, lr:2.500e-05> l_g_pix: ...", "<epoch: 86, iter: 107,000> psnr: 13.8".
bool basicsr_metrics(std::string_view t, Event& ev);

// ---- progress_messages.cpp: messages that say where training is (HF / accelerate phrases,
// hand-written epoch and step lines, Keras, Lightning checkpoints)

/// The phase a message names ("Running training", "Saving model checkpoint to ..."); `anchored`: the
/// phrase must open the message.
bool message_phase(std::string_view s, bool anchored, Phase& out);

/// "Saving model checkpoint to out/checkpoint-500": the path and the step in its name.
void checkpoint_details(std::string_view s, Event& ev);

/// "epoch 0: perplexity: 1222.1 eval_loss: 7.10", "epoch 0: {'accuracy': 0.5687}"
bool epoch_metrics(std::string_view t, Event& ev);

/// Hand-written loops: "Epoch [1/10], Step [100/600], Loss: 0.2345", "Epoch 2/10 - loss: 0.5",
/// "Epoch 1/10" (Keras). A step makes it a step, else an epoch line; needs a total, a step or a metric.
bool progress_metrics(std::string_view t, Event& ev);

/// Lightning ModelCheckpoint: "Epoch 0, global step 938: 'val_loss' reached 0.12 (best 0.12),
/// saving model to '/ckpt/epoch=0-step=938.ckpt' as top 1".
bool lightning_checkpoint(std::string_view t, Event& ev);

}  // namespace gpucost::prep::trainlog

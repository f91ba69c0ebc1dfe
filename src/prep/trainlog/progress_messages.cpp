// Messages that say where training is (dialects.hpp).
#include "dialects.hpp"

#include <gpucost/core/text.hpp>

namespace gpucost::prep::trainlog {

using std::string_view;

namespace {

bool phrase(string_view s, string_view lower, bool anchored) {
  return anchored ? istarts_with(s, lower) : icontains(s, lower);
}

// "Step [100/600]", "step 100/600", "iter 100": step and total_steps.
bool progress_step(string_view rest, Event& ev) {
  for (const string_view word : {string_view("step"), string_view("iter")}) {
    for (std::size_t i = 0; i + word.size() < rest.size(); ++i) {
      if (!istarts_with(rest.substr(i), word) || (i > 0 && is_alpha(rest[i - 1]))) continue;
      std::size_t p = i + word.size();
      while (p < rest.size() && (is_alpha(rest[p]))) ++p;  // "steps", "iteration"
      while (p < rest.size() && (rest[p] == ' ' || rest[p] == '[' || rest[p] == ':')) ++p;
      const string_view n = leading_digits(rest.substr(p));
      if (n.empty()) continue;
      add_number_text(ev, "step", n);
      p += n.size();
      if (p < rest.size() && rest[p] == '/') {
        const string_view total = leading_digits(rest.substr(p + 1));
        if (!total.empty()) add_number_text(ev, "total_steps", total);
      }
      return true;
    }
  }
  return false;
}

}  // namespace

bool message_phase(string_view s, bool anchored, Phase& out) {
  struct Phrase {
    string_view text;
    Phase phase;
  };
  static constexpr Phrase kPhrases[] = {
      {"training completed", Phase::end},
      {"training complete", Phase::end},
      {"training finished", Phase::end},
      {"finished training", Phase::end},
      {"end of training", Phase::end},
      {"`trainer.fit` stopped", Phase::end},
      {"saving model checkpoint", Phase::checkpoint},
      {"saving checkpoint", Phase::checkpoint},
      {"saving model", Phase::checkpoint},
      {"saving current state", Phase::checkpoint},
      {"saving models and training states", Phase::checkpoint},
      {"saving the final model", Phase::checkpoint},
      {"running evaluation", Phase::eval},
      {"running validation", Phase::eval},
      {"running training", Phase::start},
      {"starting model training", Phase::start},
      {"starting training", Phase::start},
      {"start training", Phase::start},
      {"training started", Phase::start},
  };
  for (const Phrase& p : kPhrases) {
    if (phrase(s, p.text, anchored)) {
      out = p.phase;
      return true;
    }
  }
  return false;
}

// "Saving model checkpoint to out/checkpoint-500": the path and the step in its name.
void checkpoint_details(string_view s, Event& ev) {
  const std::size_t to = s.find(" to ");
  if (to != string_view::npos) {
    string_view path = text::trim(s.substr(to + 4));
    if (path.size() >= 2 && (path.front() == '\'' || path.front() == '"') && path.back() == path.front())
      path = path.substr(1, path.size() - 2);
    if (!path.empty()) ev.add_text("path", path);
  }
  const std::size_t ck = s.rfind("checkpoint-");
  if (ck != string_view::npos) {
    const string_view d = leading_digits(s.substr(ck + 11));
    if (!d.empty()) add_number_text(ev, "step", d);
  }
}

// "epoch 0: perplexity: 1222.1 eval_loss: 7.10", "epoch 0: {'accuracy': 0.5687}"
bool epoch_metrics(string_view t, Event& ev) {
  if (!istarts_with(t, "epoch ")) return false;
  const string_view n = leading_digits(t.substr(6));
  if (n.empty() || t.size() <= 6 + n.size() || t[6 + n.size()] != ':') return false;
  const string_view rest = text::trim(t.substr(7 + n.size()));
  ev.add_text("phase", "epoch");
  add_number_text(ev, "epoch", n);
  if (!rest.empty() && rest.front() == '{') {
    parse_py_dict(rest, [&](string_view k, string_view v) { add_metric(ev, k, v); });
  } else {
    parse_colon_metrics(rest, ev);
  }
  return true;
}

// Hand-written loops: "Epoch [1/10], Step [100/600], Loss: 0.2345", "Epoch 2/10 - loss: 0.5",
// "Epoch 1/10" (Keras). A step makes it a step, else an epoch line; needs a total, a step or a metric.
bool progress_metrics(string_view t, Event& ev) {
  if (!istarts_with(t, "epoch")) return false;
  std::size_t pos = 5;
  while (pos < t.size() && (t[pos] == ' ' || t[pos] == '[' || t[pos] == ':')) ++pos;
  const string_view e = leading_digits(t.substr(pos));
  if (e.empty()) return false;
  pos += e.size();
  string_view total;
  if (pos < t.size() && t[pos] == '/') {
    total = leading_digits(t.substr(pos + 1));
    pos += 1 + total.size();
  }
  if (pos < t.size() && t[pos] == ']') ++pos;
  const string_view rest = t.substr(pos);
  if (istarts_with(rest, ", global step")) return false;  // Lightning's "was not in top k"
  const std::size_t before = ev.fields.size();
  add_number_text(ev, "epoch", e);
  if (!total.empty()) add_number_text(ev, "total_epochs", total);
  const bool step = progress_step(rest, ev);
  parse_colon_metrics(rest, ev);
  if (total.empty() && !step && ev.fields.size() == before + 1) {
    ev.fields.resize(before);
    return false;
  }
  ev.add_text("phase", step ? "step" : "epoch");
  return true;
}

// Lightning ModelCheckpoint: "Epoch 0, global step 938: 'val_loss' reached 0.12 (best 0.12),
// saving model to '/ckpt/epoch=0-step=938.ckpt' as top 1".
bool lightning_checkpoint(string_view t, Event& ev) {
  if (!istarts_with(t, "epoch ")) return false;
  const string_view e = leading_digits(t.substr(6));
  const string_view after = t.substr(6 + e.size());
  if (e.empty() || !after.starts_with(", global step ")) return false;
  const string_view s = leading_digits(after.substr(14));
  if (s.empty() || !icontains(t, "saving model to")) return false;
  ev.add_text("phase", "checkpoint");
  add_number_text(ev, "epoch", e);
  add_number_text(ev, "step", s);
  if (const std::size_t to = t.find(" to "); to != string_view::npos) {
    string_view path = t.substr(to + 4);
    if (!path.empty() && path.front() == '\'') path = path.substr(1, path.find('\'', 1) - 1);
    ev.add_text("path", path);
  }
  ev.add_text("message", t);
  return true;
}

}  // namespace gpucost::prep::trainlog

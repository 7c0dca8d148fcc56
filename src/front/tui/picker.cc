#include "front/tui/picker.h"

#include <algorithm>

#include "base/strings.h"
#include "front/tui/slash_commands.h"

namespace sepp::front::tui {
namespace {

constexpr Style kTitleStyle{.fg = 4, .bold = true};
constexpr Style kDimStyle{.dim = true};
constexpr Style kSelectedStyle{.inverse = true};

}  // namespace

void Picker::Open(std::string title, std::vector<Item> items, std::function<void(const std::string&)> on_choose,
                  const std::string& selected) {
  open_ = true;
  title_ = std::move(title);
  items_ = std::move(items);
  on_choose_ = std::move(on_choose);
  ctrl_b_what_.clear();
  on_ctrl_b_ = nullptr;
  filter_.clear();
  folded_.assign(items_.size(), false);
  Refilter();
  for (size_t i = 0; i < shown_.size(); ++i)
    if (items_[shown_[i]].key == selected) selected_ = i;
}

void Picker::Refilter(bool keep_selection) {
  size_t was = keep_selection && selected_ < shown_.size() ? shown_[selected_] : items_.size();
  shown_.clear();
  for (size_t i = 0; i < items_.size(); ++i) {
    if (!filter_.empty()) {
      if (FuzzyScore(filter_, items_[i].label) >= 0) shown_.push_back(i);
      continue;
    }
    shown_.push_back(i);
    if (folded_[i]) i += std::min(items_[i].descendants, items_.size() - 1 - i);
  }
  selected_ = 0;
  for (size_t k = 0; k < shown_.size(); ++k)
    if (shown_[k] == was) selected_ = k;
}

bool Picker::Handle(const InputEvent& e) {
  if (!open_) return false;
  if (e.type == InputEvent::Type::kPaste) {
    filter_ += e.text;
    Refilter();
    return true;
  }
  auto move = [&](long by) {
    if (shown_.empty()) return;
    long n = static_cast<long>(shown_.size());
    selected_ = static_cast<size_t>(std::clamp<long>(static_cast<long>(selected_) + by, 0, n - 1));
  };
  switch (e.key) {
    case Key::kEscape: open_ = false; return true;
    case Key::kUp: move(-1); return true;
    case Key::kDown: move(1); return true;
    case Key::kPageUp: move(-static_cast<long>(kRows)); return true;
    case Key::kPageDown: move(static_cast<long>(kRows)); return true;
    case Key::kHome: selected_ = 0; return true;
    case Key::kLeft:
    case Key::kRight:
      if (filter_.empty() && !shown_.empty()) {
        size_t i = shown_[selected_];
        if (items_[i].descendants > 0) {
          folded_[i] = e.key == Key::kLeft;
          Refilter(true);
        }
      }
      return true;
    case Key::kEnd: move(static_cast<long>(shown_.size())); return true;
    case Key::kBackspace:
      if (!filter_.empty()) {
        filter_.pop_back();
        while (!filter_.empty() && (static_cast<unsigned char>(filter_.back()) & 0xC0) == 0x80) filter_.pop_back();
        Refilter();
      }
      return true;
    case Key::kEnter:
      if (!shown_.empty()) {
        open_ = false;
        std::string key = items_[shown_[selected_]].key;
        // Moved out first: the choice may open the picker again (/settings
        // opens the setting's own picker), which replaces on_choose_.
        auto choose = std::move(on_choose_);
        if (choose) choose(key);
      }
      return true;
    case Key::kChar:
      if (e.mods & kCtrl) {
        if (e.codepoint == 'c' || e.codepoint == 'g') open_ = false;
        if (e.codepoint == 'p') move(-1);
        if (e.codepoint == 'n') move(1);
        if (e.codepoint == 'b' && on_ctrl_b_ && !shown_.empty()) {
          open_ = false;
          auto choose = std::move(on_ctrl_b_);
          choose(items_[shown_[selected_]].key);
        }
        return true;
      }
      if (e.codepoint >= 0x20) {
        AppendUtf8(e.codepoint, &filter_);
        Refilter();
      }
      return true;
    default: return true;
  }
}

std::vector<Line> Picker::Render() const {
  std::vector<Line> out;
  if (!open_) return out;
  Line head;
  head.Add(title_, kTitleStyle);
  head.Add(filter_.empty() ? "  (type to filter)" : "  filter: " + Sanitize(filter_), kDimStyle);
  out.push_back(std::move(head));
  if (shown_.empty()) out.push_back(Line{}.Add("  nothing matches", kDimStyle));
  size_t first = selected_ >= kRows ? selected_ - kRows + 1 : 0;
  for (size_t i = first; i < shown_.size() && i < first + kRows; ++i) {
    const Item& it = items_[shown_[i]];
    Line l;
    bool sel = i == selected_;
    l.Add(sel ? " \u203a " : "   ");
    l.Add(Sanitize(it.label), sel ? kSelectedStyle : Style{});
    if (!it.detail.empty()) l.Add("  " + Sanitize(it.detail), kDimStyle);
    if (filter_.empty() && folded_[shown_[i]])
      l.Add("  \u25b8 " + std::to_string(it.descendants) + " folded (Right unfolds)", kDimStyle);
    out.push_back(std::move(l));
  }
  out.push_back(Line{}.Add("  " + std::to_string(shown_.size()) + " of " + std::to_string(items_.size()) +
                               "  Enter chooses, " + (on_ctrl_b_ ? "Ctrl+B " + ctrl_b_what_ + ", " : std::string()) +
                               "Esc closes",
                           kDimStyle));
  return out;
}

}  // namespace sepp::front::tui

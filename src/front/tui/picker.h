// Picker: a list to choose one item from, in the live region (/resume's
// sessions, /tree's entries, /model's models): typing filters (fuzzy),
// Up/Down and PageUp/PageDown move, Enter chooses, Esc closes. Items keep
// their order; the filter hides, it does not sort (a tree stays a tree).
// Items that head a subtree (/tree) fold with Left and unfold with Right
// while no filter is typed (a search shows every match).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "front/tui/key_decoder.h"
#include "front/tui/text.h"

namespace sepp::front::tui {

class Picker {
 public:
  struct Item {
    std::string key;     // handed to on_choose
    std::string label;   // shown and filtered on
    std::string detail;  // shown dim after the label
    size_t descendants = 0;  // the items right after this one in its subtree (0: none to fold)
  };
  static constexpr size_t kRows = 10;

  // selected: the key to start on (e.g. the current leaf), "" for the first.
  void Open(std::string title, std::vector<Item> items, std::function<void(const std::string&)> on_choose,
            const std::string& selected = "");
  // A second way to choose, on Ctrl+B (the running calls: send to the
  // background), named in the footer as "Ctrl+B <what>". Until the next Open().
  void SetCtrlBChoice(std::string what, std::function<void(const std::string&)> on_choose) {
    ctrl_b_what_ = std::move(what);
    on_ctrl_b_ = std::move(on_choose);
  }
  void Close() { open_ = false; }
  bool open() const { return open_; }

  // A key while open; false when the picker did not use it.
  bool Handle(const InputEvent& e);
  std::vector<Line> Render() const;

 private:
  // Keeps the selection on the item it was on when that is still shown.
  void Refilter(bool keep_selection = false);

  bool open_ = false;
  std::string title_;
  std::vector<Item> items_;
  std::vector<size_t> shown_;  // indexes into items_ that match the filter
  size_t selected_ = 0;        // index into shown_
  std::string filter_;
  std::vector<bool> folded_;  // per item
  std::function<void(const std::string&)> on_choose_;
  std::string ctrl_b_what_;
  std::function<void(const std::string&)> on_ctrl_b_;
};

}  // namespace sepp::front::tui

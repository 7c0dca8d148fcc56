// FramePacer: when the TUI's loop draws a frame. Something the user did (a
// key, a resize) draws at once: typing never waits. The runtime's events
// (a streamed answer's pieces, tool output) draw at most once per frame
// interval: the pieces that arrive within one interval go out as one frame,
// which costs one way from the caret to the stream and back instead of one
// per piece. A deadline exists only while a frame is pending, so an idle UI
// sleeps in poll() without a timeout (no wake-ups).
//
// It only decides; the loop (tui_mode.cc) reads the clock, polls and
// draws, and bench/tui drives it with a simulated clock.
#pragma once
#include <chrono>

namespace sepp::front::tui {

class FramePacer {
 public:
  using Clock = std::chrono::steady_clock;
  // 16 ms: a frame per refresh of a 60 Hz display at most.
  static constexpr std::chrono::milliseconds kInterval{16};

  explicit FramePacer(std::chrono::milliseconds interval = kInterval) : interval_(interval) {}

  // The user did something: the next frame is due at once.
  void Urgent() { pending_ = urgent_ = true; }
  // The runtime's events changed the view: a frame is due once the
  // interval since the last one has passed.
  void Changed() { pending_ = true; }
  bool Due(Clock::time_point now) const { return pending_ && (urgent_ || now - last_ >= interval_); }
  // A frame was drawn at now.
  void Drawn(Clock::time_point now) {
    last_ = now;
    pending_ = urgent_ = false;
  }
  bool pending() const { return pending_; }
  // When the pending frame is due (meaningful only while pending()).
  Clock::time_point deadline() const { return urgent_ ? Clock::time_point{} : last_ + interval_; }

 private:
  std::chrono::milliseconds interval_;
  Clock::time_point last_{};
  bool pending_ = true;  // the first frame
  bool urgent_ = true;
};

}  // namespace sepp::front::tui

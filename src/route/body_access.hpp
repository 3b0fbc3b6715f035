#pragma once
// How the connection drives a streaming route's body_sink: it installs the
// wake-up that body_sink::resume() calls (from any thread), and takes it away
// when it is done with the sink, so a late resume() does nothing.

#include <stet/body.hpp>

#include <functional>

namespace stet::detail {

struct body_sink_access {
  /// `wake` runs on the resuming thread and must only hand over to the
  /// connection's own thread (e.g. a post to its worker).
  static void attach(body_sink& sink, std::function<void()> wake);
  /// Later resume() calls do nothing.
  static void detach(body_sink& sink) noexcept;
};

}  // namespace stet::detail

#pragma once
// What a connection offers a streamed answer fed from elsewhere (events that
// arrive from other threads): instead of being asked for its next piece again
// at once, the producer may park the connection until it is woken. The
// connection installs itself for the duration of each producer call (a
// thread-local, so that stet::stream_writer, a public type, stays as it is).

#include <chrono>
#include <functional>

namespace stet::detail {

class stream_parking {
 public:
  /// The producer has nothing now (it returns true with nothing written):
  /// the connection waits, without asking again, until the returned function
  /// is called (from any thread; once, later calls do nothing) or `at_most`
  /// passes (0: no limit). Empty when the connection cannot wait.
  virtual std::function<void()> park(std::chrono::milliseconds at_most) = 0;
  /// The server is stopping: a long-lived stream should end now.
  virtual bool stopping() const noexcept = 0;

 protected:
  ~stream_parking() = default;
};

/// The connection whose producer runs on this thread now, or null.
stream_parking* current_stream_parking() noexcept;

/// Installs `p` for one producer call.
class scoped_stream_parking {
 public:
  explicit scoped_stream_parking(stream_parking* p) noexcept;
  ~scoped_stream_parking();
  scoped_stream_parking(const scoped_stream_parking&) = delete;
  scoped_stream_parking& operator=(const scoped_stream_parking&) = delete;

 private:
  stream_parking* outer_;
};

}  // namespace stet::detail

#pragma once
// Why a background refresh never runs a route's handler after the route is
// gone: a refresh job holds the route's gate (shared) and a plain pointer to
// the route, never the route itself, so the last reference to a route (and to
// its cache) always goes with its router, on the router's thread, not on the
// refresh thread. A job enters the gate before it touches the route; the
// route's destructor closes the gate, which waits for a job inside and turns
// away every later one.

#include <condition_variable>
#include <mutex>

namespace stet::detail {

class refresh_gate {
 public:
  refresh_gate() = default;
  refresh_gate(const refresh_gate&) = delete;
  refresh_gate& operator=(const refresh_gate&) = delete;

  /// A job inside the gate while it is alive (when entered()).
  class pass {
   public:
    explicit pass(refresh_gate& g) noexcept;
    ~pass();
    pass(const pass&) = delete;
    pass& operator=(const pass&) = delete;
    /// False: the route is gone; the job must not touch it.
    bool entered() const noexcept { return gate_ != nullptr; }

   private:
    refresh_gate* gate_;
  };

  /// From the route's destructor: no job enters after this returns, and the
  /// one inside (if any) has left. A handler must not destroy its own route.
  void close() noexcept;

 private:
  std::mutex mutex_;
  std::condition_variable left_;
  bool open_ = true;  // guarded by mutex_
  int inside_ = 0;    // guarded by mutex_
};

}  // namespace stet::detail

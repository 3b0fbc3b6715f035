#include "cache/refresh_gate.hpp"

namespace stet::detail {

refresh_gate::pass::pass(refresh_gate& g) noexcept : gate_(&g) {
  const std::lock_guard lock(g.mutex_);
  if (g.open_) {
    ++g.inside_;
  } else {
    gate_ = nullptr;
  }
}

refresh_gate::pass::~pass() {
  if (gate_ == nullptr) return;
  const std::lock_guard lock(gate_->mutex_);
  if (--gate_->inside_ == 0) gate_->left_.notify_all();
}

void refresh_gate::close() noexcept {
  std::unique_lock lock(mutex_);
  open_ = false;
  left_.wait(lock, [this] { return inside_ == 0; });
}

}  // namespace stet::detail

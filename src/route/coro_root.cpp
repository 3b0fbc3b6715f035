#include "route/coro_root.hpp"

#include <stet/detail/route_handler.hpp>

#include "coro/frame_pool.hpp"
#include "response/response_access.hpp"
#include "route/coro_body.hpp"

#include <exception>
#include <memory>
#include <stdexcept>

namespace stet::detail {
namespace {

struct destroy_on_exit {
  std::coroutine_handle<> frame;
  ~destroy_on_exit() { frame.destroy(); }
};

coro_pending& slot_of(const std::shared_ptr<pending_response>& pending) noexcept {
  return static_cast<coro_pending&>(*pending);
}

}  // namespace

// Throws what the task threw when it completed without suspending.
response start_root(std::coroutine_handle<task_promise<response>> frame) {
  task_promise<response>& promise = frame.promise();
  task_root& root = promise.handler_root_;
  root.frame = frame;
  promise.root_ = &root;
  frame.resume();
  if (!frame.done()) {
    // Suspended: from here on it is answered like an asynchronous handler.
    // The slot comes from the frame pool too, so a suspension allocates nothing.
    // body_stream() made it already, with the body's sink in it: the body streams to the task.
    if (!root.pending) root.pending = std::allocate_shared<coro_pending>(frame_allocator<coro_pending>{}, root);
    if (root.pending->body) return stream_into_task(root.pending);
    return response_access::make_pending(root.pending);
  }
  const destroy_on_exit done{frame};
  if (promise.error_) std::rethrow_exception(promise.error_);
  return std::move(*promise.value_);
}

std::coroutine_handle<> finish_root(std::coroutine_handle<task_promise<response>> frame) noexcept {
  task_promise<response>& promise = frame.promise();
  // Not suspended yet (a slot body_stream() made still holds its sink): start_root() takes the answer.
  if (!promise.handler_root_.pending || promise.handler_root_.pending->body) return std::noop_coroutine();
  const std::shared_ptr<pending_response> pending = std::move(promise.handler_root_.pending);
  slot_of(pending).detach();
  if (promise.error_) {
    pending->fail(promise.error_);
  } else if (response_access::pending(*promise.value_) != nullptr) {
    // read_body() decides how the body is read, which the connection did when
    // the handler first suspended (its body is being discarded): too late.
    pending->fail(std::make_exception_ptr(
        std::logic_error("a coroutine handler returned read_body() after suspending; call it before any co_await")));
  } else {
    pending->complete(std::move(*promise.value_));
  }
  // A coroutine may destroy its own frame once suspended, as it is here.
  frame.destroy();
  return std::noop_coroutine();
}

void destroy_root(task_root& root) noexcept {
  const std::shared_ptr<pending_response> pending = std::move(root.pending);
  if (pending) slot_of(pending).detach();
  root.frame.destroy();  // `root` lives in it
  if (pending) pending->drop();
}

void resume_or_destroy(task_root& root, std::coroutine_handle<> waiter) noexcept {
  root.at = nullptr;
  if (root.cancelled) {
    destroy_root(root);
    return;
  }
  waiter.resume();
}

void coro_pending::on_abandoned() noexcept {
  task_root* root = root_;
  if (root == nullptr || root->cancelled) return;
  root->cancelled = true;
  if (root->at != nullptr && root->at->cancel()) destroy_root(*root);
}

}  // namespace stet::detail

#include "route/coro_body.hpp"

#include "coro/frame_pool.hpp"
#include "response/response_access.hpp"
#include "route/coro_root.hpp"

#include <stdexcept>
#include <utility>

namespace stet {
namespace detail {

coro_body::~coro_body() {
  if (reader_ != nullptr) {
    reader_->error_ = error_;
    reader_->body_ = nullptr;
    reader_ = nullptr;
  }
  // Gone without on_end() or on_abort(): a task still waiting for a piece
  // would wait forever, so it is cancelled like an abandoned handler.
  if (waiter_ && answer_) {
    waiter_ = {};
    answer_->abandon();
  }
}

// The piece goes straight to a task waiting in next(), which runs until it
// suspends again: back in next() (the piece is done with: read on), elsewhere
// (it holds the piece: pause), or done (answer, the rest is discarded).
body_flow coro_body::on_data(std::string_view piece) {
  if (reader_ == nullptr) return body_flow::answer;
  piece_ = piece;
  has_piece_ = true;
  if (waiter_) {
    wake_reader();
    if (waiter_) return body_flow::more;
    if (reader_ == nullptr) return body_flow::answer;
  }
  holding_ = true;
  return body_flow::pause;
}

response coro_body::on_end() {
  ended_ = true;
  if (waiter_) wake_reader();
  return response_access::make_pending(answer_);
}

// The connection answers (or is closed) itself: a task waiting in next()
// learns why, and whatever it does next is not waited for.
void coro_body::on_abort(std::error_code why) noexcept {
  ended_ = true;
  error_ = why;
  has_piece_ = false;
  holding_ = false;
  const std::shared_ptr<pending_response> answer = answer_;
  if (waiter_) wake_reader();
  if (answer) answer->abandon();
}

void coro_body::wait(suspension& at, std::coroutine_handle<> waiter, task_root& root) noexcept {
  waiter_ = waiter;
  root_ = &root;
  root.at = &at;
  // The task is done with the piece it held across other co_awaits.
  if (std::exchange(holding_, false)) resume();
}

std::optional<std::string_view> coro_body::take() noexcept {
  if (!std::exchange(has_piece_, false)) return std::nullopt;
  return piece_;
}

// The handler let go of the body: a paused connection goes on, to discard the
// rest (the next piece answers) or to find its end.
void coro_body::reader_gone() noexcept {
  reader_ = nullptr;
  waiter_ = {};
  has_piece_ = false;
  if (std::exchange(holding_, false)) resume();
}

void coro_body::wake_reader() noexcept { resume_or_destroy(*root_, std::exchange(waiter_, {})); }

response stream_into_task(const std::shared_ptr<pending_response>& answer) {
  std::shared_ptr<pending_response> state = std::allocate_shared<pending_response>(frame_allocator<pending_response>{});
  state->body = std::move(answer->body);
  state->handler_slot = answer;
  static_cast<coro_body&>(*state->body).adopt(answer);
  return response_access::make_pending(std::move(state));
}

// The answer slot comes now, with the body in it, so that start_root() knows
// at the handler's first suspension that the body is wanted.
coro_body* body_stream_awaiter::open(task_root& root) {
  if (root.pending) return nullptr;  // already suspended once, or asked twice
  std::shared_ptr<pending_response> answer = std::allocate_shared<coro_pending>(frame_allocator<coro_pending>{}, root);
  auto body = std::make_unique<coro_body>();
  coro_body* opened = body.get();
  answer->body = std::move(body);
  root.pending = std::move(answer);
  return opened;
}

bool body_piece_awaiter::await_ready() noexcept {
  const coro_body* body = reader_->body_;
  return body == nullptr || body->ready();
}

void body_piece_awaiter::wait(std::coroutine_handle<> waiter, task_root& root) noexcept {
  reader_->body_->wait(*this, waiter, root);
}

std::optional<std::string_view> body_piece_awaiter::await_resume() noexcept {
  coro_body* body = reader_->body_;
  if (body == nullptr) return std::nullopt;
  return body->take();
}

bool body_piece_awaiter::cancel() noexcept {
  if (coro_body* body = reader_->body_) body->unwait();
  return true;
}

}  // namespace detail

body_reader detail::body_stream_awaiter::await_resume() {
  if (body_ == nullptr) {
    throw std::logic_error(
        "stet::body_stream() awaited after the handler suspended, or twice: await it once, before any other co_await");
  }
  return body_reader(body_);
}

body_reader::body_reader(detail::coro_body* body) noexcept : body_(body) { body_->reader_moved(this); }

body_reader::body_reader(body_reader&& other) noexcept
    : body_(std::exchange(other.body_, nullptr)), error_(other.error_) {
  if (body_ != nullptr) body_->reader_moved(this);
}

body_reader::~body_reader() {
  if (body_ != nullptr) body_->reader_gone();
}

std::error_code body_reader::error() const noexcept { return body_ != nullptr ? body_->error() : error_; }

}  // namespace stet

#pragma once
// A coroutine handler's streamed body (stet::body_stream()): a body_sink that
// the connection feeds like any read_body() sink. It hands each piece to the
// task suspended in body_reader::next(), and pauses the connection while the
// task is elsewhere (an offload, a sleep) so that the piece stays put.

#include <stet/body.hpp>
#include <stet/body_stream.hpp>
#include <stet/response.hpp>

#include "route/pending_response.hpp"

#include <coroutine>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>

namespace stet::detail {

class coro_body final : public body_sink {
 public:
  // One per streamed request, from the worker's frame pool.
  static void* operator new(std::size_t bytes) { return allocate_frame(bytes); }
  static void operator delete(void* block, std::size_t bytes) noexcept { free_frame(block, bytes); }

  coro_body() noexcept = default;
  ~coro_body() override;

  // The connection's side (body_sink).
  body_flow on_data(std::string_view piece) override;
  response on_end() override;
  void on_abort(std::error_code why) noexcept override;

  /// The handler's answer slot, once the handler suspended: on_end() hands it
  /// to the connection, on_abort() abandons it.
  void adopt(std::shared_ptr<pending_response> answer) noexcept { answer_ = std::move(answer); }

  // The reader's side, from its task.
  bool ready() const noexcept { return has_piece_ || ended_; }
  void wait(suspension& at, std::coroutine_handle<> waiter, task_root& root) noexcept;
  void unwait() noexcept { waiter_ = {}; }
  std::optional<std::string_view> take() noexcept;
  std::error_code error() const noexcept { return error_; }
  void reader_moved(body_reader* reader) noexcept { reader_ = reader; }
  void reader_gone() noexcept;

 private:
  void wake_reader() noexcept;

  body_reader* reader_ = nullptr;             // null once the handler let go of the body
  std::shared_ptr<pending_response> answer_;  // the handler's answer slot (coro_pending)
  std::coroutine_handle<> waiter_;            // the task suspended in next(), if it is
  task_root* root_ = nullptr;
  std::string_view piece_;
  bool has_piece_ = false;  // piece_ is there, not yet taken by next()
  bool holding_ = false;    // on_data() said pause: nothing is read until resume()
  bool ended_ = false;      // on_end() or on_abort() came
  std::error_code error_;
};

/// For start_root(): the handler suspended for the first time and its answer
/// slot carries the coro_body that body_stream() opened (in `body`): the
/// response that makes the connection stream the body into it.
response stream_into_task(const std::shared_ptr<pending_response>& answer);

}  // namespace stet::detail

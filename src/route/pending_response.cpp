#include "route/pending_response.hpp"

#include "response/error_pages.hpp"

#include <stet/offload.hpp>
#include <stet/responder.hpp>

#include <exception>
#include <string>
#include <utility>

namespace stet {
namespace detail {

bool pending_response::settle_locked(std::unique_lock<std::mutex>& lock, response r) {
  if (settled_) return false;
  settled_ = true;
  if (abandoned()) {
    // The waiter is gone; what it left to keep alive may go once we are out of the lock.
    std::shared_ptr<void> release = std::move(keep_);
    lock.unlock();
    return false;
  }
  answer_.emplace(std::move(r));
  const waker wake = std::exchange(wake_, nullptr);
  std::shared_ptr<void> waiter = std::move(waiter_);
  lock.unlock();
  if (wake != nullptr) wake(std::move(waiter));
  return true;
}

bool pending_response::complete(response r) {
  std::unique_lock lock(mutex_);
  return settle_locked(lock, std::move(r));
}

bool pending_response::fail(std::exception_ptr e) {
  std::unique_lock lock(mutex_);
  if (settled_) return false;
  failure_ = std::move(e);
  return settle_locked(lock, response(status::internal_server_error));  // finish_pending() renders it
}

void pending_response::drop() {
  std::unique_lock lock(mutex_);
  if (settled_) return;
  dropped_ = true;
  settle_locked(lock, response(status::internal_server_error));  // finish_pending() renders it
}

bool pending_response::on_ready(waker wake, std::shared_ptr<void> waiter) {
  const std::lock_guard lock(mutex_);
  if (answer_) return false;
  wake_ = wake;
  waiter_ = std::move(waiter);
  return true;
}

bool pending_response::ready() {
  const std::lock_guard lock(mutex_);
  return answer_.has_value();
}

response pending_response::take() {
  const std::lock_guard lock(mutex_);
  response r = std::move(*answer_);
  answer_.reset();
  return r;
}

std::optional<response> pending_response::take_if_ready() {
  const std::lock_guard lock(mutex_);
  if (!answer_ || dropped_ || failure_) return std::nullopt;  // reported where the reporter is known
  std::optional<response> r = std::move(answer_);
  answer_.reset();
  return r;
}

void pending_response::abandon() {
  std::shared_ptr<void> gone;  // released after the lock
  {
    const std::lock_guard lock(mutex_);
    abandoned_.store(true, std::memory_order_release);
    wake_ = nullptr;
    gone = std::move(waiter_);
  }
  on_abandoned();
}

void pending_response::keep_until_settled(std::shared_ptr<void> keep) {
  std::unique_lock lock(mutex_);
  if (settled_) {
    lock.unlock();
    return;  // `keep` goes here, on the caller's thread
  }
  keep_ = std::move(keep);
}

response failure_answer(const std::exception_ptr& e, const error_reporter* report, const request& req) {
  try {
    std::rethrow_exception(e);
  } catch (const offload_rejected& rejected) {
    // Overload, not a fault: nothing to report, and the client may try again.
    response r = error_page(status::service_unavailable, req);
    r.set_header("Retry-After", std::to_string(rejected.retry_after().count()));
    return r;
  } catch (const std::exception& failed) {
    report_failure(report, req.path(), failed.what());
  } catch (...) {
    report_failure(report, req.path(), "unknown exception");
  }
  return error_page(status::internal_server_error, req);
}

response finish_pending(pending_response& state, request& req) {
  response r = state.take();
  if (state.dropped()) {
    report_failure(state.report.get(), req.path(), "asynchronous handler dropped its responder without sending");
    r = error_page(status::internal_server_error, req);
  } else if (state.failure()) {
    r = failure_answer(state.failure(), state.report.get(), req);
  }
  if (!state.compress) r.no_compression();
  try {
    for (std::size_t i = state.afters.size(); i-- > 0;) {
      if (state.afters[i]->after) state.afters[i]->after(req, r);
    }
  } catch (const std::exception& e) {
    report_failure(state.report.get(), req.path(), e.what());
    return error_page(status::internal_server_error, req);
  } catch (...) {
    report_failure(state.report.get(), req.path(), "unknown exception");
    return error_page(status::internal_server_error, req);
  }
  return r;
}

std::shared_ptr<pending_response> new_pending() { return std::make_shared<pending_response>(); }

response settle(std::shared_ptr<pending_response> state) {
  if (std::optional<response> answer = state->take_if_ready()) return std::move(*answer);
  return response_access::make_pending(std::move(state));
}

void report_failure(const error_reporter* report, std::string_view /*path*/, std::string_view what) noexcept {
  try {
    if (report != nullptr && *report) (*report)(what);
  } catch (...) {
    // A reporter that throws has nowhere left to report to.
  }
}

}  // namespace detail

responder::responder(std::shared_ptr<detail::pending_response> state) noexcept : state_(std::move(state)) {}

responder& responder::operator=(responder&& other) noexcept {
  if (this != &other) {
    if (state_) state_->drop();
    state_ = std::move(other.state_);
  }
  return *this;
}

responder::~responder() {
  if (state_) state_->drop();
}

bool responder::send(response r) {
  if (!state_) return false;
  const bool taken = state_->complete(std::move(r));
  state_.reset();
  return taken;
}

bool responder::abandoned() const noexcept { return !state_ || state_->abandoned(); }

}  // namespace stet

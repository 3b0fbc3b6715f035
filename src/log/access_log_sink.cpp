#include "log/access_log_sink.hpp"

#include "log/sigpipe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace stet::detail {

access_log_sink::access_log_sink(const std::string& path) : path_(path) {
  if (path.empty()) {
    fd_ = STDOUT_FILENO;
  } else {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    owns_fd_ = fd_ >= 0;
    if (fd_ < 0) open_error_ = std::error_code(errno, std::generic_category());
  }
  thread_ = std::thread([this] {
    block_sigpipe_in_this_thread();  // a log going to a pipe whose reader quit
    run();
  });
}

access_log_sink::~access_log_sink() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (owns_fd_) ::close(fd_);
  if (reopened_fd_ >= 0) ::close(reopened_fd_);
}

std::error_code access_log_sink::reopen() {
  if (!owns_fd_) return {};
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return {errno, std::generic_category()};
  {
    std::lock_guard lock(mutex_);
    if (reopened_fd_ >= 0) ::close(reopened_fd_);
    reopened_fd_ = fd;
  }
  wake_.notify_one();
  return {};
}

void access_log_sink::submit(std::string&& batch) {
  if (batch.empty()) return;
  {
    std::lock_guard lock(mutex_);
    if (queued_bytes_ + batch.size() > max_queued_bytes) {
      ++dropped_;
      return;
    }
    queued_bytes_ += batch.size();
    queue_.push_back(std::move(batch));
  }
  wake_.notify_one();
}

std::uint64_t access_log_sink::dropped_batches() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void access_log_sink::run() {
  std::vector<std::string> writing;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty() || reopened_fd_ >= 0; });
      // Only this thread writes to fd_, so the old file is closed between two batches.
      if (reopened_fd_ >= 0) {
        ::close(fd_);
        fd_ = std::exchange(reopened_fd_, -1);
      }
      if (queue_.empty() && stopping_) return;
      writing.swap(queue_);
      queued_bytes_ = 0;
    }
    for (const std::string& batch : writing) {
      std::size_t done = 0;
      while (done < batch.size() && fd_ >= 0) {
        const ssize_t n = ::write(fd_, batch.data() + done, batch.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // a log that cannot be written must not stop the server
        done += static_cast<std::size_t>(n);
      }
    }
    writing.clear();
  }
}

}  // namespace stet::detail

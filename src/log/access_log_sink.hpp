#pragma once
// The one thread that writes access-log batches, so that workers never block on
// a slow disk or a full pipe. Bounded: when the writer falls behind by more than
// max_queued_bytes, further batches are dropped and counted.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace stet::detail {

class access_log_sink {
 public:
  static constexpr std::size_t max_queued_bytes = std::size_t{8} * 1024 * 1024;

  /// Opens `path` for appending (empty: standard output) and starts the writer.
  explicit access_log_sink(const std::string& path);
  ~access_log_sink();  ///< writes what is queued, then stops
  access_log_sink(const access_log_sink&) = delete;
  access_log_sink& operator=(const access_log_sink&) = delete;

  /// Why the log could not be opened, if it could not.
  std::error_code open_error() const noexcept { return open_error_; }
  /// Opens the path again (logrotate moved the file away); the writer switches
  /// to it before its next batch and closes the old one. Standard output: a
  /// no-op. On failure the old file is kept.
  std::error_code reopen();
  /// Queues a batch of lines; takes the string's buffer.
  void submit(std::string&& batch);
  std::uint64_t dropped_batches() const;

 private:
  void run();

  int fd_ = -1;
  bool owns_fd_ = false;
  std::string path_;
  int reopened_fd_ = -1;  // guarded by mutex_: the writer takes it before its next batch
  std::error_code open_error_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::string> queue_;
  std::size_t queued_bytes_ = 0;
  std::uint64_t dropped_ = 0;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace stet::detail

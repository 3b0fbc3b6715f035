#pragma once
// A worker's access log: sampling first, then formatting into the worker's own
// buffer; batches go to the shared writer thread (access_log_sink).

#include <stet/access_log.hpp>

#include "log/access_log_sink.hpp"

#include <array>
#include <ctime>
#include <string>
#include <string_view>

namespace stet::detail {

/// What one log line says about one exchange.
struct access_record {
  std::string_view remote;
  std::string_view method;  ///< "-" when the request line was not understood
  std::string_view target;
  unsigned version = 11;
  unsigned status = 0;
  std::uint64_t bytes = 0;  ///< body bytes sent
  std::string_view referer;
  std::string_view user_agent;
  std::string_view tls_protocol;  ///< empty over plain HTTP
  std::string_view tls_cipher;
};

class access_log {
 public:
  static constexpr std::size_t batch_bytes = std::size_t{32} * 1024;

  /// `sink` null: logging is off and every call is a no-op.
  access_log(access_log_sink* sink, const access_log_options& options) noexcept;

  bool enabled() const noexcept { return sink_ != nullptr; }
  /// The sampling decision, made before anything is formatted.
  bool wants(unsigned status) noexcept {
    if (sink_ == nullptr) return false;
    if (status >= 500 || sample_one_in_ <= 1) return true;
    return ++sampled_ % sample_one_in_ == 0;
  }
  /// Formats one line into the batch; hands the batch over when it is full.
  void append(const access_record& r);
  /// Hands over whatever is batched.
  void flush();
  bool pending() const noexcept { return !batch_.empty(); }

 private:
  std::string_view clf_time();
  void append_escaped(std::string_view text, bool json);
  void append_tls(const access_record& r);

  access_log_sink* sink_;
  access_log_format format_;
  unsigned sample_one_in_;
  bool tls_fields_;
  std::uint64_t sampled_ = 0;
  std::string batch_;
  std::time_t time_second_ = -1;
  std::array<char, 32> time_text_{};  // "30/Nov/2026:04:30:23 +0000" or ISO 8601 for JSON
  std::size_t time_length_ = 0;
};

}  // namespace stet::detail

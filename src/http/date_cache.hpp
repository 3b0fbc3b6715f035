#pragma once
// The Date header value, formatted at most once a second. One per worker,
// beside the writer that is its only reader: no locks, no strftime per response.

#include <array>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <string_view>

namespace stet::detail {

/// Formats `t` as an RFC 9110 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
std::string_view format_http_date(std::time_t t, std::array<char, 29>& out) noexcept;

class date_cache {
 public:
  /// The current IMF-fixdate. Keyed on the wall-clock second (coarse clock);
  /// reformatted only when that second changes.
  std::string_view now() noexcept;
  /// How many times the string was reformatted (a cache miss).
  std::uint64_t refreshes() const noexcept { return refreshes_; }
  /// Also counts refreshes into `counter` (read by the metrics on another thread).
  void count_refreshes_in(std::atomic<std::uint64_t>* counter) noexcept { shared_counter_ = counter; }

 private:
  std::time_t second_ = -1;
  std::uint64_t refreshes_ = 0;
  std::atomic<std::uint64_t>* shared_counter_ = nullptr;
  std::array<char, 29> text_{};
};

}  // namespace stet::detail

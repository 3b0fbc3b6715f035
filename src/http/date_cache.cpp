#include "http/date_cache.hpp"

#include <time.h>  // NOLINT(modernize-deprecated-headers): POSIX clock_gettime, gmtime_r

namespace stet::detail {
namespace {

constexpr std::string_view day_names = "SunMonTueWedThuFriSat";
constexpr std::string_view month_names = "JanFebMarAprMayJunJulAugSepOctNovDec";

void put2(char* out, int value) noexcept {
  out[0] = static_cast<char>('0' + value / 10);
  out[1] = static_cast<char>('0' + value % 10);
}

}  // namespace

std::string_view format_http_date(std::time_t t, std::array<char, 29>& out) noexcept {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char* p = out.data();
  day_names.copy(p, 3, static_cast<std::size_t>(tm.tm_wday) * 3);
  p[3] = ',';
  p[4] = ' ';
  put2(p + 5, tm.tm_mday);
  p[7] = ' ';
  month_names.copy(p + 8, 3, static_cast<std::size_t>(tm.tm_mon) * 3);
  p[11] = ' ';
  const int year = tm.tm_year + 1900;
  put2(p + 12, year / 100);
  put2(p + 14, year % 100);
  p[16] = ' ';
  put2(p + 17, tm.tm_hour);
  p[19] = ':';
  put2(p + 20, tm.tm_min);
  p[22] = ':';
  put2(p + 23, tm.tm_sec);
  std::string_view(" GMT").copy(p + 25, 4);
  return {out.data(), out.size()};
}

std::string_view date_cache::now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  if (ts.tv_sec != second_) {
    second_ = ts.tv_sec;
    ++refreshes_;
    if (shared_counter_ != nullptr) shared_counter_->store(refreshes_, std::memory_order_relaxed);
    format_http_date(second_, text_);
  }
  return {text_.data(), text_.size()};
}

}  // namespace stet::detail

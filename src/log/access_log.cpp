#include "log/access_log.hpp"

#include <fmt/format.h>

#include <time.h>  // NOLINT(modernize-deprecated-headers): POSIX clock_gettime, gmtime_r

namespace stet::detail {

access_log::access_log(access_log_sink* sink, const access_log_options& options) noexcept
    : sink_(sink), format_(options.format), sample_one_in_(options.sample_one_in), tls_fields_(options.tls_fields) {}

// Formatted once per second, like the Date header.
std::string_view access_log::clf_time() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  if (ts.tv_sec != time_second_) {
    time_second_ = ts.tv_sec;
    std::tm tm{};
    gmtime_r(&time_second_, &tm);
    const char* pattern = format_ == access_log_format::json ? "%Y-%m-%dT%H:%M:%SZ" : "%d/%b/%Y:%H:%M:%S +0000";
    time_length_ = std::strftime(time_text_.data(), time_text_.size(), pattern, &tm);
  }
  return {time_text_.data(), time_length_};
}

// Client-controlled text must not forge lines or break the format: quotes,
// backslashes and control bytes are escaped (\xHH in text logs, \u00HH in JSON).
void access_log::append_escaped(std::string_view text, bool json) {
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      batch_ += '\\';
      batch_ += ch;
    } else if (c < 0x20 || c == 0x7f || (!json && c >= 0x80)) {
      if (json) {
        fmt::format_to(std::back_inserter(batch_), "\\u{:04x}", c);
      } else {
        fmt::format_to(std::back_inserter(batch_), "\\x{:02X}", c);
      }
    } else {
      batch_ += ch;
    }
  }
}

// The names come from OpenSSL's own tables, never from the client: no escaping.
void access_log::append_tls(const access_record& r) {
  if (!tls_fields_) return;
  const bool secure = !r.tls_protocol.empty();
  if (format_ == access_log_format::json) {
    if (secure) {
      fmt::format_to(std::back_inserter(batch_), R"(,"tls_protocol":"{}","tls_cipher":"{}")", r.tls_protocol,
                     r.tls_cipher);
    } else {
      batch_ += R"(,"tls_protocol":null,"tls_cipher":null)";
    }
    return;
  }
  if (secure) {
    fmt::format_to(std::back_inserter(batch_), " {} {}", r.tls_protocol, r.tls_cipher);
  } else {
    batch_ += " - -";
  }
}

void access_log::append(const access_record& r) {
  if (sink_ == nullptr) return;
  const std::string_view version = r.version == 10 ? "HTTP/1.0" : "HTTP/1.1";
  const std::string_view time = clf_time();
  auto out = std::back_inserter(batch_);
  if (format_ == access_log_format::json) {
    fmt::format_to(out, R"({{"time":"{}","remote":"{}","method":")", time, r.remote);
    append_escaped(r.method, true);
    batch_ += R"(","target":")";
    append_escaped(r.target, true);
    fmt::format_to(out, R"(","version":"{}","status":{},"bytes":{},"referer":")", version, r.status, r.bytes);
    append_escaped(r.referer, true);
    batch_ += R"(","user_agent":")";
    append_escaped(r.user_agent, true);
    batch_ += '"';
    append_tls(r);
    batch_ += "}\n";
  } else {
    fmt::format_to(out, "{} - - [{}] \"", r.remote, time);
    append_escaped(r.method, false);
    batch_ += ' ';
    append_escaped(r.target, false);
    fmt::format_to(out, " {}\" {} {}", version, r.status, r.bytes);
    if (format_ == access_log_format::combined) {
      batch_ += " \"";
      append_escaped(r.referer.empty() ? "-" : r.referer, false);
      batch_ += "\" \"";
      append_escaped(r.user_agent.empty() ? "-" : r.user_agent, false);
      batch_ += '"';
    }
    append_tls(r);
    batch_ += '\n';
  }
  if (batch_.size() >= batch_bytes) flush();
}

void access_log::flush() {
  if (sink_ == nullptr || batch_.empty()) return;
  sink_->submit(std::move(batch_));
  batch_ = std::string();
  batch_.reserve(batch_bytes + 1024);
}

}  // namespace stet::detail

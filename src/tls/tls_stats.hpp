#pragma once
// What TLS listeners count: handshakes (full, resumed, failed by reason) and
// how long they took, the protocol and cipher of each connection, session
// tickets and reloads. Every worker writes (relaxed atomic adds: a handshake
// costs tens of microseconds, an add a few nanoseconds); the metrics text
// reads. One per server, shared by its TLS listeners and their contexts.

#include <stet/latency_histogram.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace stet::detail {

/// Why a handshake did not finish.
enum class handshake_failure : std::uint8_t {
  timeout,             ///< tls_options::handshake_timeout passed
  closed,              ///< the client closed (or reset) the connection first
  aborted,             ///< the server closed it first (stop, a connection timeout)
  plain_http,          ///< plain HTTP sent to the TLS port
  version,             ///< no protocol version in common
  cipher,              ///< no cipher suite (or group, or signature) in common
  alpn,                ///< the client offered ALPN protocols, none of them http/1.1
  client_certificate,  ///< mutual TLS: no certificate, or one that does not verify
  refused,             ///< the client sent a fatal alert (e.g. it does not trust our certificate)
  protocol,            ///< anything else the handshake refused (garbage, bad messages)
};
inline constexpr std::size_t handshake_failure_count = 10;
std::string_view to_string(handshake_failure f) noexcept;

/// What happened to a session ticket a client presented, or one we issued.
enum class ticket_event : std::uint8_t {
  issued,   ///< a new ticket sealed with the current key
  resumed,  ///< a ticket sealed with the current key was accepted
  renewed,  ///< a ticket sealed with an older key was accepted (and replaced)
  unknown,  ///< a ticket sealed with a key we no longer have: full handshake
};
inline constexpr std::size_t ticket_event_count = 4;

/// A histogram like latency_histogram, but for many writers.
class shared_histogram {
 public:
  void record(std::chrono::nanoseconds d) noexcept;
  latency_histogram::snapshot read() const noexcept;

 private:
  std::array<std::atomic<std::uint64_t>, latency_histogram::bounds_us.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_ns_{0};
};

class tls_stats {
 public:
  /// A handshake finished; `protocol` and `cipher` are OpenSSL's static names.
  void handshake_done(bool resumed, const char* protocol, const char* cipher, std::chrono::nanoseconds took) noexcept;
  void handshake_failed(handshake_failure why) noexcept;
  void ticket(ticket_event e) noexcept;
  void reload(bool ok) noexcept;

  std::uint64_t handshakes(bool resumed) const noexcept { return (resumed ? resumed_ : full_).load(); }
  std::uint64_t failures(handshake_failure why) const noexcept { return failed_[static_cast<std::size_t>(why)].load(); }
  std::uint64_t tickets(ticket_event e) const noexcept { return tickets_[static_cast<std::size_t>(e)].load(); }

  /// Appends the Prometheus text of every family above to `out`.
  void append_text(std::string& out) const;

 private:
  // One (protocol, cipher) pair: the names are OpenSSL's static strings, so
  // pointers compare. Claimed under mutex_, published by used_.
  struct suite {
    const char* protocol = nullptr;
    const char* cipher = nullptr;
    std::string labels;
    std::atomic<std::uint64_t> count{0};
  };
  static constexpr std::size_t max_suites = 32;
  void count_suite(const char* protocol, const char* cipher) noexcept;

  std::atomic<std::uint64_t> full_{0};
  std::atomic<std::uint64_t> resumed_{0};
  std::array<std::atomic<std::uint64_t>, handshake_failure_count> failed_{};
  std::array<std::atomic<std::uint64_t>, ticket_event_count> tickets_{};
  std::array<std::atomic<std::uint64_t>, 2> reloads_{};  // failed, ok
  shared_histogram handshake_time_;
  std::array<suite, max_suites> suites_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::uint64_t> suites_overflow_{0};
  std::mutex claim_;
};

}  // namespace stet::detail

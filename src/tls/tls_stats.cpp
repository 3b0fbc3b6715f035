#include "tls/tls_stats.hpp"

#include "metrics/exposition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace stet::detail {
namespace {

constexpr auto relaxed = std::memory_order_relaxed;

constexpr std::array<std::string_view, ticket_event_count> ticket_names = {"issued", "resumed", "renewed", "unknown"};

}  // namespace

std::string_view to_string(handshake_failure f) noexcept {
  switch (f) {
    case handshake_failure::timeout: return "timeout";
    case handshake_failure::closed: return "closed";
    case handshake_failure::aborted: return "aborted";
    case handshake_failure::plain_http: return "plain_http";
    case handshake_failure::version: return "version";
    case handshake_failure::cipher: return "cipher";
    case handshake_failure::alpn: return "alpn";
    case handshake_failure::client_certificate: return "client_certificate";
    case handshake_failure::refused: return "refused";
    case handshake_failure::protocol: return "protocol";
  }
  return "protocol";
}

void shared_histogram::record(std::chrono::nanoseconds d) noexcept {
  counts_[latency_histogram::bucket_of(d)].fetch_add(1, relaxed);
  sum_ns_.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(d.count(), 0)), relaxed);
}

latency_histogram::snapshot shared_histogram::read() const noexcept {
  latency_histogram::snapshot s;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    s.counts[i] = counts_[i].load(relaxed);
    s.count += s.counts[i];
  }
  s.sum_seconds = static_cast<double>(sum_ns_.load(relaxed)) / 1e9;
  return s;
}

void tls_stats::handshake_done(bool resumed, const char* protocol, const char* cipher,
                               std::chrono::nanoseconds took) noexcept {
  (resumed ? resumed_ : full_).fetch_add(1, relaxed);
  handshake_time_.record(took);
  count_suite(protocol, cipher);
}

void tls_stats::handshake_failed(handshake_failure why) noexcept {
  failed_[static_cast<std::size_t>(why)].fetch_add(1, relaxed);
}

void tls_stats::ticket(ticket_event e) noexcept { tickets_[static_cast<std::size_t>(e)].fetch_add(1, relaxed); }

void tls_stats::reload(bool ok) noexcept { reloads_[ok ? 1 : 0].fetch_add(1, relaxed); }

// A handful of pairs exist in practice (two protocols, three or four
// ciphers each), so a scan of the claimed slots is the whole lookup.
void tls_stats::count_suite(const char* protocol, const char* cipher) noexcept {
  const auto find = [&](std::size_t used) -> suite* {
    for (std::size_t i = 0; i < used; ++i) {
      if (suites_[i].protocol == protocol && suites_[i].cipher == cipher) return &suites_[i];
    }
    return nullptr;
  };
  if (suite* s = find(used_.load(std::memory_order_acquire))) {
    s->count.fetch_add(1, relaxed);
    return;
  }
  std::lock_guard lock(claim_);
  const std::size_t used = used_.load(relaxed);
  suite* s = find(used);
  if (s == nullptr) {
    if (used == max_suites) {
      suites_overflow_.fetch_add(1, relaxed);
      return;
    }
    s = &suites_[used];
    s->protocol = protocol;
    s->cipher = cipher;
    try {
      s->labels = fmt::format(R"(protocol="{}",cipher="{}")", protocol != nullptr ? protocol : "unknown",
                              cipher != nullptr ? cipher : "unknown");
    } catch (...) {  // out of memory: the pair is counted without its labels
      s->labels.clear();
    }
    used_.store(used + 1, std::memory_order_release);
  }
  s->count.fetch_add(1, relaxed);
}

void tls_stats::append_text(std::string& out) const {
  auto it = std::back_inserter(out);
  append_family(out, "stet_tls_handshakes_total", "TLS handshakes completed, full or resumed.", "counter");
  fmt::format_to(it, "stet_tls_handshakes_total{{kind=\"full\"}} {}\n", full_.load(relaxed));
  fmt::format_to(it, "stet_tls_handshakes_total{{kind=\"resumed\"}} {}\n", resumed_.load(relaxed));
  append_family(out, "stet_tls_handshake_failures_total", "TLS handshakes that did not finish, by reason.", "counter");
  for (std::size_t i = 0; i < handshake_failure_count; ++i) {
    fmt::format_to(it, "stet_tls_handshake_failures_total{{reason=\"{}\"}} {}\n",
                   to_string(static_cast<handshake_failure>(i)), failed_[i].load(relaxed));
  }
  const latency_histogram::snapshot h = handshake_time_.read();
  append_family(out, "stet_tls_handshake_seconds", "From a handshake's first byte to its end.", "histogram");
  append_histogram(out, "stet_tls_handshake_seconds", "", h);
  append_family(out, "stet_tls_connections_total", "TLS handshakes completed, by protocol version and cipher.",
                "counter");
  const std::size_t used = used_.load(std::memory_order_acquire);
  for (std::size_t i = 0; i < used; ++i) {
    if (suites_[i].labels.empty()) continue;
    fmt::format_to(it, "stet_tls_connections_total{{{}}} {}\n", suites_[i].labels, suites_[i].count.load(relaxed));
  }
  if (const std::uint64_t other = suites_overflow_.load(relaxed)) {
    fmt::format_to(it, "stet_tls_connections_total{{protocol=\"other\",cipher=\"other\"}} {}\n", other);
  }
  append_family(out, "stet_tls_tickets_total", "Session tickets issued and presented, by outcome.", "counter");
  for (std::size_t i = 0; i < ticket_event_count; ++i) {
    fmt::format_to(it, "stet_tls_tickets_total{{event=\"{}\"}} {}\n", ticket_names[i], tickets_[i].load(relaxed));
  }
  append_family(out, "stet_tls_reloads_total", "server::reload_tls() calls, by result.", "counter");
  fmt::format_to(it, "stet_tls_reloads_total{{result=\"ok\"}} {}\n", reloads_[1].load(relaxed));
  fmt::format_to(it, "stet_tls_reloads_total{{result=\"failed\"}} {}\n", reloads_[0].load(relaxed));
}

}  // namespace stet::detail

// The TLS side of server_core: contexts built at start, reloads, and what the
// metrics report about them.

#include "metrics/cache_families.hpp"
#include "net/server/server_core.hpp"

#include <stet/tls.hpp>

#include <fmt/format.h>

namespace stet::detail {
namespace {

// The metrics hold the listeners weakly: a metrics object may outlive the server.
void report_tls(stet::metrics& m, std::shared_ptr<tls_stats> stats, std::vector<std::weak_ptr<tls_service>> services) {
  m.add_text_collector([stats](std::string& out) { stats->append_text(out); });
  m.add_collector([services = std::move(services), stats](std::vector<metric_sample>& out) {
    session_cache_counts total;
    for (const std::weak_ptr<tls_service>& each : services) {
      if (const std::shared_ptr<tls_service> service = each.lock()) total += service->session_cache();
    }
    // OpenSSL counts every resumption as a hit of its cache, tickets too; the
    // cache's own hits are the session-ID ones.
    const std::uint64_t by_ticket = stats->tickets(ticket_event::resumed) + stats->tickets(ticket_event::renewed);
    constexpr std::string_view labels = R"(cache="tls_sessions")";
    add_sample(out, cache_hits, labels, total.hits > by_ticket ? total.hits - by_ticket : 0);
    add_sample(out, cache_misses, labels, total.misses + total.timeouts);
    add_sample(out, cache_evictions, labels, total.evictions);
    add_sample(out, cache_entries, labels, total.entries);
  });
}

}  // namespace

config_error server_core::open_tls() {
  tls_.assign(options_.listeners.size(), nullptr);
  std::vector<std::weak_ptr<tls_service>> services;
  for (std::size_t i = 0; i < options_.listeners.size(); ++i) {
    const listen_options& each = options_.listeners[i];
    if (!each.tls) continue;
    if (!tls_stats_) tls_stats_ = std::make_shared<tls_stats>();
    config_error error;
    tls_[i] = tls_service::create(each.tls, tls_stats_, error);
    if (!tls_[i]) {
      tls_.clear();
      return {error.code(), fmt::format("listen on {}: {}", each.address, error.message())};
    }
    services.push_back(tls_[i]);
  }
  if (options_.metrics && !services.empty()) report_tls(*options_.metrics, tls_stats_, std::move(services));
  return {};
}

config_error server_core::reload_tls() {
  std::lock_guard lock(reload_mutex_);
  if (!started_) return {std::make_error_code(std::errc::operation_not_permitted), "the server is not started"};
  std::vector<std::shared_ptr<const tls_context>> next(tls_.size());
  for (std::size_t i = 0; i < tls_.size(); ++i) {
    if (!tls_[i]) continue;
    config_error error;
    next[i] = tls_[i]->rebuild(error);
    if (!next[i]) {
      tls_stats_->reload(false);
      return {error.code(), fmt::format("listen on {}: {}", options_.listeners[i].address, error.message())};
    }
  }
  for (std::size_t i = 0; i < tls_.size(); ++i) {
    if (next[i]) tls_[i]->install(std::move(next[i]));
  }
  if (tls_stats_) tls_stats_->reload(true);
  return {};
}

}  // namespace stet::detail

#include "tls/tls_service.hpp"

#include <utility>

namespace stet::detail {

tls_service::tls_service(std::shared_ptr<const tls_options> options, std::shared_ptr<tls_stats> stats)
    : options_(std::move(options)), stats_(std::move(stats)) {
  if (options_->ticket_key_file.empty()) generated_keys_ = ticket_keys::generated(options_->ticket_key_rotation);
}

std::shared_ptr<tls_service> tls_service::create(std::shared_ptr<const tls_options> options,
                                                 std::shared_ptr<tls_stats> stats, config_error& error) {
  std::shared_ptr<tls_service> service(new tls_service(std::move(options), std::move(stats)));
  std::shared_ptr<const tls_context> first = service->rebuild(error);
  if (!first) return nullptr;
  service->install(std::move(first));
  return service;
}

std::shared_ptr<ticket_keys> tls_service::keys(config_error& error) const {
  if (generated_keys_) return generated_keys_;
  return ticket_keys::from_file(options_->ticket_key_file, error);
}

std::shared_ptr<const tls_context> tls_service::rebuild(config_error& error) const {
  std::shared_ptr<ticket_keys> k = keys(error);
  if (!k) return nullptr;
  return tls_context::build(*options_, std::move(k), stats_, error);
}

void tls_service::install(std::shared_ptr<const tls_context> next) {
  std::shared_ptr<const tls_context> previous;
  {
    const std::lock_guard lock(current_mutex_);
    previous = std::exchange(current_, std::move(next));
  }
  if (!previous) return;
  // Its cache stops growing: no new handshake starts on it any more.
  session_cache_counts last = previous->session_cache();
  last.entries = 0;
  std::lock_guard lock(retired_mutex_);
  retired_ += last;
}

session_cache_counts tls_service::session_cache() const {
  session_cache_counts total = current()->session_cache();
  std::lock_guard lock(retired_mutex_);
  total += retired_;
  return total;
}

}  // namespace stet::detail

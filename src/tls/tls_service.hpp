#pragma once
// One TLS listener's contexts over time: built at start, rebuilt by each
// reload, swapped under a lock. A connection takes the current context when it
// is accepted and keeps it for its life; a reload that fails leaves the
// current one in place. Generated ticket keys belong here, not to a context,
// so tickets survive reloads; a ticket key file is re-read by each reload.

#include "tls/tls_context.hpp"

#include <stet/server.hpp>
#include <stet/tls.hpp>

#include <memory>
#include <mutex>
#include <string>

namespace stet::detail {

class tls_service {
 public:
  /// Builds the first context from `options`; null with `error` set when it cannot be built.
  static std::shared_ptr<tls_service> create(std::shared_ptr<const tls_options> options,
                                             std::shared_ptr<tls_stats> stats, config_error& error);

  /// The context new connections use (thread-safe).
  std::shared_ptr<const tls_context> current() const {
    const std::lock_guard lock(current_mutex_);
    return current_;
  }

  /// Builds a context from the files as they are now, without installing it.
  std::shared_ptr<const tls_context> rebuild(config_error& error) const;
  /// Installs a context rebuild() made; connections already open keep theirs.
  void install(std::shared_ptr<const tls_context> next);

  /// The session cache counters of every context this listener has had.
  session_cache_counts session_cache() const;
  const tls_options& options() const noexcept { return *options_; }

 private:
  tls_service(std::shared_ptr<const tls_options> options, std::shared_ptr<tls_stats> stats);
  std::shared_ptr<ticket_keys> keys(config_error& error) const;

  std::shared_ptr<const tls_options> options_;
  std::shared_ptr<tls_stats> stats_;
  std::shared_ptr<ticket_keys> generated_keys_;  // null when the keys come from a file
  // A mutex, not std::atomic<std::shared_ptr>: it is taken once per accepted
  // connection, and GCC 12's atomic shared_ptr unlocks a load with a relaxed
  // store, which ThreadSanitizer reports as a race with the next reload.
  mutable std::mutex current_mutex_;
  std::shared_ptr<const tls_context> current_;
  mutable std::mutex retired_mutex_;
  session_cache_counts retired_;  // counted by contexts a reload replaced
};

}  // namespace stet::detail

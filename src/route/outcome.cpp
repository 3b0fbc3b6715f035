#include "route/outcome.hpp"

#include "route/pending_response.hpp"

#include <utility>

namespace stet::detail {

// An answer the handler deferred (a slot or a sink) or an upgrade: rare, so out of line.
void dispatch_outcome::classify_deferred() noexcept {
  if (std::shared_ptr<pending_response> pending = response_access::take_pending(answer)) {
    what = pending->body ? kind::body_sink : kind::pending;
    slot = std::move(pending);
    return;
  }
  // An after-hook may have turned the 101 into something else: then it is an
  // answer like any other, and the session is let go.
  if (response_access::upgrades(answer) && answer.status() == status::switching_protocols) {
    what = kind::upgrade;
    upgrade = response_access::take_upgrade(answer);
  }
}

}  // namespace stet::detail

#include "route/outcome.hpp"

#include "response/response_access.hpp"
#include "route/pending_response.hpp"

#include <utility>

namespace stet::detail {

dispatch_outcome dispatch_outcome::from(response&& r) {
  dispatch_outcome o;
  if (std::shared_ptr<pending_response> slot = response_access::take_pending(r)) {
    o.what = slot->body ? kind::body_sink : kind::pending;
    o.slot = std::move(slot);
    return o;
  }
  // An after-hook may have turned the 101 into something else: then it is an
  // answer like any other, and the session is let go.
  if (response_access::upgrades(r) && r.status() == status::switching_protocols) {
    o.what = kind::upgrade;
    o.upgrade = response_access::take_upgrade(r);
  }
  o.answer = std::move(r);
  return o;
}

}  // namespace stet::detail

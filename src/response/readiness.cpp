#include <stet/readiness.hpp>

namespace stet {

// no-store: a cached "ready" would hide the stop from the balancer that asked.
response readiness::respond() const {
  response r = ready() ? response::text("ready\n") : response::text("not ready\n", status::service_unavailable);
  r.set_header("Cache-Control", "no-store");
  return r;
}

}  // namespace stet

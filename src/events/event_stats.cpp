#include "events/event_stats.hpp"

namespace stet::detail {

event_stats& sse_stats() noexcept {
  static event_stats stats;
  return stats;
}

}  // namespace stet::detail

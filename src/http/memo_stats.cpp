#include "http/memo_stats.hpp"

namespace stet::detail {

memo_stats& this_thread_memo_stats() noexcept {
  thread_local memo_stats stats;
  return stats;
}

}  // namespace stet::detail

#include "counters/memo_stats.hpp"

namespace stet::detail {
namespace {

// constinit: no guard and no registration on first use, so reaching the
// counters stays one TLS access and one predictable branch.
thread_local constinit memo_stats* installed = nullptr;
thread_local constinit memo_stats own;

}  // namespace

memo_stats& this_thread_memo_stats() noexcept { return installed != nullptr ? *installed : own; }

void install_thread_memo_stats(memo_stats* stats) noexcept { installed = stats; }

}  // namespace stet::detail

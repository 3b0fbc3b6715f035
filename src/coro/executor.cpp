#include "coro/executor.hpp"

namespace stet::detail {
namespace {

thread_local executor* installed = nullptr;

}  // namespace

executor* this_thread_executor() noexcept { return installed; }

void install_thread_executor(executor* e) noexcept { installed = e; }

executor_scope::executor_scope(executor* e) noexcept : previous_(installed) { installed = e; }

executor_scope::~executor_scope() { installed = previous_; }

}  // namespace stet::detail

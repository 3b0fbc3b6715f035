#pragma once
// Counts heap allocations made through the global operator new (replaced in
// alloc_counter.cpp, which a test or bench executable compiles in). Used to turn
// "allocates nothing in the steady state" into a number a test can check.

#include <cstdint>

namespace stet::test {

/// Allocations by every thread since the process started.
std::uint64_t total_allocations() noexcept;
/// Allocations by the calling thread since it started.
std::uint64_t thread_allocations() noexcept;

/// Heap bytes allocated and not yet freed, by every thread (as the allocator
/// rounds them: malloc_usable_size).
std::int64_t live_bytes() noexcept;

/// Counts the calling thread's allocations over a scope.
class allocation_scope {
 public:
  allocation_scope() noexcept : start_(thread_allocations()) {}
  std::uint64_t count() const noexcept { return thread_allocations() - start_; }

 private:
  std::uint64_t start_;
};

}  // namespace stet::test

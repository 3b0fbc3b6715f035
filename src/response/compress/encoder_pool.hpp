#pragma once
// Each worker thread keeps a few idle compressor states per coding; a body
// leases one, and the lease puts it back, so the steady state creates no
// compressor (and allocates no compressor memory) per response.

#include "response/compress/encoder.hpp"

#include <cstddef>
#include <memory>
#include <thread>

namespace stet::detail {

/// Idle states kept per coding per thread; more are created while more
/// bodies (long streams) are being compressed at once, and dropped after.
inline constexpr std::size_t idle_encoders_per_coding = 2;

/// Exclusive use of one begun compressor state; returns it to the pool of the
/// thread that leased it when destroyed there (destroyed on another thread, the
/// state is freed instead, since pools are per thread and lock-free).
class encoder_lease {
 public:
  encoder_lease() noexcept = default;
  encoder_lease(std::unique_ptr<encoder> e, std::thread::id owner) noexcept : encoder_(std::move(e)), owner_(owner) {}
  encoder_lease(encoder_lease&&) noexcept = default;
  encoder_lease& operator=(encoder_lease&& other) noexcept;
  ~encoder_lease();

  explicit operator bool() const noexcept { return encoder_ != nullptr; }
  encoder& operator*() const noexcept { return *encoder_; }
  encoder* operator->() const noexcept { return encoder_.get(); }

 private:
  void release() noexcept;
  std::unique_ptr<encoder> encoder_;
  std::thread::id owner_;
};

/// A state for `c` from the calling thread's pool (or a new one), begun for a
/// body of `size_hint` bytes (0: unknown). Empty when `c` is identity or the
/// library refused (out of memory, parameters).
encoder_lease lease_encoder(content_coding c, const encoder_params& p, std::uint64_t size_hint);

/// Idle states held by the calling thread's pool (tests).
std::size_t idle_encoders() noexcept;

}  // namespace stet::detail

#pragma once
// Internal: not part of stet's API. include/stet/detail/ holds only what the
// public templates need to see (CONTRIBUTING.md, "Where a change goes").

#include <string>
#include <utility>

namespace stet::detail {

/// A std::string whose heap buffer returns to a small per-thread free list when
/// it dies, so building a response in the steady state reuses a buffer rather
/// than allocating one. The free list is bounded in count and in buffer size.
class pooled_string {
 public:
  pooled_string() noexcept = default;
  pooled_string(const pooled_string& other) = default;
  pooled_string(pooled_string&& other) noexcept : text_(std::move(other.text_)) {}
  pooled_string& operator=(const pooled_string& other) {
    if (this != &other) writable() = other.text_;
    return *this;
  }
  pooled_string& operator=(pooled_string&& other) noexcept {
    if (this != &other) {
      recycle();
      text_ = std::move(other.text_);
    }
    return *this;
  }
  ~pooled_string() { recycle(); }

  /// The text; never allocates.
  const std::string& str() const noexcept { return text_; }
  /// The text for writing; takes a pooled buffer first when it has none of its own.
  std::string& writable();
  /// Adopts `text`'s buffer (the caller's string is left empty).
  void adopt(std::string&& text) noexcept {
    recycle();
    text_ = std::move(text);
  }

 private:
  void recycle() noexcept;
  std::string text_;
};

}  // namespace stet::detail

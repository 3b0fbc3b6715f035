#include "tls/record_buffers.hpp"

#include <cstring>
#include <new>
#include <vector>

namespace stet::detail {
namespace {

// Spares per thread: enough for the connections busy at one moment to reuse
// them, few enough that a burst does not pin its memory afterwards.
constexpr std::size_t max_spares = 16;

std::vector<std::unique_ptr<char[]>>& input_spares() {
  thread_local std::vector<std::unique_ptr<char[]>> spares;
  return spares;
}

std::vector<std::string>& output_spares() {
  thread_local std::vector<std::string> spares;
  return spares;
}

}  // namespace

char* cipher_input::room(std::size_t& size) noexcept {
  if (!block_) {
    std::vector<std::unique_ptr<char[]>>& spares = input_spares();
    if (!spares.empty()) {
      block_ = std::move(spares.back());
      spares.pop_back();
    } else {
      block_.reset(new (std::nothrow) char[capacity]);
      if (!block_) {
        size = 0;
        return nullptr;
      }
    }
    begin_ = end_ = 0;
  } else if (begin_ > 0) {
    std::memmove(block_.get(), block_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  size = capacity - end_;
  return block_.get() + end_;
}

void cipher_input::consume(std::size_t n) noexcept {
  begin_ += n;
  if (begin_ == end_) release();
}

void cipher_input::release() noexcept {
  if (!block_) return;
  begin_ = end_ = 0;
  std::vector<std::unique_ptr<char[]>>& spares = input_spares();
  if (spares.size() < max_spares) {
    try {
      spares.push_back(std::move(block_));
    } catch (const std::bad_alloc&) {
    }
  }
  block_.reset();
}

std::string& cipher_output::sink() {
  if (!held_) {
    held_ = true;
    std::vector<std::string>& spares = output_spares();
    if (!spares.empty()) {
      bytes_ = std::move(spares.back());
      spares.pop_back();
    } else {
      bytes_.reserve(reserved);
    }
  }
  return bytes_;
}

void cipher_output::sent(std::size_t n) noexcept {
  sent_ += n;
  if (sent_ == bytes_.size()) release();
}

void cipher_output::release() noexcept {
  if (!held_) return;
  held_ = false;
  sent_ = 0;
  bytes_.clear();
  std::vector<std::string>& spares = output_spares();
  // A string that grew far past its reservation (a huge flight) is not kept.
  if (spares.size() < max_spares && bytes_.capacity() <= 2 * reserved) {
    try {
      spares.push_back(std::move(bytes_));
    } catch (const std::bad_alloc&) {
    }
  }
  bytes_ = std::string();
}

}  // namespace stet::detail

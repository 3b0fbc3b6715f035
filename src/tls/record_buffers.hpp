#pragma once
// The ciphertext buffers of a TLS connection, held only while bytes are in
// flight: the input block between a socket read and the session consuming it,
// the output string between the session writing records and the socket taking
// them. Both come from the thread's spares and go back the moment they are
// empty, so steady traffic allocates nothing and an idle connection holds
// neither. A connection lives on one worker thread, so the spares need no lock.

#include <cstddef>
#include <memory>
#include <string>

namespace stet::detail {

/// Ciphertext read from the socket and not yet consumed by the session.
class cipher_input {
 public:
  /// Room for two full records: one read takes what a client sends at once.
  static constexpr std::size_t capacity = 36 * 1024;

  cipher_input() = default;
  cipher_input(const cipher_input&) = delete;
  cipher_input& operator=(const cipher_input&) = delete;
  ~cipher_input() { release(); }

  bool held() const noexcept { return block_ != nullptr; }
  /// Takes a block if none is held; keeps the unconsumed bytes at its front.
  /// Returns the free tail (empty only when out of memory).
  char* room(std::size_t& size) noexcept;
  void filled(std::size_t n) noexcept { end_ += n; }
  const char* data() const noexcept { return block_.get() + begin_; }
  std::size_t size() const noexcept { return end_ - begin_; }
  /// `n` bytes were consumed; an emptied block goes back to the spares.
  void consume(std::size_t n) noexcept;
  void release() noexcept;

 private:
  std::unique_ptr<char[]> block_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

/// Records written by the session and not yet taken by the socket.
class cipher_output {
 public:
  /// What a spare string keeps reserved: a batch of four full records and a
  /// handshake flight fit without growing it.
  static constexpr std::size_t reserved = 72 * 1024;

  cipher_output() = default;
  cipher_output(const cipher_output&) = delete;
  cipher_output& operator=(const cipher_output&) = delete;
  ~cipher_output() { release(); }

  /// The string the session appends to (taken from the spares on first use).
  std::string& sink();
  bool pending() const noexcept { return sent_ < bytes_.size(); }
  const char* unsent() const noexcept { return bytes_.data() + sent_; }
  std::size_t unsent_size() const noexcept { return bytes_.size() - sent_; }
  /// `n` more bytes are on the wire; once all are, the string goes back.
  void sent(std::size_t n) noexcept;
  void release() noexcept;

 private:
  std::string bytes_;
  std::size_t sent_ = 0;
  bool held_ = false;
};

}  // namespace stet::detail

#pragma once
/// @file
/// Option fields kept for one release after #26 chose one way to say each thing.
/// Each wraps its value so that naming the field in user code (assigning it,
/// initialising it by designator, reading it) draws a deprecation warning, while
/// copying the options struct that holds it does not: a [[deprecated]] data
/// member warns in every implicitly generated copy, move and destructor, which
/// would break -Werror builds that never name it. The constructors and
/// conversions are implicit on purpose: `{.port = 0}`, `o.port = 0` and
/// `std::uint16_t p = o.port` keep compiling, each with its warning.

#include <cstdint>
#include <string>
#include <utility>

namespace stet::detail {

/// The value of a deprecated string field, and whether the user set it.
class deprecated_string {
 public:
  explicit deprecated_string(const char* initial) : value_(initial) {}
  /// For stet itself: the value, without a warning.
  const std::string& get() const noexcept { return value_; }
  /// For stet itself: whether the user assigned or initialised the field.
  bool was_set() const noexcept { return set_; }

 protected:
  void set(std::string value) {
    value_ = std::move(value);
    set_ = true;
  }

 private:
  std::string value_;
  bool set_ = false;
};

/// server_options::host.
class deprecated_host : public deprecated_string {
 public:
  deprecated_host() : deprecated_string("127.0.0.1") {}
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] deprecated_host(const char* value)
      : deprecated_host() {
    set(value);
  }
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] deprecated_host(std::string value)
      : deprecated_host() {
    set(std::move(value));
  }
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] deprecated_host& operator=(std::string value) {
    set(std::move(value));
    return *this;
  }
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] operator const std::string&() const noexcept {
    return get();
  }
};

/// server_options::port.
class deprecated_port {
 public:
  deprecated_port() = default;
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] deprecated_port(std::uint16_t port) : value_(port) {}
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] deprecated_port& operator=(std::uint16_t port) {
    value_ = port;
    return *this;
  }
  [[deprecated("say listeners = {{.address = \"HOST:PORT\"}}")]] operator std::uint16_t() const noexcept {
    return value_;
  }
  /// For stet itself: the value, without a warning.
  std::uint16_t get() const noexcept { return value_; }

 private:
  std::uint16_t value_ = 8080;
};

/// static_options::url_prefix.
class deprecated_url_prefix : public deprecated_string {
 public:
  deprecated_url_prefix() : deprecated_string("/static/") {}
  [[deprecated("static_url() uses the prefix given to stet::mount()")]] deprecated_url_prefix(const char* value)
      : deprecated_url_prefix() {
    set(value);
  }
  [[deprecated("static_url() uses the prefix given to stet::mount()")]] deprecated_url_prefix(std::string value)
      : deprecated_url_prefix() {
    set(std::move(value));
  }
  [[deprecated("static_url() uses the prefix given to stet::mount()")]] deprecated_url_prefix& operator=(
      std::string value) {
    set(std::move(value));
    return *this;
  }
  [[deprecated("static_url() uses the prefix given to stet::mount()")]] operator const std::string&() const noexcept {
    return get();
  }
};

}  // namespace stet::detail

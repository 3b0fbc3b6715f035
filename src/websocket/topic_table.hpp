#pragma once
// One worker's topics: who subscribes to what, for publish/subscribe. Only
// its worker thread touches it; across workers, the server's hub knows which
// workers have subscribers of a topic at all.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace stet::detail::ws {

class session;

class topic_table {
 public:
  struct topic {
    std::string name;
    std::vector<session*> members;
  };

  /// Adds `s` to `name` (created if new) and returns the topic (its address
  /// is stable until it empties); `created` says whether it was new here.
  /// @throws std::bad_alloc
  topic& add(std::string_view name, session* s, bool& created);
  /// Takes `s` out of `t`; returns whether `t` emptied (it is then gone).
  bool remove(topic& t, session* s) noexcept;
  /// The topic `name`, or null when nobody here subscribes.
  const topic* find(std::string_view name) const noexcept;
  std::size_t size() const noexcept { return topics_.size(); }

 private:
  struct hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, topic, hash, std::equal_to<>> topics_;
};

}  // namespace stet::detail::ws

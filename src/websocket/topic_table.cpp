#include "websocket/topic_table.hpp"

#include <algorithm>

namespace stet::detail::ws {

topic_table::topic& topic_table::add(std::string_view name, session* s, bool& created) {
  auto it = topics_.find(name);
  created = it == topics_.end();
  if (created) {
    it = topics_.emplace(std::string(name), topic{}).first;
    it->second.name = it->first;
  }
  it->second.members.push_back(s);
  return it->second;
}

bool topic_table::remove(topic& t, session* s) noexcept {
  std::vector<session*>& m = t.members;
  const auto at = std::find(m.begin(), m.end(), s);
  if (at == m.end()) return false;
  *at = m.back();
  m.pop_back();
  if (!m.empty()) return false;
  topics_.erase(topics_.find(std::string_view(t.name)));
  return true;
}

const topic_table::topic* topic_table::find(std::string_view name) const noexcept {
  const auto it = topics_.find(name);
  return it == topics_.end() ? nullptr : &it->second;
}

}  // namespace stet::detail::ws

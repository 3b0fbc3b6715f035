#include "pubsub/in_process_bus.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <utility>

namespace stet::detail {

std::optional<std::uint64_t> parse_bus_id(std::string_view id) noexcept {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), n);
  if (ec != std::errc() || end != id.data() + id.size() || id.empty()) return std::nullopt;
  return n;
}

void in_process_bus::start(sink deliver) {
  std::unique_lock lock(sink_mutex_);
  deliver_ = std::move(deliver);
  running_ = true;
}

void in_process_bus::stop() noexcept {
  std::unique_lock lock(sink_mutex_);
  running_ = false;
}

std::shared_ptr<in_process_bus::topic_state> in_process_bus::find_or_add(std::string_view topic) {
  const auto it = topics_.find(topic);
  if (it != topics_.end()) return it->second;
  auto t = std::make_shared<topic_state>();
  t->name = std::string(topic);
  // Microseconds since the epoch: later than any id an earlier incarnation of
  // the topic handed out, unless it averaged over a million events a second.
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  // And never below an id a forgotten topic handed out: within this process a
  // topic that comes back continues past its earlier incarnation even within
  // the same microsecond.
  t->next_id = std::max(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(now).count()),
                        id_floor_);
  t->lru = lru_.insert(lru_.end(), t);
  try {
    topics_.emplace(t->name, t);
  } catch (...) {
    lru_.erase(t->lru);
    throw;
  }
  return t;
}

void in_process_bus::watch(std::string_view topic) {
  std::lock_guard lock(mutex_);
  ++find_or_add(topic)->watchers;
  trim_totals();
}

void in_process_bus::unwatch(std::string_view topic) noexcept {
  std::lock_guard lock(mutex_);
  const auto it = topics_.find(topic);
  if (it == topics_.end() || it->second->watchers == 0) return;
  --it->second->watchers;
  forget_if_empty(*it->second);
}

bool in_process_bus::publish(std::string_view topic, std::string_view data) {
  std::shared_ptr<topic_state> t;
  {
    std::lock_guard lock(mutex_);
    t = find_or_add(topic);
  }
  std::lock_guard order(t->delivery);
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    // Evicted while we waited for `delivery`: publish into the topic's new entry.
    const auto it = topics_.find(topic);
    if (it == topics_.end() || it->second != t) return publish(topic, data);
    id = t->next_id++;
    t->history.push_back({id, std::string(data)});
    const std::size_t c = cost(t->history.back());
    t->bytes += c;
    total_bytes_ += c;
    while (t->history.size() > limits_.topic_events || (t->history.size() > 1 && t->bytes > limits_.topic_bytes))
      drop_oldest(*t);
    lru_.splice(lru_.end(), lru_, t->lru);  // most recently published last
    trim_totals();
  }
  published_.fetch_add(1, std::memory_order_relaxed);
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, id);
  std::shared_lock running(sink_mutex_);
  if (!running_ || !deliver_) return true;
  deliver_(bus_event{topic, std::string_view(digits, static_cast<std::size_t>(end - digits)), data});
  delivered_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void in_process_bus::drop_oldest(topic_state& t) noexcept {
  const std::size_t c = cost(t.history.front());
  t.history.pop_front();
  t.bytes -= c;
  total_bytes_ -= c;
}

// Under mutex_. The least recently published topics give way first, and
// unwatched ones before watched ones: a watched topic's history is what its
// subscribers resume from.
void in_process_bus::trim_totals() noexcept {
  for (const bool spare_watched : {true, false}) {
    for (auto it = lru_.begin();
         it != lru_.end() && (total_bytes_ > limits_.total_bytes || topics_.size() > limits_.topics);) {
      topic_state& t = **it++;  // advanced first: forget_if_empty() may erase t's node
      if (spare_watched && t.watchers > 0) continue;
      if (topics_.size() > limits_.topics) {
        while (!t.history.empty()) drop_oldest(t);
      } else {
        while (!t.history.empty() && total_bytes_ > limits_.total_bytes) drop_oldest(t);
      }
      forget_if_empty(t);
    }
  }
}

bool in_process_bus::forget_if_empty(topic_state& t) noexcept {
  if (t.watchers > 0 || !t.history.empty()) return false;
  id_floor_ = std::max(id_floor_, t.next_id);
  lru_.erase(t.lru);
  topics_.erase(t.name);  // may destroy t (a publisher in flight holds its own reference)
  return true;
}

void in_process_bus::replay(std::string_view topic, std::string_view last_id, std::size_t limit, replay_done done) {
  bus_replay r;
  {
    std::lock_guard lock(mutex_);
    const auto it = topics_.find(topic);
    const std::optional<std::uint64_t> last = parse_bus_id(last_id);
    if (it == topics_.end()) {
      // Nothing was published since this process started (or all of it was
      // forgotten): a client that saw an id has missed what we cannot tell.
      r.complete = false;
    } else {
      const topic_state& t = *it->second;
      const std::uint64_t first = t.history.empty() ? t.next_id : t.history.front().id;
      // Complete when every id after `last` is still held: last is at most
      // one before the oldest held, and not past the newest handed out.
      r.complete = last.has_value() && *last + 1 >= first && *last < t.next_id;
      for (const record& e : t.history) {
        if (r.events.size() >= limit) break;
        if (last && e.id <= *last) continue;
        r.events.push_back({std::to_string(e.id), e.data});
      }
    }
  }
  done(std::move(r));
}

bus_stats in_process_bus::stats() const noexcept {
  bus_stats s;
  s.published = published_.load(std::memory_order_relaxed);
  s.delivered = delivered_.load(std::memory_order_relaxed);
  return s;
}

std::size_t in_process_bus::history_bytes() const noexcept {
  std::lock_guard lock(mutex_);
  return total_bytes_;
}

std::size_t in_process_bus::topic_count() const noexcept {
  std::lock_guard lock(mutex_);
  return topics_.size();
}

}  // namespace stet::detail

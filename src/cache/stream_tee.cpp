// A streamed answer is stored the way it is sent: each piece the producer
// writes for the first client is also appended to an entry in the making, and
// when the producer says it is done the entry is stored. Past the entry bound
// the copy is dropped and the stream goes on uncached: an entry is never a
// truncated body. A client that leaves mid-stream ends the producer, and the
// copy goes with it.
#include "cache/cache_flow.hpp"
#include "cache/store_rules.hpp"
#include "response/response_access.hpp"

namespace stet::detail {
namespace {

struct tee_state {
  std::shared_ptr<const cached_route> route;
  std::string key;
  std::size_t hash = 0;
  std::uint64_t epoch = 0;
  bool compress = true;
  response head;  // the status and fields, for the entry
  std::vector<std::string> tags;
  stream_producer inner;
  std::string copy;
  bool abandoned = false;

  void keep(std::string_view piece) {
    if (abandoned) return;
    if (copy.size() + piece.size() > route->policy().max_entry_bytes) {
      abandoned = true;
      std::string().swap(copy);
      bump(route->counters().not_stored);
      return;
    }
    copy.append(piece);
  }

  void store() {
    const cache_policy& policy = route->policy();
    const entry_facts facts{policy, route->store().options.compression, compress, route->index(), cache_clock::now()};
    const std::shared_ptr<const cache_entry> e =
        make_entry(head, std::make_shared<const std::string>(std::move(copy)), facts, std::move(tags));
    if (!e || !route->store().table.store({key, hash}, e, epoch)) bump(route->counters().not_stored);
  }
};

}  // namespace

response tee_stream(const cached_route& route, const request& req, response r, std::string key, std::uint64_t epoch,
                    bool compress) {
  auto t = std::make_shared<tee_state>();
  t->route = route.shared_from_this();
  t->hash = std::hash<std::string_view>{}(key);
  t->key = std::move(key);
  t->epoch = epoch;
  t->compress = compress;
  t->head.set_status(r.status());
  response_access::append_trusted_block(t->head, r.header_block());
  if (!r.compression_allowed()) t->head.no_compression();
  t->tags = answer_tags(route.policy(), req, r);
  t->inner = r.producer();
  r.set_stream([t](stream_writer& out) {
    const std::size_t before = out.buffered();
    const bool more = t->inner(out);
    t->keep(std::string_view(out.buffer()).substr(before));
    if (!more && !t->abandoned) t->store();
    return more;
  });
  return r;
}

}  // namespace stet::detail

#include "cache/store_rules.hpp"

#include "cache/invalidation_log.hpp"
#include "crypto/sha256.hpp"
#include "http/token.hpp"
#include "response/compress/policy.hpp"
#include "response/header_scan.hpp"

#include <algorithm>

namespace stet::detail {
namespace {

bool lists_directive(std::string_view value, std::string_view directive) noexcept {
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    std::string_view item = trim_ows(value.substr(0, comma));
    item = item.substr(0, item.find('='));  // private="Set-Cookie" names fields, but is still private
    if (iequals(trim_ows(item), directive)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

std::string strong_etag(std::string_view body) {
  sha256 digest;
  if (!digest.update(body)) return {};
  const std::optional<sha256_hex> hex = digest.finish();
  if (!hex) return {};
  // 128 bits of the hash name the bytes as well as all 256 would here.
  std::string tag = "\"";
  tag.append(hex->data(), 32);
  tag += '"';
  return tag;
}

// The handler's fields without ETag (sent per coding), with Vary naming the
// policy's headers and Accept-Encoding when variants may be made.
void copy_fields(const response& r, const cache_policy& policy, cache_entry& e, std::string& handler_etag) {
  std::string_view content_type;
  bool coded = false;
  bool no_transform = false;
  for_each_field(r.header_block(), [&](std::string_view name, std::string_view value) {
    if (iequals(name, "etag")) {
      handler_etag.assign(value);
      return false;
    }
    if (iequals(name, "content-type")) content_type = value;
    if (iequals(name, "content-encoding")) coded = true;
    if (iequals(name, "cache-control")) no_transform = no_transform || lists_directive(value, "no-transform");
    e.fields.append(name).append(": ").append(value).append("\r\n");
    return false;
  });
  e.compressible = e.compressible && !coded && !no_transform && !content_type.empty();
  std::string vary;
  for (const std::string& name : policy.vary) vary.append(vary.empty() ? "" : ", ").append(name);
  if (e.compressible) vary.append(vary.empty() ? "" : ", ").append("Accept-Encoding");
  if (!vary.empty()) e.fields.append("Vary: ").append(vary).append("\r\n");
}

}  // namespace

bool storable_head(const response& r, const cache_policy& policy) noexcept {
  if (std::find(policy.statuses.begin(), policy.statuses.end(), r.status()) == policy.statuses.end()) return false;
  if (r.file() != nullptr) return false;  // a file range is the static cache's business
  bool refused = false;
  for_each_field(r.header_block(), [&](std::string_view name, std::string_view value) {
    refused =
        iequals(name, "set-cookie") ||
        (iequals(name, "cache-control") && (lists_directive(value, "private") || lists_directive(value, "no-store")));
    return refused;
  });
  return !refused;
}

std::vector<std::string> answer_tags(const cache_policy& policy, const request& req, const response& r) {
  std::vector<std::string> tags;
  if (policy.tags) policy.tags(req, r, tags);
  return tags;
}

std::shared_ptr<cache_entry> make_entry(const response& r, std::shared_ptr<const std::string> body,
                                        const entry_facts& facts, std::vector<std::string> tags) {
  const cache_policy& policy = facts.policy;
  if (body->size() > policy.max_entry_bytes) return nullptr;
  auto e = std::make_shared<cache_entry>();
  e->status = r.status();
  const compression_options& s = facts.compression;
  const std::optional<std::string_view> type = r.header("Content-Type");
  e->compressible = s.enabled && facts.route_compresses && r.compression_allowed() && type &&
                    body->size() >= s.min_bytes && media_type_listed(*type, s.media_types);
  std::string handler_etag;
  copy_fields(r, policy, *e, handler_etag);
  e->etag = handler_etag.empty() ? strong_etag(*body) : std::move(handler_etag);
  if (e->etag.empty()) return nullptr;
  e->body = std::move(body);
  e->tags = std::move(tags);
  for (const std::string& t : e->tags) e->tag_hashes.push_back(invalidation_log::hash_tag(t));
  e->route = facts.route;
  e->stored = facts.now;
  e->fresh_until = facts.now + policy.ttl;
  e->revalidate_until = e->fresh_until + policy.stale_while_revalidate;
  e->error_until = e->fresh_until + policy.stale_if_error;
  e->charge = e->body->size() + e->fields.size() + e->etag.size() + sizeof(cache_entry);
  for (const std::string& t : e->tags) e->charge += t.size();
  return e;
}

}  // namespace stet::detail

// The static file responder: from a request and the raw path below the mount
// to a response (file, 304/206/416, index page, directory redirect, error),
// and the URLs it hands out (static_url). The files themselves come from the
// store (file_store.cpp).
#include <stet/static_files.hpp>

#include "counters/counter_add.hpp"
#include "static/content_hash.hpp"
#include "static/encoding.hpp"
#include "static/file_response.hpp"
#include "static/safe_path.hpp"
#include "static/static_files_impl.hpp"
#include "static/variant_choice.hpp"

#include "http/percent.hpp"
#include "http/target.hpp"
#include "http/token.hpp"
#include "response/compress/accept_encoding_memo.hpp"
#include "response/error_pages.hpp"
#include "response/redirect.hpp"

#include <memory>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>

namespace stet {
namespace {

std::string_view concat(std::pmr::memory_resource& arena, std::string_view a, std::string_view b,
                        std::string_view c = {}) {
  auto* p = static_cast<char*>(arena.allocate(a.size() + b.size() + c.size(), 1));
  a.copy(p, a.size());
  b.copy(p + a.size(), b.size());
  c.copy(p + a.size() + b.size(), c.size());
  return {p, a.size() + b.size() + c.size()};
}

}  // namespace

static_files::impl::impl(std::string root_path, static_options o)
    : options(std::move(o)),
      store(std::move(root_path), options),
      url_prefix(options.url_prefix.get()),
      url_prefix_fixed(options.url_prefix.was_set()),
      cache_control_(check(options)) {}

static_files::impl::checked_cache_control static_files::impl::check(const static_options& o) noexcept {
  const auto valid = [](std::string_view v) {
    v = detail::trim_ows(v);  // as add_header() would
    return detail::is_field_value(v) ? v : std::string_view();
  };
  return {valid(o.cache_control), valid(o.immutable_cache_control), valid(o.stale_hash_cache_control)};
}

std::string_view static_files::impl::cache_control_for(const request& req, const lookup_result& file) {
  const auto wanted = detail::raw_query_arg(req.query_string(), "_hash");  // hex: compared undecoded
  if (!wanted) return cache_control_.normal;
  const auto digest = store.hash_of(file.entry, *file.counters);
  return digest && *wanted == detail::to_view(*digest) ? cache_control_.immutable : cache_control_.stale_hash;
}

response static_files::impl::serve(const request& req, std::string_view relative, const lookup_result& file) {
  const detail::file_entry& original = *file.entry;
  const detail::static_request_fields fields = detail::read_static_fields(req);
  lookup_result variant;
  std::string_view coding;
  bool vary = false;
  if (options.precompressed && original.dated) {
    const std::uint8_t bits = store.siblings(relative, original);
    vary = bits != 0;
    const auto chosen = bits == 0 || !fields.accept_encoding
                            ? detail::sibling_coding::identity
                            : detail::choose_coding(detail::cached_accept_encoding(*fields.accept_encoding),
                                                    (bits & detail::sibling_br) != 0, (bits & detail::sibling_gz) != 0);
    if (chosen != detail::sibling_coding::identity) {
      const bool br = chosen == detail::sibling_coding::br;
      variant = store.lookup(concat(req.arena(), relative, br ? ".br" : ".gz"));
      // A sibling older than the file was compressed from an earlier version.
      if (variant.kind == found::file && variant.entry->id.mtime_ns >= original.id.mtime_ns) {
        coding = br ? "br" : "gzip";
      } else {
        variant = {};
      }
    }
  }
  const detail::file_entry& sent = variant.entry ? *variant.entry : original;
  // After the siblings: a variant compressed once from the cached bytes.
  const detail::variant_choice made = variant.entry
                                          ? detail::variant_choice{}
                                          : detail::choose_variant(store, relative, file, fields, options.compression);
  if (made.coded != nullptr) coding = made.coding;
  const detail::decision d = detail::evaluate(fields.conditions, detail::facts_of(sent, made.coded));
  if (d.kind == detail::outcome::not_modified) detail::shared_add(file.counters->not_modified);
  if (d.kind == detail::outcome::partial) detail::shared_add(file.counters->partial);
  return detail::build_file_response(
      {sent, original.content_type, coding, vary || made.vary, cache_control_for(req, file), made.coded}, d);
}

response static_files::impl::serve_index(const request& req, std::string_view directory) {
  for (const std::string& index : options.index_files) {
    const std::string_view relative =
        directory.empty() ? std::string_view(index) : concat(req.arena(), directory, "/", index);
    const lookup_result r = store.lookup(relative);
    if (r.kind == found::file) return serve(req, relative, r);
  }
  return detail::error_page(stet::status::not_found, req);
}

response static_files::impl::redirect_to_directory(const request& req, std::string_view relative) {
  // stat() said "directory" through the configured path; confirm it is one
  // below the root before telling the client it exists.
  if (!store.directory_below_root(relative)) return detail::error_page(stet::status::not_found, req);
  return detail::local_redirect(req, stet::status::moved_permanently, req.raw_path(), detail::add_slash::yes);
}

response static_files::impl::respond(const request& req, std::string_view raw_relative_path) {
  if (req.method() != stet::method::get && req.method() != stet::method::head) {
    response res = detail::error_page(stet::status::method_not_allowed, req);
    res.add_header("Allow", "GET, HEAD");
    return res;
  }
  const detail::clean_path path = detail::clean_url_path(raw_relative_path, req.arena(), options.show_dotfiles);
  switch (path.verdict) {
    case detail::path_verdict::ok: break;
    case detail::path_verdict::bad_request:
      store.count_refused(raw_relative_path);
      return detail::error_page(stet::status::bad_request, req);
    case detail::path_verdict::hidden: return detail::error_page(stet::status::not_found, req);
    case detail::path_verdict::too_long: return detail::error_page(stet::status::uri_too_long, req);
  }
  if (path.directory) return serve_index(req, path.path);
  const lookup_result r = store.find(path.path);
  switch (r.kind) {
    case found::file: return serve(req, path.path, r);
    case found::directory: return redirect_to_directory(req, path.path);
    case found::missing:
    case found::refused: return detail::error_page(stet::status::not_found, req);
    case found::failed: break;
  }
  return detail::error_page(stet::status::service_unavailable, req);
}

std::optional<std::string> static_files::impl::content_hash(std::string_view relative_path) {
  const auto digest = store.digest_of(relative_path);
  if (!digest) return std::nullopt;
  return std::string(detail::to_view(*digest));
}

std::string static_files::impl::static_url(std::string_view relative_path) {
  const auto digest = store.digest_of(relative_path);
  if (!relative_path.empty() && relative_path.front() == '/' && url_prefix.ends_with('/')) {
    relative_path.remove_prefix(1);
  }
  std::string url;
  url.reserve(url_prefix.size() + relative_path.size() + 7 + 16 + 16);
  url += url_prefix;
  detail::append_percent_encoded(url, relative_path, detail::path_slashes::keep);
  if (digest) {
    url += "?_hash=";
    url += detail::to_view(*digest);
  }
  return url;
}

static_stats static_files::impl::stats() const noexcept {
  static_stats s;
  store.add_counters(s);
  return s;
}

static_files::static_files(std::string root, static_options options)
    : impl_(std::make_unique<impl>(std::move(root), std::move(options))) {}
static_files::~static_files() = default;

// Static answers keep their own variants: the server's compression step must
// never compress one per request (nor add a second Vary).
response static_files::respond(const request& req, std::string_view raw_relative_path) {
  response r = impl_->respond(req, raw_relative_path);
  r.no_compression();
  return r;
}
std::string static_files::static_url(std::string_view relative_path) { return impl_->static_url(relative_path); }
std::optional<std::string> static_files::content_hash(std::string_view relative_path) {
  return impl_->content_hash(relative_path);
}
static_stats static_files::stats() const noexcept { return impl_->stats(); }
const static_options& static_files::options() const noexcept { return impl_->options; }
const std::string& static_files::root() const noexcept { return impl_->store.root.configured(); }

}  // namespace stet

#include <stet/router.hpp>

#include <cstdio>
#include <exception>

namespace stet {
namespace {

constexpr std::size_t index_of(method m) noexcept { return static_cast<std::size_t>(m); }

}  // namespace

router& router::add(method m, std::string_view path, handler h) {
  auto it = paths_.find(path);
  if (it == paths_.end()) it = paths_.emplace(std::string(path), path_entry{}).first;
  path_entry& entry = it->second;
  entry.by_method[index_of(m)] = std::move(h);

  // The Allow value is derived once per change, never per 405.
  entry.allow.clear();
  for (std::size_t i = 0; i < method_count; ++i) {
    const auto candidate = static_cast<method>(i);
    const bool has = static_cast<bool>(entry.by_method[i]) ||
                     (candidate == method::head && entry.by_method[index_of(method::get)]) ||
                     candidate == method::options;
    if (!has || candidate == method::other) continue;
    if (!entry.allow.empty()) entry.allow += ", ";
    entry.allow += to_string(candidate);
  }
  return *this;
}

router::match router::find(method m, std::string_view path) const noexcept {
  const auto it = paths_.find(path);
  if (it == paths_.end()) return {};
  const path_entry& entry = it->second;
  const handler* h = &entry.by_method[index_of(m)];
  if (!*h && m == method::head) h = &entry.by_method[index_of(method::get)];
  if (*h) return {h, status::ok, entry.allow};
  if (m == method::options) return {nullptr, status::no_content, entry.allow};
  return {nullptr, status::method_not_allowed, entry.allow};
}

response router::handle(request& req) const {
  const match found = find(req.method(), req.path());
  if (found.target == nullptr) {
    if (found.status == status::not_found) return response::text("Not Found\n", status::not_found);
    response r = found.status == status::method_not_allowed
                     ? response::text("Method Not Allowed\n", status::method_not_allowed)
                     : response(found.status);
    r.set_header("Allow", found.allow);
    return r;
  }
  try {
    return (*found.target)(req);
  } catch (const std::exception& e) {
    if (report_) {
      report_(e.what());
    } else {
      std::fprintf(stderr, "stet: handler for %.*s threw: %s\n", static_cast<int>(req.path().size()), req.path().data(),
                   e.what());
    }
  } catch (...) {
    if (report_) report_("unknown exception");
  }
  return response::text("Internal Server Error\n", status::internal_server_error);
}

}  // namespace stet

#include <stet/static_files.hpp>

#include "response/redirect.hpp"
#include "static/static_files_impl.hpp"

#include <algorithm>

namespace stet {
namespace {

// The raw (still encoded) remainder of `raw_path` after its first `segments`
// segments. Counted in segments, not bytes, because the router matched the
// prefix segment by segment after decoding ("/st%61tic/x" is under "/static").
std::string_view raw_remainder(std::string_view raw_path, std::size_t segments) noexcept {
  std::size_t pos = 0;
  for (std::size_t seen = 0; seen <= segments && pos < raw_path.size(); ++seen) {
    const std::size_t slash = raw_path.find('/', pos);
    if (slash == std::string_view::npos) return {};
    pos = slash + 1;
  }
  return raw_path.substr(pos);
}

}  // namespace

void mount(router& routes, std::string_view prefix, std::shared_ptr<static_files> files) {
  std::string base(prefix);
  while (!base.empty() && base.back() == '/') base.pop_back();
  const auto segments = static_cast<std::size_t>(std::count(base.begin(), base.end(), '/'));
  detail::static_files_access::mounted_at(*files, base);
  routes.get(base + "/{path*}",
             [files, segments](request& req) { return files->respond(req, raw_remainder(req.raw_path(), segments)); });
  if (base.empty()) return;
  routes.get(base, [base](request& req) {
    return detail::local_redirect(req, status::moved_permanently, base, detail::add_slash::yes);
  });
}

}  // namespace stet

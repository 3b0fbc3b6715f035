#pragma once
// POST /upload (multipart/form-data) and PUT /upload/{name} (a raw body):
// bodies streamed to a directory through stet::read_body, in constant memory.

#include <stet/router.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace stet_server {

struct upload_config {
  std::string directory;  // exists and is writable (checked at start)
  std::uint64_t max_bytes = std::uint64_t{8} << 30;
  bool digest = true;  // --no-upload-digest: no SHA-256, "sha256": null in the answers
};

/// Told why an upload failed, with the server's paths (the client is told
/// what failed, never where). Empty: a line on stderr.
using upload_log = std::function<void(const std::string&)>;

void add_upload_routes(stet::router& routes, const upload_config& config, upload_log log = {});

/// Attempts to give an upload its final name (one link or rename each), since
/// the process started: what choosing unique names costs, for tests.
std::uint64_t upload_name_attempts() noexcept;

/// The directory uploads go to: `given`, checked to be a writable directory,
/// or a new private one under $TMPDIR (removed at exit: remove_upload_dir()). Empty `error` on success.
struct upload_dir_result {
  std::string path;
  std::string error;
};
upload_dir_result prepare_upload_dir(const std::string& given);

/// Removes the private directory prepare_upload_dir() made, with what was uploaded into it.
void remove_upload_dir(const std::string& path) noexcept;

}  // namespace stet_server

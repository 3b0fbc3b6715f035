// bench/e2e/peers/httplib_upload_server.cpp: cpp-httplib's streaming upload
// server for bench/e2e/upload.sh (Debian libcpp-httplib-dev: httplib.h and libcpp-httplib.so).
//
//   httplib_upload_server PORT DIR
//
// PUT /upload/NAME: the body, read through httplib's ContentReader as it
// arrives, is hashed with SHA-256 (OpenSSL EVP) and written to DIR/NAME.
// POST /upload: multipart/form-data, each file part hashed and written to
// DIR/<filename> the same way. Both answer 200 with the size and digest(s):
// the same work as stet-server's PUT /upload/{name} and POST /upload, with
// httplib's defaults otherwise (its thread pool, its read chunks).
#include <httplib.h>

#include <openssl/evp.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

// One file being received: an open FILE and a running SHA-256.
class hashed_file {
 public:
  explicit hashed_file(const std::string& path) : file_(std::fopen(path.c_str(), "wb")), ctx_(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr);
  }
  hashed_file(const hashed_file&) = delete;
  hashed_file& operator=(const hashed_file&) = delete;
  ~hashed_file() {
    if (file_ != nullptr) std::fclose(file_);
    EVP_MD_CTX_free(ctx_);
  }

  bool ok() const { return file_ != nullptr; }

  bool write(const char* data, std::size_t size) {
    EVP_DigestUpdate(ctx_, data, size);
    size_ += size;
    return std::fwrite(data, 1, size, file_) == size;
  }

  // Closes the file; returns "SIZE SHA256HEX", or "" when the close failed.
  std::string finish() {
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned length = 0;
    EVP_DigestFinal_ex(ctx_, digest, &length);
    if (!closed) return {};
    std::string out = std::to_string(size_) + ' ';
    char hex[3];
    for (unsigned i = 0; i < length; ++i) {
      std::snprintf(hex, sizeof hex, "%02x", digest[i]);
      out += hex;
    }
    return out;
  }

 private:
  std::FILE* file_;
  EVP_MD_CTX* ctx_;
  std::size_t size_ = 0;
};

// Only the last path component, never hidden: what stet's sanitize_filename
// guarantees, enough for a benchmark's fixed names.
std::string plain_name(const std::string& name) {
  const std::size_t slash = name.find_last_of("/\\");
  std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  if (base.empty() || base[0] == '.') base = "upload";
  return base;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PORT DIR\n", argv[0]);
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const std::string dir = argv[2];
  httplib::Server server;

  server.Put(R"(/upload/([^/]+))",
             [&](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
               hashed_file file(dir + "/" + plain_name(req.matches[1]));
               if (!file.ok()) {
                 res.status = 500;
                 return;
               }
               const bool read = reader([&](const char* data, std::size_t size) { return file.write(data, size); });
               const std::string summary = file.finish();
               res.status = read && !summary.empty() ? 200 : 500;
               res.set_content(summary + "\n", "text/plain");
             });

  server.Post("/upload",
              [&](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
                if (!req.is_multipart_form_data()) {
                  res.status = 415;
                  return;
                }
                std::unique_ptr<hashed_file> file;
                std::vector<std::string> summaries;
                bool failed = false;
                auto finish = [&] {
                  if (!file) return;
                  summaries.push_back(file->finish());
                  failed = failed || summaries.back().empty();
                  file.reset();
                };
                const bool read = reader(
                    [&](const httplib::MultipartFormData& part) {
                      finish();
                      if (part.filename.empty()) return true;  // a text part: read and dropped
                      file = std::make_unique<hashed_file>(dir + "/" + plain_name(part.filename));
                      return file->ok();
                    },
                    [&](const char* data, std::size_t size) { return !file || file->write(data, size); });
                finish();
                std::string body;
                for (const std::string& s : summaries) body += s + "\n";
                res.status = read && !failed ? 200 : 500;
                res.set_content(body, "text/plain");
              });

  if (!server.listen("127.0.0.1", port)) {
    std::fprintf(stderr, "httplib_upload_server: cannot listen on 127.0.0.1:%d\n", port);
    return 1;
  }
}

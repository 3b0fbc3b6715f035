// The small pure pieces of the static responder: MIME table, Accept-Encoding
// negotiation, content hashes, ETags, the built-in favicon.
#include "static/content_hash.hpp"
#include "static/encoding.hpp"
#include "static/favicon.hpp"
#include "static/file_entry.hpp"
#include "static/mime_table.hpp"

#include "support/static_tree.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

namespace {

using namespace stet::detail;

TEST(MimeTable, CommonWebTypes) {
  struct row {
    std::string_view path;
    std::string_view type;
  };
  const row rows[] = {
      {"index.html", "text/html; charset=utf-8"},
      {"a/b/c.htm", "text/html; charset=utf-8"},
      {"app.css", "text/css; charset=utf-8"},
      {"app.js", "text/javascript; charset=utf-8"},
      {"mod.mjs", "text/javascript; charset=utf-8"},
      {"data.json", "application/json"},
      {"logo.svg", "image/svg+xml"},
      {"p.png", "image/png"},
      {"p.jpg", "image/jpeg"},
      {"p.JPEG", "image/jpeg"},
      {"p.gif", "image/gif"},
      {"p.webp", "image/webp"},
      {"p.avif", "image/avif"},
      {"favicon.ico", "image/x-icon"},
      {"f.woff", "font/woff"},
      {"f.woff2", "font/woff2"},
      {"f.ttf", "font/ttf"},
      {"readme.txt", "text/plain; charset=utf-8"},
      {"feed.xml", "text/xml; charset=utf-8"},
      {"m.wasm", "application/wasm"},
      {"doc.pdf", "application/pdf"},
      {"app.js.map", "application/json"},
      {"UPPER.CSS", "text/css; charset=utf-8"},
      {"big.bin", "application/octet-stream"},
      {"noext", "application/octet-stream"},
      {"dir.d/noext", "application/octet-stream"},
      {"trailingdot.", "application/octet-stream"},
      {"x.averyveryverylongextension", "application/octet-stream"},
  };
  for (const row& r : rows) EXPECT_EQ(mime_type(r.path), r.type) << r.path;
}

TEST(AcceptEncoding, PicksTheBestAvailableSibling) {
  using c = sibling_coding;
  struct row {
    std::string_view header;
    bool br;
    bool gz;
    sibling_coding expected;
  };
  const row rows[] = {
      {"gzip, deflate, br", true, true, c::br},
      {"gzip, deflate, br", false, true, c::gzip},
      {"gzip, deflate, br", true, false, c::br},
      {"gzip, deflate, br", false, false, c::identity},
      {"gzip", true, true, c::gzip},
      {"br;q=0, gzip", true, true, c::gzip},
      {"br;q=0.5, gzip;q=0.8", true, true, c::gzip},
      {"br;q=1.0, gzip;q=1", true, true, c::br},
      {"BR", true, false, c::br},
      {"x-gzip", false, true, c::gzip},
      {"*", true, true, c::br},
      {"*;q=0", true, true, c::identity},
      {"*, br;q=0", true, true, c::gzip},
      {"identity", true, true, c::identity},
      {"", true, true, c::identity},
      {"br;q=2", true, false, c::identity},  // malformed q: member ignored
      {"br ; q=0.001", true, false, c::br},
      // The one Accept-Encoding parser (issue #25): the first mention of a coding
      // counts, and a client weighing identity higher gets identity, as a made variant.
      {"br;q=0.2, br, gzip;q=0.5", true, true, c::gzip},
      {"identity, br;q=0.5", true, true, c::identity},
  };
  for (const row& r : rows) {
    EXPECT_EQ(choose_coding(parse_accept_encoding(r.header), r.br, r.gz), r.expected) << r.header;
  }
}

TEST(ContentHash, First16HexOfSha256) {
  EXPECT_EQ(to_view(*hash_bytes("abc")), "ba7816bf8f01cfea");
  EXPECT_EQ(to_view(*hash_bytes("")), "e3b0c44298fc1c14");
}

TEST(ContentHash, FileHashMatchesBytesHash) {
  stet::test::temp_tree tree;
  const std::string bytes(200000, 'a');
  tree.write("f", bytes);
  const int fd = ::open(tree.path("f").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(to_view(*hash_file(fd, bytes.size())), "2287d207f24a941f");
  EXPECT_FALSE(hash_file(fd, bytes.size() + 1));  // shorter than promised
  ::close(fd);
}

TEST(Etag, ChangesWithEveryMemberOfTheIdentity) {
  const file_identity base{1, 2, 3, 4, 5};
  const auto tag = make_etag(base);
  EXPECT_EQ(tag.front(), '"');
  EXPECT_EQ(tag.back(), '"');
  EXPECT_EQ(make_etag(base), tag);
  for (int member = 0; member < 5; ++member) {
    file_identity changed = base;
    switch (member) {
      case 0: ++changed.dev; break;
      case 1: ++changed.ino; break;
      case 2: ++changed.size; break;
      case 3: ++changed.mtime_ns; break;
      default: ++changed.ctime_ns; break;
    }
    EXPECT_NE(make_etag(changed), tag) << member;
  }
}

TEST(Favicon, IsAValidIco) {
  const std::string ico = make_default_favicon();
  ASSERT_EQ(ico.size(), 1150u);
  EXPECT_EQ(ico.substr(0, 6), std::string_view("\0\0\1\0\1\0", 6));
  EXPECT_EQ(static_cast<unsigned char>(ico[6]), 16);   // width
  EXPECT_EQ(static_cast<unsigned char>(ico[18]), 22);  // image offset
  EXPECT_EQ(static_cast<unsigned char>(ico[22]), 40);  // BITMAPINFOHEADER size
}

}  // namespace

#include <stet/multipart.hpp>

#include "support/alloc_counter.hpp"
#include "support/multipart_collect.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using stet::multipart_event_kind;
using stet::multipart_parser;
using stet::test::collected_part;
using stet::test::multipart_outcome;
using stet::test::parse_multipart_cut;
using stet::test::parse_multipart_in_pieces;
using stet::test::parse_multipart_whole;

constexpr std::string_view boundary = "XyZ-boundary_42";
constexpr std::string_view content_type = "multipart/form-data; boundary=XyZ-boundary_42";

std::string disposition(std::string_view params) {
  return "Content-Disposition: form-data; " + std::string(params) + "\r\n";
}

// One part: its boundary line, header lines, the blank line and the data (the
// CRLF ending the data belongs to the next boundary line).
std::string part(std::string_view headers, std::string_view data) {
  return "--" + std::string(boundary) + "\r\n" + std::string(headers) + "\r\n" + std::string(data) + "\r\n";
}

std::string field(std::string_view name, std::string_view value) {
  return part(disposition("name=\"" + std::string(name) + "\""), value);
}

std::string close_delimiter() { return "--" + std::string(boundary) + "--"; }

std::string binary_data() {
  std::string data;
  for (int i = 0; i < 256; ++i) data += static_cast<char>(i);
  // Everything that starts like a delimiter without being one, then a CR right
  // before the real delimiter.
  data += "\r\n--\r\n-\n--XyZ-boundary_42\r\n--XyZ-bound\r\r\n--XyZ-boundary_4\r\n--XyZ-boundary_43--\r\n\r\n\r";
  return data;
}

std::string representative_body() {
  return "This is the preamble.\r\n--not the boundary\r\n" + field("title", "Hello, world") + field("empty", "") +
         part(disposition("name=\"upload\"; filename=\"photo.bin\"") + "Content-Type: application/octet-stream\r\n",
              binary_data()) +
         "--" + std::string(boundary) + " \t \r\n" + disposition("name=\"note\"") + "\r\nline1\r\nline2\r\n" +
         close_delimiter() + "\r\nThe epilogue: --XyZ-boundary_42\r\n";
}

collected_part text_part(std::string name, std::string data) {
  return {name, std::nullopt, "", {{"Content-Disposition", "form-data; name=\"" + name + "\""}}, data, true};
}

multipart_outcome representative_outcome() {
  multipart_outcome out;
  out.done = true;
  out.parts.push_back(text_part("title", "Hello, world"));
  out.parts.push_back(text_part("empty", ""));
  out.parts.push_back({"upload",
                       "photo.bin",
                       "application/octet-stream",
                       {{"Content-Disposition", "form-data; name=\"upload\"; filename=\"photo.bin\""},
                        {"Content-Type", "application/octet-stream"}},
                       binary_data(),
                       true});
  out.parts.push_back(text_part("note", "line1\r\nline2"));
  return out;
}

std::error_code whole_error(std::string_view body, stet::multipart_options limits = {}) {
  return parse_multipart_whole(content_type, body, limits).error;
}

TEST(Multipart, ParsesTheRepresentativeBodyInOnePiece) {
  EXPECT_EQ(parse_multipart_whole(content_type, representative_body()), representative_outcome());
}

TEST(Multipart, EveryTwoPieceSplitGivesTheSameParts) {
  const std::string body = representative_body();
  const multipart_outcome expected = representative_outcome();
  for (std::size_t cut = 1; cut < body.size(); ++cut) {
    ASSERT_EQ(parse_multipart_cut(content_type, body, cut), expected) << "cut at " << cut;
  }
}

TEST(Multipart, ByteByByteGivesTheSameParts) {
  const std::size_t one[] = {1};
  EXPECT_EQ(parse_multipart_in_pieces(content_type, representative_body(), one), representative_outcome());
}

TEST(Multipart, EveryThreePieceSplitAroundTheFileGivesTheSameParts) {
  const std::string body = representative_body();
  const multipart_outcome expected = representative_outcome();
  const std::size_t first = body.find("photo.bin");
  const std::size_t last = body.find("line1");
  for (std::size_t a = first; a < last; ++a) {
    for (std::size_t b = a + 1; b <= last; b += 3) {
      const std::size_t sizes[] = {a, b - a, body.size()};
      ASSERT_EQ(parse_multipart_in_pieces(content_type, body, sizes), expected) << a << "," << b;
    }
  }
}

TEST(Multipart, RandomSplitsGiveTheSameParts) {
  const std::string body = representative_body();
  const multipart_outcome expected = representative_outcome();
  std::mt19937 rng(15);
  std::uniform_int_distribution<std::size_t> size(1, 80);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::size_t> sizes(1 + round % 7);
    for (std::size_t& s : sizes) s = size(rng);
    ASSERT_EQ(parse_multipart_in_pieces(content_type, body, sizes), expected) << "round " << round;
  }
}

TEST(Multipart, EmptyPiecesAreHarmless) {
  multipart_parser p(content_type);
  multipart_outcome out;
  stet::test::multipart_collector collect(out);
  const auto visit = [&](const stet::multipart_event& e) { collect(p, e); };
  const std::string body = representative_body();
  EXPECT_EQ(p.consume("", visit), multipart_event_kind::need_more);
  for (char c : body) {
    if (p.consume(std::string_view(&c, 1), visit) != multipart_event_kind::need_more) break;
    p.consume("", visit);
  }
  EXPECT_EQ(out, representative_outcome());
}

TEST(Multipart, HoldsBackAtMostTheDelimiterMinusOneByte) {
  const std::string near(1000, '-');
  std::string data;
  while (data.size() < 4000) data += "\r\n--XyZ-boundary_4" + near.substr(0, data.size() % 7);
  const std::string body = field("f", data) + close_delimiter();
  multipart_parser p(content_type);
  std::size_t emitted = 0;
  const std::size_t data_start = body.find("\r\n\r\n") + 4;
  const std::size_t hold_limit = boundary.size() + 3;
  for (std::size_t i = 0; i < body.size(); ++i) {
    p.consume(std::string_view(&body[i], 1), [&](const stet::multipart_event& e) {
      if (e.kind == multipart_event_kind::part_data) emitted += e.data.size();
    });
    if (i >= data_start && i < data_start + data.size()) {
      ASSERT_LE(i + 1 - data_start - emitted, hold_limit) << "after byte " << i;
    }
  }
  EXPECT_EQ(emitted, data.size());
  EXPECT_TRUE(p.done());
}

TEST(Multipart, AllocatesNothingAfterConstruction) {
  const std::string body = representative_body();
  multipart_parser p(content_type);
  std::size_t events = 0;
  const stet::test::allocation_scope scope;
  for (std::size_t i = 0; i < body.size(); i += 7) {
    p.consume(std::string_view(body).substr(i, 7), [&](const stet::multipart_event&) { ++events; });
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_TRUE(p.done());
  EXPECT_GT(events, 10u);
}

TEST(Multipart, PreambleAndEpilogueAreIgnored) {
  const std::string body = "preamble --XyZ-boundary_42 not at a line start\r\n\r\n" + field("a", "1") +
                           close_delimiter() + "\r\n" + field("ignored", "x") + close_delimiter();
  const multipart_outcome out = parse_multipart_whole(content_type, body);
  ASSERT_TRUE(out.done) << out.error.message();
  ASSERT_EQ(out.parts.size(), 1u);
  EXPECT_EQ(out.parts[0].data, "1");
}

TEST(Multipart, InputAfterDoneIsIgnored) {
  multipart_parser p(content_type);
  const std::string body = field("a", "1") + close_delimiter();
  p.feed(body);
  while (p.next().kind != multipart_event_kind::done) {
  }
  p.feed("anything at all");
  EXPECT_EQ(p.next().kind, multipart_event_kind::done);
  p.finish();
  EXPECT_EQ(p.next().kind, multipart_event_kind::done);
  EXPECT_FALSE(p.error());
}

TEST(Multipart, EmptyPartsAndABodyWithoutParts) {
  const multipart_outcome out =
      parse_multipart_whole(content_type, field("a", "") + field("b", "") + field("c", "") + close_delimiter());
  ASSERT_TRUE(out.done);
  ASSERT_EQ(out.parts.size(), 3u);
  for (const collected_part& p : out.parts) EXPECT_EQ(p.data, "");
  const multipart_outcome none = parse_multipart_whole(content_type, close_delimiter());
  EXPECT_TRUE(none.done);
  EXPECT_TRUE(none.parts.empty());
}

TEST(Multipart, TransportPaddingAfterBoundaries) {
  const std::string body = "--XyZ-boundary_42 \t\r\n" + disposition("name=a") + "\r\n1\r\n--XyZ-boundary_42--  \r\n";
  const multipart_outcome out = parse_multipart_whole(content_type, body);
  ASSERT_TRUE(out.done) << out.error.message();
  EXPECT_EQ(out.parts.at(0).data, "1");
}

TEST(Multipart, BareLfIsRefused) {
  std::string lf = field("a", "1") + close_delimiter();
  for (std::size_t at; (at = lf.find("\r\n")) != std::string::npos;) lf.replace(at, 2, "\n");
  EXPECT_EQ(whole_error(lf), stet::error::bad_multipart);
  // A bare LF ending a part header line.
  EXPECT_EQ(
      whole_error("--XyZ-boundary_42\r\nContent-Disposition: form-data; name=a\n\r\n\r\n1\r\n" + close_delimiter()),
      stet::error::bad_multipart);
  // Data delimited by bare LF never meets its boundary.
  EXPECT_EQ(whole_error("--XyZ-boundary_42\r\n" + disposition("name=a") + "\r\n1\n--XyZ-boundary_42--"),
            stet::error::multipart_truncated);
}

TEST(Multipart, BareCrAndBytesAfterABoundaryAreRefused) {
  EXPECT_EQ(whole_error("--XyZ-boundary_42\r" + disposition("name=a")), stet::error::bad_multipart);
  EXPECT_EQ(whole_error("--XyZ-boundary_42x\r\n"), stet::error::bad_multipart);
  EXPECT_EQ(whole_error("--XyZ-boundary_42-\r\n"), stet::error::bad_multipart);
  EXPECT_EQ(whole_error(field("a", "1") + "--XyZ-boundary_42 x\r\n"), stet::error::bad_multipart);
  EXPECT_EQ(whole_error("--XyZ-boundary_42\r\nContent-Disposition: form-data; name=a\r\r\n\r\n"),
            stet::error::bad_multipart);
}

TEST(Multipart, MissingFinalBoundaryIsTruncated) {
  const std::string body = field("a", "1") + field("b", "22");
  for (std::size_t end :
       {std::size_t{0}, std::size_t{5}, std::size_t{20}, std::size_t{30}, body.size() - 3, body.size()}) {
    const multipart_outcome out = parse_multipart_whole(content_type, body.substr(0, end));
    EXPECT_EQ(out.error, stet::error::multipart_truncated) << "ending at " << end;
    EXPECT_FALSE(out.done);
  }
  EXPECT_EQ(whole_error(body + "--XyZ-boundary_42"), stet::error::multipart_truncated);
  EXPECT_EQ(whole_error(body + "--XyZ-boundary_42-"), stet::error::multipart_truncated);
  EXPECT_EQ(whole_error("no boundary anywhere"), stet::error::multipart_truncated);
  stet::multipart_error e;
  e.code = stet::error::multipart_truncated;
  EXPECT_EQ(e.status(), stet::status::bad_request);
}

TEST(Multipart, APartNeedsAFormDataName) {
  for (const std::string& headers :
       {std::string(), std::string("Content-Type: text/plain\r\n"), disposition("filename=\"a.txt\""),
        disposition("name=\"\""), std::string("Content-Disposition: attachment; name=\"a\"\r\n"),
        std::string("Content-Disposition: form-data\r\n")}) {
    const multipart_outcome out = parse_multipart_whole(content_type, part(headers, "x") + close_delimiter());
    EXPECT_EQ(out.error, stet::error::multipart_part_without_name) << headers;
    EXPECT_EQ(stet::http_status(stet::error::multipart_part_without_name), stet::status::bad_request);
  }
}

TEST(Multipart, MalformedPartHeadersAreRefused) {
  for (const std::string& headers : {
           disposition("name=a") + "No colon here\r\n",
           disposition("name=a") + "Bad Name: x\r\n",
           disposition("name=a") + " folded: x\r\n",
           disposition("name=a") + std::string("X-Nul: a\0b\r\n", 12),
           disposition("name=a") + disposition("name=b"),
           disposition("name=a") + "Content-Type: a\r\ncontent-type: b\r\n",
           disposition("name=a; name=b"),
           disposition("name=a; filename=x; filename=y"),
           disposition("name=\"a"),
           disposition("name=\"a\"x"),
           std::string("Content-Disposition: form-data; =x\r\n"),
       }) {
    const multipart_outcome out = parse_multipart_whole(content_type, part(headers, "x") + close_delimiter());
    EXPECT_EQ(out.error, stet::error::bad_multipart) << headers;
  }
}

TEST(Multipart, ReadsNameFilenameAndContentType) {
  const std::string body =
      part(
          "content-disposition: FORM-DATA ; Name=\"a \\\"b\\\"\" ; FILENAME=\"C:\\dir\\x.txt\"\r\n"
          "Content-Type:   text/csv  \r\nX-Extra: 1\r\n",
          "x") +
      part(disposition("name=plain; filename=unquoted name.txt"), "y") +
      part(disposition("name=f; filename=\"fallback.txt\"; filename*=UTF-8''%E2%82%AC%20rates.txt"), "z") +
      part(disposition("name=g; filename*=iso-8859-1'en'%A3.txt; filename=\"plain.txt\""), "") +
      part(disposition("name=e; filename=\"\""), "") + close_delimiter();
  const multipart_outcome out = parse_multipart_whole(content_type, body);
  ASSERT_TRUE(out.done) << out.error.message();
  ASSERT_EQ(out.parts.size(), 5u);
  EXPECT_EQ(out.parts[0].name, "a \"b\"");
  EXPECT_EQ(out.parts[0].filename, "C:\\dir\\x.txt");
  EXPECT_EQ(out.parts[0].content_type, "text/csv");
  EXPECT_EQ(out.parts[0].headers.size(), 3u);
  EXPECT_EQ(out.parts[1].name, "plain");
  EXPECT_EQ(out.parts[1].filename, "unquoted name.txt");
  EXPECT_EQ(out.parts[2].filename, "\xE2\x82\xAC rates.txt");
  EXPECT_EQ(out.parts[3].filename, "plain.txt");  // a charset other than UTF-8: filename* ignored
  EXPECT_EQ(out.parts[4].filename, "");           // a file input left empty
}

TEST(Multipart, RawHeadersStayAsSentWhenValuesAreDecoded) {
  const std::string cd = "form-data; name=\"a \\\"b\\\"\"; filename=\"q\\\\r\"; filename*=UTF-8''%41%42";
  const multipart_outcome out =
      parse_multipart_whole(content_type, part("Content-Disposition: " + cd + "\r\n", "") + close_delimiter());
  ASSERT_TRUE(out.done) << out.error.message();
  EXPECT_EQ(out.parts.at(0).name, "a \"b\"");
  EXPECT_EQ(out.parts.at(0).filename, "AB");
  EXPECT_EQ(out.parts.at(0).headers.at(0).second, cd);
}

TEST(Multipart, PartHeaderLookupIgnoresCase) {
  multipart_parser p(content_type);
  const std::string body = part(disposition("name=a") + "X-Thing: 7\r\n", "1") + close_delimiter();
  p.feed(body);
  ASSERT_EQ(p.next().kind, multipart_event_kind::part_begin);
  EXPECT_EQ(p.part().header("x-thing"), "7");
  EXPECT_FALSE(p.part().header("x-other"));
  EXPECT_FALSE(p.part().is_file());
}

TEST(Multipart, TheThousandPartLimit) {
  std::string body;
  for (int i = 0; i < 1000; ++i) body += field("f" + std::to_string(i), "v");
  const multipart_outcome ok = parse_multipart_whole(content_type, body + close_delimiter());
  EXPECT_TRUE(ok.done) << ok.error.message();
  EXPECT_EQ(ok.parts.size(), 1000u);
  const multipart_outcome over = parse_multipart_whole(content_type, body + field("one", "more") + close_delimiter());
  EXPECT_EQ(over.error, stet::error::too_many_multipart_parts);
  EXPECT_EQ(over.parts.size(), 1000u);
  EXPECT_EQ(stet::http_status(stet::error::too_many_multipart_parts), stet::status::payload_too_large);
}

TEST(Multipart, AHugePartHeaderIsRefused) {
  const std::string start = "--XyZ-boundary_42\r\n";
  const std::string cd = disposition("name=a");
  // The section, blank line included, exactly at the limit is fine...
  const std::size_t filler = 8 * 1024 - cd.size() - 2 - std::string_view("X-Pad: \r\n").size();
  const std::string at_limit = cd + "X-Pad: " + std::string(filler, 'p') + "\r\n";
  EXPECT_TRUE(parse_multipart_whole(content_type, start + at_limit + "\r\n1\r\n" + close_delimiter()).done);
  // ...one byte more is not, split or not.
  const std::string over = cd + "X-Pad: " + std::string(filler + 1, 'p') + "\r\n";
  const std::string body = start + over + "\r\n1\r\n" + close_delimiter();
  EXPECT_EQ(whole_error(body), stet::error::multipart_header_too_large);
  const std::size_t one[] = {1};
  EXPECT_EQ(parse_multipart_in_pieces(content_type, body, one).error, stet::error::multipart_header_too_large);
  // A megabyte of header never ends up buffered.
  EXPECT_EQ(whole_error(start + cd + "X-Pad: " + std::string(1 << 20, 'p')), stet::error::multipart_header_too_large);
  EXPECT_EQ(stet::http_status(stet::error::multipart_header_too_large), stet::status::payload_too_large);
}

TEST(Multipart, TooManyHeaderFieldsInAPart) {
  std::string headers = disposition("name=a");
  for (int i = 0; i < 15; ++i) headers += "X-" + std::to_string(i) + ": v\r\n";
  EXPECT_TRUE(parse_multipart_whole(content_type, part(headers, "1") + close_delimiter()).done);
  headers += "X-16: v\r\n";
  EXPECT_EQ(whole_error(part(headers, "1") + close_delimiter()), stet::error::multipart_header_too_large);
}

TEST(Multipart, PartAndTotalByteLimits) {
  stet::multipart_options limits;
  limits.max_part_bytes = 10;
  EXPECT_TRUE(parse_multipart_whole(content_type, field("a", "0123456789") + close_delimiter(), limits).done);
  EXPECT_EQ(whole_error(field("a", "0123456789x") + close_delimiter(), limits), stet::error::multipart_part_too_large);
  const std::string body = field("a", "1") + close_delimiter();
  limits = {};
  limits.max_total_bytes = body.size();
  EXPECT_TRUE(parse_multipart_whole(content_type, body, limits).done);
  limits.max_total_bytes = body.size() - 1;
  const std::size_t ten[] = {10};
  const multipart_outcome over = parse_multipart_in_pieces(content_type, body, ten, limits);
  EXPECT_EQ(over.error, stet::error::body_too_large);
  EXPECT_EQ(over.error_offset, body.size());
}

TEST(Multipart, ErrorsCarryStatusDetailAndOffset) {
  multipart_parser p(content_type);
  const std::string body = field("a", "1") + "--XyZ-boundary_42x";
  p.feed(body);
  multipart_event_kind k;
  while ((k = p.next().kind) != multipart_event_kind::failed) ASSERT_NE(k, multipart_event_kind::need_more);
  EXPECT_EQ(p.error().status(), stet::status::bad_request);
  EXPECT_EQ(p.error().offset, body.size() - 1);  // the 'x'
  EXPECT_EQ(p.error().message(),
            "malformed multipart/form-data body: a boundary followed by bytes other than padding, CRLF or \"--\" (at "
            "byte " +
                std::to_string(body.size() - 1) + ")");
  EXPECT_FALSE(p);
  EXPECT_EQ(p.next().kind, multipart_event_kind::failed);  // sticky
}

TEST(Multipart, ContentTypeErrorsNameNoBodyPosition) {
  const stet::multipart_error missing = stet::multipart_boundary("multipart/form-data").error;
  EXPECT_EQ(missing.message(), missing.code.message() + ": no boundary parameter");
  const stet::multipart_error other = stet::multipart_boundary("text/plain").error;
  EXPECT_EQ(other.message(), other.code.message() + ": the Content-Type is not multipart/form-data");
  multipart_parser p("multipart/form-data; boundary=");
  EXPECT_EQ(p.next().kind, multipart_event_kind::failed);
  EXPECT_EQ(p.error().message().find("at byte"), std::string::npos) << p.error().message();
}

TEST(Multipart, FeedingBeforeThePieceIsUsedUpIsACallerBug) {
  multipart_parser p(content_type);
  const std::string body = field("a", "1");
  p.feed(body);
  ASSERT_EQ(p.next().kind, multipart_event_kind::part_begin);
  p.feed("more");
  EXPECT_EQ(p.next().kind, multipart_event_kind::failed);
  EXPECT_EQ(p.error().code, stet::error::bad_request);
}

TEST(Multipart, MovingTheParserKeepsItsViews) {
  multipart_parser p(content_type);
  const std::string body = field("name", "v") + close_delimiter();
  p.feed(body);
  ASSERT_EQ(p.next().kind, multipart_event_kind::part_begin);
  multipart_parser q = std::move(p);
  EXPECT_EQ(q.part().name, "name");
  EXPECT_EQ(q.next().data, "v");
}

TEST(MultipartBoundary, ReadsTheParameter) {
  EXPECT_EQ(stet::multipart_boundary("multipart/form-data; boundary=abc").boundary, "abc");
  EXPECT_EQ(stet::multipart_boundary("Multipart/Form-Data;charset=utf-8;BOUNDARY=\"a b:c\"").boundary, "a b:c");
  EXPECT_EQ(stet::multipart_boundary("multipart/form-data ; boundary = x ; a=b").boundary, "x");
  const std::string seventy(70, 'b');
  EXPECT_EQ(stet::multipart_boundary("multipart/form-data; boundary=" + seventy).boundary, seventy);
  EXPECT_EQ(stet::multipart_boundary("multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW").boundary,
            "----WebKitFormBoundary7MA4YWxkTrZu0gW");
  multipart_parser p("multipart/form-data; boundary=\"q\"");
  EXPECT_EQ(p.boundary(), "q");
  EXPECT_TRUE(p);
}

TEST(MultipartBoundary, RefusesBadOnes) {
  for (const std::string& ct :
       {std::string("multipart/form-data"), std::string("multipart/form-data; charset=utf-8"),
        std::string("multipart/form-data; boundary="), std::string("multipart/form-data; boundary=\"\""),
        "multipart/form-data; boundary=" + std::string(71, 'b'), std::string("multipart/form-data; boundary=a!b"),
        std::string("multipart/form-data; boundary=\"ends in space \""),
        std::string("multipart/form-data; boundary=\"a\\\"b\""),
        std::string("multipart/form-data; boundary=a; boundary=a"),
        std::string("multipart/form-data; boundary=\"unterminated"), std::string("multipart/form-data; boundary")}) {
    const stet::multipart_boundary_result r = stet::multipart_boundary(ct);
    EXPECT_EQ(r.error.code, stet::error::bad_multipart_boundary) << ct;
    EXPECT_EQ(r.error.status(), stet::status::bad_request);
    multipart_parser p(ct);
    EXPECT_FALSE(p);
    EXPECT_EQ(p.next().kind, multipart_event_kind::failed);
  }
  const stet::multipart_boundary_result other = stet::multipart_boundary("application/json; boundary=x");
  EXPECT_EQ(other.error.code, stet::error::unsupported_media_type);
  EXPECT_EQ(other.error.status(), stet::status::unsupported_media_type);
  EXPECT_EQ(stet::multipart_boundary("").error.code, stet::error::unsupported_media_type);
}

struct filename_case {
  std::string_view raw;
  std::string_view safe;
};

TEST(MultipartFilename, KeepsOnlyTheLastComponentNeverDotsControlsOrHidden) {
  const filename_case cases[] = {
      {"../../etc/passwd", "passwd"},
      {"/abs/path/x.png", "x.png"},
      {"C:\\Users\\me\\evil.exe", "evil.exe"},
      {"mixed/dir\\..\\a.txt", "a.txt"},
      {"report 2024.pdf", "report 2024.pdf"},
      {"\xE2\x82\xAC.txt", "\xE2\x82\xAC.txt"},
      {"..", "upload"},
      {".", "upload"},
      {"a/..", "upload"},
      {"dir/", "upload"},
      {"", "upload"},
      {" . . ", "upload"},
      {".htaccess", "htaccess"},
      {"name. . .", "name"},
      {std::string_view("evil.php\0.jpg", 13), "evil.php_.jpg"},
      {"a\r\nb\x7f\t.txt", "a__b__.txt"},
      {std::string_view("\0", 1), "_"},
  };
  for (const filename_case& c : cases) EXPECT_EQ(stet::sanitize_filename(c.raw), c.safe) << c.raw;
  EXPECT_EQ(stet::sanitize_filename("..", "fallback.bin"), "fallback.bin");
}

TEST(MultipartFilename, BoundsTheLengthKeepingTheExtension) {
  const std::string long_name = std::string(300, 'a') + ".tar.gz";
  const std::string cut = stet::sanitize_filename(long_name);
  EXPECT_EQ(cut.size(), 255u);
  EXPECT_TRUE(cut.ends_with(".gz"));
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xE2\x82\xAC";
  const std::string utf8 = stet::sanitize_filename(euros + ".png");
  EXPECT_LE(utf8.size(), 255u);
  EXPECT_TRUE(utf8.ends_with(".png"));
  EXPECT_EQ((utf8.size() - 4) % 3, 0u);  // no euro sign cut in half
  EXPECT_EQ(stet::sanitize_filename(std::string(40, 'x'), "u", 1).size(), 32u);
  const std::string long_extension = "a." + std::string(300, 'e');
  EXPECT_EQ(stet::sanitize_filename(long_extension).size(), 255u);
}

}  // namespace

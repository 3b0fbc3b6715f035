// UTF-8 validation as text messages need it: RFC 3629's well-formed sequences
// only, checked incrementally with a character cut anywhere.
#include "websocket/utf8.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace {

using stet::detail::ws::is_valid_utf8;
using stet::detail::ws::utf8_validator;

// Every code point's encoding, written out by hand (not with a library that
// might share the validator's view of the edges).
std::string encode(char32_t c) {
  std::string s;
  if (c < 0x80) {
    s += static_cast<char>(c);
  } else if (c < 0x800) {
    s += static_cast<char>(0xc0 | (c >> 6));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else if (c < 0x10000) {
    s += static_cast<char>(0xe0 | (c >> 12));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  } else {
    s += static_cast<char>(0xf0 | (c >> 18));
    s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
    s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
    s += static_cast<char>(0x80 | (c & 0x3f));
  }
  return s;
}

TEST(WebsocketUtf8, AcceptsEveryScalarValue) {
  utf8_validator v;
  for (char32_t c = 0; c <= 0x10ffff; ++c) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    ASSERT_TRUE(v.feed(encode(c))) << std::hex << static_cast<unsigned>(c);
    ASSERT_TRUE(v.complete());
  }
}

TEST(WebsocketUtf8, RefusesSurrogatesOverlongsAndBeyondU10ffff) {
  for (char32_t c = 0xd800; c <= 0xdfff; c += 0x7f) EXPECT_FALSE(is_valid_utf8(encode(c)));
  const std::vector<std::string> bad = {
      "\xc0\x80",
      "\xc1\xbf",
      "\xe0\x80\x80",
      "\xe0\x9f\xbf",
      "\xf0\x80\x80\x80",
      "\xf0\x8f\xbf\xbf",
      "\xf4\x90\x80\x80",
      "\xf5\x80\x80\x80",
      "\xff",
      "\xfe",
      "\x80",
      "\xbf",
      "a\x80"
      "b",
      "\xe2\x28\xa1",
      "\xed\xa0\x80",
      "\xed\xbf\xbf",
      "\xf8\x88\x80\x80\x80",
  };
  for (const std::string& s : bad) EXPECT_FALSE(is_valid_utf8(s)) << s.size();
  EXPECT_TRUE(is_valid_utf8("\xed\x9f\xbf"));      // U+D7FF
  EXPECT_TRUE(is_valid_utf8("\xee\x80\x80"));      // U+E000
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF
  EXPECT_TRUE(is_valid_utf8(""));
}

TEST(WebsocketUtf8, TruncatedSequenceIsIncompleteNotInvalid) {
  utf8_validator v;
  EXPECT_TRUE(v.feed("ok \xf0\x9f"));
  EXPECT_FALSE(v.complete());
  EXPECT_FALSE(v.failed());
  EXPECT_TRUE(v.feed("\x98\x80"));
  EXPECT_TRUE(v.complete());
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"));
}

TEST(WebsocketUtf8, SameAnswerWhereverTheTextIsCut) {
  const std::vector<std::string> texts = {
      "plain ASCII, long enough for the eight-byte fast path to matter",
      "mixed: caf\xc3\xa9, \xe2\x82\xac 5, \xf0\x9f\x98\x80, \xe4\xb8\xad\xe6\x96\x87 and ASCII after it",
      "bad in the middle of ASCII: ........\xc3\x28........",
      "cut short at the end \xe2\x82",
      std::string(40, 'a') + "\xed\xa0\x80" + std::string(40, 'b'),
  };
  for (const std::string& text : texts) {
    const bool whole = is_valid_utf8(text);
    for (std::size_t cut = 0; cut <= text.size(); ++cut) {
      for (std::size_t cut2 = cut; cut2 <= text.size(); cut2 += 3) {
        utf8_validator v;
        const bool ok = v.feed(text.substr(0, cut)) & v.feed(text.substr(cut, cut2 - cut)) & v.feed(text.substr(cut2));
        EXPECT_EQ(ok && v.complete(), whole) << text << " cut at " << cut << "," << cut2;
      }
    }
  }
}

// The ASCII fast paths (32 and 8 bytes at a time) must hand every other byte
// to the DFA wherever it falls: a valid and an invalid sequence at every
// offset of a long ASCII run.
TEST(WebsocketUtf8, NonAsciiIsSeenAtEveryOffsetOfALongAsciiRun) {
  for (std::size_t at = 0; at <= 100; ++at) {
    const auto run_with = [at](std::string_view bytes, std::size_t tail) {
      std::string text(at, 'a');
      text.append(bytes);
      text.append(tail, 'b');
      return text;
    };
    EXPECT_TRUE(is_valid_utf8(run_with("\xc3\xa9", 100 - at))) << at;
    EXPECT_FALSE(is_valid_utf8(run_with("\xc3\x28", 100 - at))) << at;
    EXPECT_FALSE(is_valid_utf8(run_with("\xff", 100 - at))) << at;
    EXPECT_FALSE(is_valid_utf8(run_with("\xe2\x82", 0))) << at;  // cut short at the end
  }
}

TEST(WebsocketUtf8, FailureIsSticky) {
  utf8_validator v;
  EXPECT_FALSE(v.feed("\xff"));
  EXPECT_TRUE(v.failed());
  EXPECT_FALSE(v.feed("fine"));
  EXPECT_FALSE(v.complete());
  v.reset();
  EXPECT_TRUE(v.feed("fine"));
  EXPECT_TRUE(v.complete());
}

}  // namespace

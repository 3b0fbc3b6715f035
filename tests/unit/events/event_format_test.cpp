#include "events/event_format.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string wire(const stet::event& e) {
  std::string out;
  EXPECT_TRUE(stet::append_event(out, e));
  return out;
}

TEST(EventFormat, DataOnlyIsOneDataLineAndABlankLine) { EXPECT_EQ(wire({.data = "hello"}), "data: hello\n\n"); }

TEST(EventFormat, EveryLineBreakFormStartsANewDataLine) {
  EXPECT_EQ(wire({.data = "a\nb"}), "data: a\ndata: b\n\n");
  EXPECT_EQ(wire({.data = "a\rb"}), "data: a\ndata: b\n\n");
  EXPECT_EQ(wire({.data = "a\r\nb"}), "data: a\ndata: b\n\n");
  // LF CR is two breaks (an empty line between), CR CR LF likewise.
  EXPECT_EQ(wire({.data = "a\n\rb"}), "data: a\ndata: \ndata: b\n\n");
  EXPECT_EQ(wire({.data = "a\r\r\nb"}), "data: a\ndata: \ndata: b\n\n");
}

TEST(EventFormat, TrailingAndLeadingBreaksKeepTheirEmptyLines) {
  // The client joins data lines with LF: "a\n" must come back as "a\n".
  EXPECT_EQ(wire({.data = "a\n"}), "data: a\ndata: \n\n");
  EXPECT_EQ(wire({.data = "\r\na"}), "data: \ndata: a\n\n");
  EXPECT_EQ(wire({.data = "a\r"}), "data: a\ndata: \n\n");
}

TEST(EventFormat, EmptyDataStillDispatches) { EXPECT_EQ(wire({.data = ""}), "data: \n\n"); }

TEST(EventFormat, AllFields) {
  EXPECT_EQ(wire({.data = "x", .id = "42", .name = "tick", .retry = std::chrono::milliseconds(1500)}),
            "id: 42\nevent: tick\ndata: x\nretry: 1500\n\n");
}

TEST(EventFormat, ForbiddenCharactersInIdOrNameAreRefusedAndNothingIsWritten) {
  for (const std::string_view bad : {std::string_view("a\nb"), std::string_view("a\rb"), std::string_view("a\0b", 3)}) {
    std::string out = "kept";
    EXPECT_FALSE(stet::append_event(out, {.data = "x", .id = bad}));
    EXPECT_FALSE(stet::append_event(out, {.data = "x", .name = bad}));
    EXPECT_EQ(out, "kept");
  }
}

TEST(EventFormat, CommentsCannotBreakOutOfTheirLine) {
  std::string out;
  stet::detail::append_event_comment(out, "hi\r\ndata: injected");
  EXPECT_EQ(out, ": hi  data: injected\n\n");
  out.clear();
  stet::detail::append_event_comment(out, "");
  EXPECT_EQ(out, ":\n\n");
}

TEST(EventFormat, RetryAndGap) {
  std::string out;
  stet::detail::append_event_retry(out, std::chrono::milliseconds(2000));
  EXPECT_EQ(out, "retry: 2000\n\n");
  out.clear();
  stet::detail::append_gap_event(out, "17");
  EXPECT_EQ(out, "event: gap\ndata: 17\n\n");
}

}  // namespace

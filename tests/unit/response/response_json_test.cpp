#include <stet/response.hpp>

#include <stet/json.hpp>

#include "support/alloc_counter.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>

namespace {

using stet::response;
using stet::status;

struct greeting {
  std::string_view message;
};

void to_json(stet::json::writer& w, const greeting& g) { w.begin_object().member("message", g.message).end_object(); }

TEST(ResponseJson, ValueSetsContentTypeAndBody) {
  const response r = response::json(greeting{"Hello, World!"});
  EXPECT_EQ(r.status(), status::ok);
  EXPECT_EQ(r.body(), R"({"message":"Hello, World!"})");
  EXPECT_EQ(r.header_block(), "Content-Type: application/json\r\n");

  const response created = response::json(std::map<std::string, int>{{"id", 7}}, status::created);
  EXPECT_EQ(created.status(), status::created);
  EXPECT_EQ(created.body(), R"({"id":7})");
}

TEST(ResponseJson, WriterCallback) {
  const int id = 12;
  const response r = response::json([&](stet::json::writer& w) { w.begin_object().member("id", id).end_object(); });
  EXPECT_EQ(r.body(), R"({"id":12})");
  EXPECT_EQ(r.header("content-type"), "application/json");

  const response accepted = response::json([](stet::json::writer& w) { w.value(nullptr); }, status::accepted);
  EXPECT_EQ(accepted.status(), status::accepted);
  EXPECT_EQ(accepted.body(), "null");
}

TEST(ResponseJson, WriterProblemsGiveA500) {
  const response unclosed = response::json([](stet::json::writer& w) { w.begin_object(); });
  EXPECT_EQ(unclosed.status(), status::internal_server_error);
  EXPECT_EQ(unclosed.body(), R"({"error":"JSON serialisation failed","reason":"incomplete document"})");
  EXPECT_EQ(unclosed.header("Content-Type"), "application/json");

  const response misuse = response::json([](stet::json::writer& w) { w.begin_object().number(1).end_object(); });
  EXPECT_EQ(misuse.status(), status::internal_server_error);
  EXPECT_NE(misuse.body().find("key was expected"), std::string_view::npos);
}

// The /json hot path: after warm-up, building the response takes pooled buffers only.
TEST(ResponseJson, SmallResponseAllocatesNothingInSteadyState) {
  for (int i = 0; i < 10; ++i) response::json(greeting{"Hello, World!"});
  stet::test::allocation_scope scope;
  std::size_t bytes = 0;
  for (int i = 0; i < 1000; ++i) {
    const response r = response::json(greeting{"Hello, World!"});
    bytes += r.body().size();
  }
  EXPECT_EQ(scope.count(), 0u);
  EXPECT_EQ(bytes, 1000u * 27u);
}

}  // namespace

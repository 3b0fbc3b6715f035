#include <stet/error.hpp>
#include <stet/request.hpp>
#include <stet/response.hpp>
#include <stet/signer.hpp>
#include <stet/test_request.hpp>

#include "counters/memo_stats.hpp"
#include "request/cookie_cache.hpp"
#include "request/header_names.hpp"
#include "support/alloc_counter.hpp"
#include "support/request_builder.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using stet::detail::this_thread_memo_stats;
using stet::test::request_builder;
using fields = std::vector<std::pair<std::string, std::string>>;

const fields browser_fields = {
    {"Host", "example.com"},
    {"User-Agent", "Mozilla/5.0"},
    {"Accept", "text/html"},
    {"accept-language", "en-US"},
    {"Cookie", "sid=abc123; theme=dark; sid=second"},
    {"X-Forwarded-For", "10.0.0.1"},
    {"X-Forwarded-For", "10.0.0.2"},
};

TEST(RequestHeaders, CaseInsensitiveMultimap) {
  request_builder b;
  const stet::request& req = b.load(browser_fields);
  const stet::header_map& h = req.headers();
  EXPECT_EQ(h.size(), browser_fields.size());
  EXPECT_EQ(h.get("host"), "example.com");
  EXPECT_EQ(h.get("HOST"), "example.com");
  EXPECT_EQ(h.get("Accept-Language"), "en-US");
  EXPECT_TRUE(h.contains("user-agent"));
  EXPECT_FALSE(h.get("Referer"));
  const auto xff = h.get_all("x-forwarded-for");
  ASSERT_EQ(xff.size(), 2u);
  EXPECT_EQ(xff[0].value, "10.0.0.1");
  EXPECT_EQ(xff[1].value, "10.0.0.2");
  EXPECT_EQ(xff[0].name, "x-forwarded-for");
  for (std::size_t i = 1; i < h.sorted().size(); ++i) EXPECT_LE(h.sorted()[i - 1].name, h.sorted()[i].name);
}

TEST(RequestHeaders, SecondAccessIsTheSameObjectWithoutRebuilding) {
  request_builder b;
  const stet::request& req = b.load(browser_fields);
  const std::uint64_t builds = this_thread_memo_stats().header_builds;
  const stet::header_map* first = &req.headers();
  for (int i = 0; i < 10; ++i) EXPECT_EQ(&req.headers(), first);
  EXPECT_EQ(this_thread_memo_stats().header_builds, builds + 1);
}

TEST(RequestHeaders, LowercaseNamesAreUsedAsIsAndOthersComeFromTheCache) {
  request_builder b;
  const stet::request& req = b.load({{"accept-language", "en"}, {"Content-Type", "text/plain"}});
  const stet::header_field& raw_lower = req.header_fields()[0];
  const auto lower = req.headers().get_all("accept-language");
  ASSERT_EQ(lower.size(), 1u);
  EXPECT_EQ(lower[0].name.data(), raw_lower.name.data());  // returned as is

  const std::string_view cached = req.headers().get_all("content-type")[0].name;
  EXPECT_EQ(cached, "content-type");
  EXPECT_NE(cached.data(), req.header_fields()[1].name.data());  // a copy, not a view into the request
  // The next request spells it the same way: same cached copy, no arena copy.
  const stet::request& next = b.load({{"CONTENT-TYPE", "x"}, {"Content-Type", "y"}});
  EXPECT_EQ(next.headers().get_all("content-type")[0].name.data(), cached.data());
  EXPECT_EQ(next.headers().get_all("content-type")[1].name.data(), cached.data());
}

TEST(RequestHeaders, NameCacheIsBoundedAndStillCorrectWhenFull) {
  request_builder b;
  for (int round = 0; round < 4; ++round) {
    fields many;
    for (int i = 0; i < 100; ++i) many.push_back({"X-Name-" + std::to_string(round * 100 + i), std::to_string(i)});
    many.push_back({std::string("X-") + std::string(100, 'L'), "long"});  // over the cached length
    const stet::request& req = b.load(many);
    EXPECT_EQ(req.headers().get("x-name-" + std::to_string(round * 100 + 42)), "42");
    EXPECT_EQ(req.headers().get(std::string("x-") + std::string(100, 'l')), "long");
    EXPECT_LE(stet::detail::header_name_cache_size(), stet::detail::header_name_cache_capacity);
  }
  EXPECT_EQ(stet::detail::header_name_cache_size(), stet::detail::header_name_cache_capacity);
}

TEST(RequestHeaders, EmptyRequest) {
  request_builder b;
  const stet::request& req = b.load({});
  EXPECT_TRUE(req.headers().empty());
  EXPECT_FALSE(req.headers().get("host"));
  EXPECT_TRUE(req.cookies().empty());
  EXPECT_TRUE(req.query().empty());
}

TEST(RequestCookies, MemoisedPerRequestAndCachedAcrossRequests) {
  stet::detail::cookie_cache_clear();
  request_builder b;
  const stet::request& req = b.load(browser_fields);
  const std::uint64_t parses = this_thread_memo_stats().cookie_parses;
  const stet::cookie_jar* jar = &req.cookies();
  EXPECT_EQ(&req.cookies(), jar);
  EXPECT_EQ(&req.cookies(), jar);
  EXPECT_EQ(this_thread_memo_stats().cookie_parses, parses + 1);
  EXPECT_EQ(jar->get("sid"), "abc123");
  EXPECT_EQ(jar->get_all("sid").size(), 2u);

  // Same Cookie bytes on a later request (another buffer): no parse at all, and
  // the views point into that request's own header.
  const stet::request& next = b.load(browser_fields);
  const std::uint64_t hits = this_thread_memo_stats().cookie_cache_hits;
  EXPECT_EQ(next.cookies().get("theme"), "dark");
  EXPECT_EQ(this_thread_memo_stats().cookie_parses, parses + 1);
  EXPECT_EQ(this_thread_memo_stats().cookie_cache_hits, hits + 1);
  const std::string_view header = *next.header("cookie");
  const std::string_view theme = *next.cookies().get("theme");
  EXPECT_TRUE(theme.data() >= header.data() && theme.data() < header.data() + header.size());
}

TEST(RequestCookies, SeveralCookieFieldsAreJoined) {
  request_builder b;
  const stet::request& req = b.load({{"Cookie", "a=1; b=2"}, {"Host", "x"}, {"cookie", "c=3; a=4"}});
  EXPECT_EQ(req.cookies().size(), 4u);
  EXPECT_EQ(req.cookies().get("a"), "1");
  EXPECT_EQ(req.cookies().get_all("a")[1].value, "4");
  EXPECT_EQ(req.cookies().get("c"), "3");
}

TEST(RequestQuery, MemoisedPerRequest) {
  request_builder b;
  const stet::request& req = b.load({}, "q=a+b&page=2&tag=x&tag=y");
  const std::uint64_t parses = this_thread_memo_stats().urlencoded_parses;
  const stet::form_data* q = &req.query();
  for (int i = 0; i < 30; ++i) EXPECT_EQ(&req.query(), q);
  EXPECT_EQ(this_thread_memo_stats().urlencoded_parses, parses + 1);
  EXPECT_EQ(q->get("q"), "a b");
  EXPECT_EQ(q->get_all("tag").size(), 2u);
}

TEST(RequestMemos, BeginRequestForgetsTheLastRequest) {
  request_builder b;
  stet::request& req = b.load({{"Cookie", "a=1"}, {"X-A", "1"}}, "q=1");
  EXPECT_EQ(req.cookies().get("a"), "1");
  EXPECT_EQ(req.headers().get("x-a"), "1");
  EXPECT_EQ(req.query().get("q"), "1");
  // The connection reuses the same request object for the next request.
  stet::request& next = b.load({{"Cookie", "a=2"}, {"X-A", "2"}}, "q=2");
  ASSERT_EQ(&next, &req);
  EXPECT_EQ(next.cookies().get("a"), "2");
  EXPECT_EQ(next.headers().get("x-a"), "2");
  EXPECT_EQ(next.query().get("q"), "2");
}

TEST(RequestMemos, TestRequestKeepsMemosFresh) {
  stet::test_request t(stet::method::post, "/login?a=1");
  t.header("Cookie", "sid=1");
  const stet::request& req = t;
  EXPECT_EQ(req.cookies().get("sid"), "1");
  EXPECT_FALSE(req.headers().contains("x-late"));
  t.header("X-Late", "yes");  // a field added after a memo was built
  EXPECT_EQ(req.headers().get("x-late"), "yes");
  t.header("Content-Type", "application/json").body(R"({"id":"bob"})");
  EXPECT_EQ(req.json()->find("id")->as_string(), "bob");
  t.reset_arena();  // the memos lived in the arena
  EXPECT_EQ(req.query().get("a"), "1");
  EXPECT_EQ(req.json()->find("id")->as_string(), "bob");
}

TEST(RequestMemos, SteadyStateAllocatesNothing) {
  request_builder b;
  const fields f = {{"Host", "example.com"},
                    {"User-Agent", "Mozilla/5.0"},
                    {"Accept", "*/*"},
                    {"Cookie", "sid=abc; theme=dark; lang=en"},
                    {"X-Requested-With", "fetch"}};
  stet::request& req = b.load(f, "a=1&b=two+words&c=%E2%9C%93");
  (void)req.headers();
  (void)req.cookies();
  (void)req.query();  // warm: name cache, cookie cache
  const stet::test::allocation_scope scope;
  for (int i = 0; i < 100; ++i) {
    stet::request& r = b.again();
    for (int k = 0; k < 10; ++k) EXPECT_EQ(r.headers().get("user-agent"), "Mozilla/5.0");
    for (int k = 0; k < 3; ++k) EXPECT_EQ(r.cookies().get("theme"), "dark");
    for (int k = 0; k < 30; ++k) EXPECT_EQ(r.query().get("b"), "two words");
  }
  EXPECT_EQ(scope.count(), 0u);
}

TEST(RequestForm, ReadsUrlencodedBodies) {
  request_builder b;
  const stet::request& req =
      b.load({{"Content-Type", "application/x-www-form-urlencoded; charset=UTF-8"}}, "", "user=al+ice&pw=%26x");
  const std::uint64_t parses = this_thread_memo_stats().urlencoded_parses;
  const stet::form_result& form = req.form();
  ASSERT_TRUE(form);
  EXPECT_EQ(&req.form(), &form);
  EXPECT_EQ(this_thread_memo_stats().urlencoded_parses, parses + 1);
  EXPECT_EQ(form->get("user"), "al ice");
  EXPECT_EQ(form->get("pw"), "&x");
  EXPECT_EQ(form.status(), stet::status::ok);
}

TEST(RequestForm, WrongTypeAndTooManyFieldsAreErrorValues) {
  request_builder b;
  EXPECT_EQ(b.load({}, "", "a=1").form().error(), stet::error::unsupported_media_type);
  EXPECT_EQ(b.load({{"Content-Type", "multipart/form-data; boundary=x"}}, "", "a=1").form().status(),
            stet::status::unsupported_media_type);
  std::string body;
  for (std::size_t i = 0; i <= stet::default_form_max_fields; ++i) body += "k=v&";
  const stet::request& req = b.load({{"Content-Type", "application/x-www-form-urlencoded"}}, "", body);
  EXPECT_EQ(req.form().error(), stet::error::too_many_form_fields);
  EXPECT_EQ(req.form().status(), stet::status::payload_too_large);
  EXPECT_TRUE(req.form()->empty());
}

TEST(RequestJson, ParsedOnceAndMemoised) {
  request_builder b;
  const stet::request& req = b.load({{"Content-Type", "application/json; charset=utf-8"}}, "", R"({"id":"alice"})");
  const std::uint64_t parses = this_thread_memo_stats().json_parses;
  const stet::json_result& body = req.json();
  ASSERT_TRUE(body) << body.detail();
  EXPECT_EQ(&req.json(), &body);
  EXPECT_EQ(this_thread_memo_stats().json_parses, parses + 1);
  EXPECT_EQ(body->find("id")->as_string(), "alice");
}

TEST(RequestJson, ErrorsAreValuesWithTheirStatus) {
  request_builder b;
  const std::uint64_t parses = this_thread_memo_stats().json_parses;
  const stet::request& bad = b.load({{"Content-Type", "application/json"}}, "", R"({"id":)");
  EXPECT_EQ(bad.json().error(), stet::error::invalid_json);
  EXPECT_EQ(bad.json().status(), stet::status::bad_request);
  EXPECT_EQ(this_thread_memo_stats().json_parses, parses + 1);  // the failure is memoised too

  EXPECT_EQ(b.load({{"Content-Type", "text/plain"}}, "", "{}").json().status(), stet::status::unsupported_media_type);
  EXPECT_EQ(b.load({}, "", "{}").json().error(), stet::error::unsupported_media_type);
  EXPECT_TRUE(b.load({{"content-type", "Application/Problem+JSON"}}, "", "{}").json());
  EXPECT_EQ(b.load({{"Content-Type", "application/json"}}, "", "").json().error(), stet::error::invalid_json);
  EXPECT_EQ(b.load({{"Content-Type", "application/json"}}, "", "\"\xff\"").json().error(), stet::error::invalid_json);

  const stet::request& big = b.load({{"Content-Type", "application/json"}}, "", "[1,2,3,4]");
  EXPECT_TRUE(big.json());
  EXPECT_EQ(big.json(8).error(), stet::error::body_too_large);  // the limit is checked on every call
  EXPECT_EQ(big.json(8).status(), stet::status::payload_too_large);
}

TEST(RequestSignedCookie, RoundTripThroughSetCookie) {
  const stet::signer s({"secret"}, "actor");
  const std::string value = "alice \"the\" admin; caf\xc3\xa9";
  stet::response res;
  ASSERT_FALSE(res.set_signed_cookie(s, "actor", value));
  const std::string_view line = res.header_block();
  ASSERT_EQ(line.substr(0, 18), "Set-Cookie: actor=");
  const std::string cookie_value(line.substr(18, line.find(';') - 18));

  request_builder b;
  const stet::request& req = b.load({{"Cookie", "other=1; actor=" + cookie_value}});
  EXPECT_EQ(req.signed_cookie(s, "actor"), value);
  EXPECT_FALSE(req.signed_cookie(stet::signer({"secret"}, "session"), "actor"));
  EXPECT_FALSE(req.signed_cookie(stet::signer({"other"}, "actor"), "actor"));

  std::string tampered = cookie_value;
  tampered[0] = tampered[0] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(b.load({{"Cookie", "actor=" + tampered}}).signed_cookie(s, "actor"));
}

TEST(RequestSignedCookie, AbsentOrEmptyCookieDoesNoMacWork) {
  const stet::signer s({"secret"}, "actor");
  request_builder b;
  const std::uint64_t macs = this_thread_memo_stats().macs;
  EXPECT_FALSE(b.load({}).signed_cookie(s, "actor"));
  EXPECT_FALSE(b.load({{"Cookie", "actor="}}).signed_cookie(s, "actor"));
  EXPECT_FALSE(b.load({{"Cookie", "actor=garbage"}}).signed_cookie(s, "actor"));
  EXPECT_EQ(this_thread_memo_stats().macs, macs);
}

TEST(RequestSignedCookie, EmptyValueAndTimestampedSigner) {
  const stet::signer s({"secret"}, "actor", {.max_age = std::chrono::hours(1)});
  stet::response res;
  ASSERT_FALSE(res.set_signed_cookie(s, "a", ""));
  ASSERT_FALSE(res.set_signed_cookie(s, "b", "bob"));
  EXPECT_EQ(res.set_signed_cookie(s, "bad name", "x"), stet::error::invalid_cookie_name);
  std::string cookie_header;
  std::string_view block = res.header_block();
  while (!block.empty()) {
    const std::size_t start = block.find(": ") + 2;
    if (!cookie_header.empty()) cookie_header += "; ";
    cookie_header += block.substr(start, block.find(';') - start);
    block.remove_prefix(block.find("\r\n") + 2);
  }
  request_builder b;
  const stet::request& req = b.load({{"Cookie", cookie_header}});
  EXPECT_EQ(req.signed_cookie(s, "a"), "");
  EXPECT_EQ(req.signed_cookie(s, "b"), "bob");
}

}  // namespace

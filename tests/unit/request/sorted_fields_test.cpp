// The lookups header_map, cookie_jar and form_data share, on lists made up
// here: both name orders, both search strategies (a scan up to 16 fields, a
// binary search beyond), runs at either end, names that are prefixes of
// others, and the empty name.
#include <stet/detail/sorted_fields.hpp>

#include <stet/form.hpp>
#include <stet/headers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using stet::detail::name_case;

template <class Field, name_case Case>
struct probe : stet::detail::sorted_fields<Field, Case> {
  explicit probe(std::span<const Field> sorted) noexcept : stet::detail::sorted_fields<Field, Case>(sorted) {}
};
using exact_probe = probe<stet::form_field, name_case::exact>;
using folded_probe = probe<stet::header_field, name_case::ascii_insensitive>;

// `count` distinct names "n00".."nNN" plus the given extras, sorted by name
// (stable: extras with one name keep their order).
template <class Field>
std::vector<Field> sorted_list(std::size_t count, const std::vector<Field>& extras) {
  static std::vector<std::string> names;  // storage for the generated names
  names.resize(std::max(names.size(), count));
  std::vector<Field> fields;
  for (std::size_t i = 0; i < count; ++i) {
    names[i] = "n" + std::to_string(100 + i).substr(1);
    fields.push_back(Field{names[i], "v"});
  }
  fields.insert(fields.end(), extras.begin(), extras.end());
  std::stable_sort(fields.begin(), fields.end(), [](const Field& a, const Field& b) { return a.name < b.name; });
  return fields;
}

TEST(SortedFields, EmptyListFindsNothing) {
  const exact_probe p({});
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.size(), 0u);
  EXPECT_FALSE(p.get("a"));
  EXPECT_FALSE(p.get(""));
  EXPECT_TRUE(p.get_all("a").empty());
  EXPECT_FALSE(p.contains("a"));
}

TEST(SortedFields, RunsKeepArrivalOrderInBothStrategies) {
  for (const std::size_t filler : {0u, 5u, 13u, 14u, 15u, 16u, 40u}) {
    const auto fields = sorted_list<stet::form_field>(
        filler, {{"a", "1"}, {"zz", "first"}, {"zz", "second"}, {"a", "2"}, {"m", "only"}});
    const exact_probe p(fields);
    EXPECT_EQ(p.size(), filler + 5) << filler;
    EXPECT_FALSE(p.empty());
    EXPECT_EQ(p.get("a"), "1") << filler;  // the run at the front
    ASSERT_EQ(p.get_all("a").size(), 2u) << filler;
    EXPECT_EQ(p.get_all("a")[1].value, "2");
    EXPECT_EQ(p.get("zz"), "first") << filler;  // the run at the back
    EXPECT_EQ(p.get_all("zz").size(), 2u) << filler;
    EXPECT_EQ(p.get("m"), "only") << filler;
    EXPECT_EQ(p.get_all("m").size(), 1u) << filler;
    // Absent: before everything, between names, after everything.
    for (const std::string_view absent : {"0", "b", "n", "n0", "zzz", "~"}) {
      EXPECT_FALSE(p.get(absent)) << filler << ' ' << absent;
      EXPECT_TRUE(p.get_all(absent).empty()) << filler << ' ' << absent;
      EXPECT_FALSE(p.contains(absent)) << filler << ' ' << absent;
    }
    EXPECT_EQ(p.sorted().size(), p.size());
  }
}

TEST(SortedFields, PrefixesAndTheEmptyNameAreNamesOfTheirOwn) {
  for (const std::size_t filler : {0u, 30u}) {
    const auto fields = sorted_list<stet::form_field>(filler, {{"", "empty"}, {"ab", "2"}, {"a", "1"}, {"abc", "3"}});
    const exact_probe p(fields);
    EXPECT_EQ(p.get(""), "empty") << filler;
    EXPECT_EQ(p.get("a"), "1") << filler;
    EXPECT_EQ(p.get("ab"), "2") << filler;
    EXPECT_EQ(p.get("abc"), "3") << filler;
    EXPECT_EQ(p.get_all("ab").size(), 1u) << filler;
    EXPECT_FALSE(p.get("abcd")) << filler;
  }
}

TEST(SortedFields, ExactNamesAreCaseSensitive) {
  const auto fields = sorted_list<stet::form_field>(20, {{"Name", "upper"}, {"name", "lower"}});
  const exact_probe p(fields);
  EXPECT_EQ(p.get("Name"), "upper");
  EXPECT_EQ(p.get("name"), "lower");
  EXPECT_FALSE(p.get("NAME"));
}

TEST(SortedFields, FoldedKeysMatchLowercaseNames) {
  for (const std::size_t filler : {0u, 16u, 17u, 50u}) {
    const auto fields = sorted_list<stet::header_field>(
        filler, {{"accept", "*/*"}, {"x-a", "1"}, {"x-a", "2"}, {"content-type", "text/plain"}});
    const folded_probe p(fields);
    EXPECT_EQ(p.get("Accept"), "*/*") << filler;
    EXPECT_EQ(p.get("CONTENT-TYPE"), "text/plain") << filler;
    EXPECT_EQ(p.get("x-a"), "1") << filler;
    ASSERT_EQ(p.get_all("X-A").size(), 2u) << filler;
    EXPECT_EQ(p.get_all("X-A")[1].value, "2");
    EXPECT_EQ(p.get("N00"), filler == 0 ? std::nullopt : std::optional<std::string_view>("v")) << filler;
    EXPECT_FALSE(p.get("x-b")) << filler;
    EXPECT_FALSE(p.get("accep")) << filler;
  }
}

TEST(SortedFields, PublicClassesExposeTheSameLookups) {
  // form_data over the base: size() counts repeats, all() keeps the given order.
  std::pmr::monotonic_buffer_resource arena;
  const stet::form_data f = stet::parse_urlencoded("b=1&a=2&b=3", arena);
  EXPECT_EQ(f.size(), 3u);
  EXPECT_EQ(f.get("b"), "1");
  EXPECT_EQ(f.get_all("b").size(), 2u);
  EXPECT_TRUE(f.contains("a"));
  EXPECT_EQ(f.all()[0].name, "b");
  EXPECT_EQ(f.sorted()[0].name, "a");
  const stet::header_field raw[] = {{"Host", "x"}, {"X-Y", "1"}};
  const stet::header_map h = stet::index_headers(raw, arena);
  EXPECT_EQ(h.get("host"), "x");
  EXPECT_EQ(h.sorted()[1].name, "x-y");
  EXPECT_EQ(stet::header_map().size(), 0u);
  EXPECT_TRUE(stet::form_data().empty());
}

}  // namespace

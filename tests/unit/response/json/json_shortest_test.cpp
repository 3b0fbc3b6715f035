// The JSON writer's fast shortest-double path against std::to_chars, which it
// must match character for character.
#include "response/json/shortest_double.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <string_view>

namespace {

using stet::json::detail::shortest_double_room;
using stet::json::detail::write_shortest;
using stet::json::detail::write_shortest_fast;

std::string reference(double x) {
  std::array<char, shortest_double_room> text;
  const char* end = std::to_chars(text.data(), text.data() + text.size(), x).ptr;
  return {text.data(), static_cast<std::size_t>(end - text.data())};
}

// Empty when the fast path declines.
std::string fast(double x) {
  std::array<char, shortest_double_room> text;
  const char* end = write_shortest_fast(text.data(), x);
  return end == nullptr ? std::string() : std::string(text.data(), static_cast<std::size_t>(end - text.data()));
}

std::string full(double x) {
  std::array<char, shortest_double_room> text;
  const char* end = write_shortest(text.data(), x);
  return {text.data(), static_cast<std::size_t>(end - text.data())};
}

void expect_same(double x) {
  const std::string f = fast(x);
  if (!f.empty()) {
    ASSERT_EQ(f, reference(x)) << std::bit_cast<std::uint64_t>(x);
  }
  ASSERT_EQ(full(x), reference(x)) << std::bit_cast<std::uint64_t>(x);
}

constexpr std::array<double, 23> powers = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                           1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

}  // namespace

TEST(JsonShortest, HandPickedValuesMatchToChars) {
  const double values[] = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.1,
                           0.2,
                           0.3,
                           0.1 + 0.2,
                           1.5,
                           123.45,
                           -0.123,
                           0.001,
                           0.0001,
                           0.00012,
                           1e-7,
                           9.99e-8,
                           1e-5,
                           1e14,
                           1e15,
                           999999999999999.0,
                           99999999999999.9,
                           123456789012345.0,
                           12345678901234.5,
                           100000.0,
                           1000000.0,
                           1234567.0,
                           120000.0,
                           5e-324,
                           2.2250738585072014e-308,
                           1.7976931348623157e308,
                           1e21,
                           1e22,
                           9007199254740993.0,
                           0.30000000000000004,
                           2.0 / 3.0,
                           52.520008,
                           13.404954,
                           -0.5,
                           899.99,
                           0.999,
                           9.999999999999999,
                           0.09999999999999999};
  for (double x : values) {
    expect_same(x);
    expect_same(-x);
    expect_same(std::nextafter(x, 0.0));
    expect_same(std::nextafter(x, std::numeric_limits<double>::infinity()));
  }
}

TEST(JsonShortest, FastPathMatchesToCharsOnDecimalValues) {
  std::mt19937_64 rng(7);
  int taken = 0;
  int eligible = 0;
  for (int i = 0; i < 300000; ++i) {
    const int digits = 1 + static_cast<int>(rng() % 15);
    const std::uint64_t m = rng() % static_cast<std::uint64_t>(powers[static_cast<std::size_t>(digits)]);
    const int scale = static_cast<int>(rng() % 23);
    const double x = static_cast<double>(m) / powers[static_cast<std::size_t>(scale)];
    expect_same(x);
    expect_same(std::nextafter(x, 0.0));
    // Up to 15 digits in the fast path's range and written in fixed
    // notation by to_chars: the fast path must not decline.
    if (x >= 1e-7 && x < 1e15 && reference(x).find('e') == std::string::npos) {
      ++eligible;
      if (!fast(x).empty()) ++taken;
    }
  }
  EXPECT_GT(eligible, 100000);
  EXPECT_EQ(taken, eligible);
}

TEST(JsonShortest, RandomBitPatternsMatchToChars) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const double x = std::bit_cast<double>(rng());
    if (std::isfinite(x)) expect_same(x);
  }
}

TEST(JsonShortest, RandomMagnitudesMatchToChars) {
  // Doubles spread over the fast path's range (and a little beyond), most of
  // them needing 16 or 17 digits: the path must decline or agree.
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> exponent(-9.0, 17.0);
  for (int i = 0; i < 200000; ++i) expect_same(std::pow(10.0, exponent(rng)));
}

#include "response/json/shortest_double.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <initializer_list>

namespace stet::json::detail {
namespace {

// Every power of ten up to 1e22 is an exact double.
constexpr std::array<double, 23> powers = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                           1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

constexpr int max_digits = 15;
constexpr double lowest = 1e-7;  // below: 15 digits would need a scale past 1e22
constexpr double highest = 1e15;

constexpr std::array<std::uint64_t, 20> integer_powers = [] {
  std::array<std::uint64_t, 20> p{};
  std::uint64_t v = 1;
  for (std::uint64_t& x : p) {
    x = v;
    v *= 10;
  }
  return p;
}();

// Digits before the decimal point of a (1e-7 <= a < 1e15), or one more: never
// fewer. Values below 1 are scaled by 1e8 first; rounding is monotonic and
// powers of ten are exact, so the scaled value can only round up across one.
// The binary exponent gives the count to within one (1233 / 4096 < log10 2),
// and one exact comparison settles it.
int integer_digits_at_least(double a) noexcept {
  int shift = 0;
  if (a < 1.0) {
    a *= 1e8;
    shift = 8;
  }
  const auto biased = static_cast<int>(std::bit_cast<std::uint64_t>(a) >> 52);  // a is positive and normal
  const int estimate = ((biased - 1023) * 1233 >> 12) + 1;                      // digits, or one too few
  const int p = estimate + (a >= powers[static_cast<std::size_t>(estimate)] ? 1 : 0);
  return p - shift;
}

struct decimal {
  std::uint64_t digits;  // no trailing zeros
  int exponent;          // value = digits * 10^exponent
};

// Trailing zeros removed in steps of eight, four, two and one.
decimal strip_zeros(std::uint64_t m, int e) noexcept {
  for (const int step : {8, 4, 2, 1}) {
    const std::uint64_t unit = integer_powers[static_cast<std::size_t>(step)];
    if (m % unit == 0) {
      m /= unit;
      e += step;
    }
  }
  return {m, e};
}

// Whether reading d back (correctly rounded, as from_chars does) gives a:
// digits and power are exact doubles, so one IEEE multiply or divide is the
// correctly rounded value of the decimal.
bool reads_back(decimal d, double a) noexcept {
  const auto m = static_cast<double>(d.digits);
  if (d.exponent >= 0) return m * powers[static_cast<std::size_t>(d.exponent)] == a;
  return m / powers[static_cast<std::size_t>(-d.exponent)] == a;
}

// Decimal digits of m (0 < m < 10^16), from its bit length as above.
int count_digits(std::uint64_t m) noexcept {
  const int estimate = (64 - std::countl_zero(m)) * 1233 >> 12;  // digits, or one too few
  return estimate + (m >= integer_powers[static_cast<std::size_t>(estimate)] ? 1 : 0);
}

// to_chars without a format writes whichever of fixed and scientific is
// shorter, fixed on a tie; scientific is left to to_chars itself.
bool fixed_is_shorter(int digits, int point) noexcept {
  const int fixed = point >= digits ? point : point > 0 ? digits + 1 : 2 - point + digits;
  const int exponent = point - 1 < 0 ? 1 - point : point - 1;
  const int scientific = digits + (digits > 1 ? 1 : 0) + 2 + (exponent >= 100 ? 3 : 2);
  return fixed <= scientific;
}

// The digits go straight to their place; a decimal point inside them moves the
// fraction's few bytes up by one.
char* write_fixed(char* dst, decimal d, int digits, int point) noexcept {
  if (point <= 0) {
    dst[0] = '0';
    dst[1] = '.';
    for (int i = 0; i < -point; ++i) dst[2 + i] = '0';
    return std::to_chars(dst + 2 - point, dst + shortest_double_room, d.digits).ptr;
  }
  char* const end = std::to_chars(dst, dst + shortest_double_room, d.digits).ptr;
  if (point >= digits) {
    for (int i = 0; i < point - digits; ++i) end[i] = '0';
    return dst + point;
  }
  for (char* p = end; p != dst + point; --p) *p = p[-1];
  dst[point] = '.';
  return end + 1;
}

// Most doubles in documents have a few decimals (prices, ratios): scales
// 10^0 to 10^3 are tried first, each with one multiply and, only when the
// scaled value is near an integer, one divide. The first scale whose nearest
// integer reads back is the fewest fraction digits, so (the magnitude being
// fixed) the fewest significant digits: what to_chars writes. The nearest
// integer is the only candidate, since a is within a tiny fraction of a unit
// of any decimal that reads back as a at these scales: a < 1e11 < 2^37 is
// within 2^-17 of it, 0.008 units at scale 10^3, and the product is off by at
// most 2^-7, so a scaled value further than 1/32 from an integer is no
// candidate and costs no divide. At scale 10^0 the integer may end in zeros
// (1200.0), which the digit count leaves out.
bool few_decimals(double a, decimal& d) noexcept {
  constexpr int max_scale = 3;
  constexpr double near = 1.0 / 32;
  if (a >= 1e11) return false;
  for (int k = 0; k <= max_scale; ++k) {
    const double scaled = a * powers[static_cast<std::size_t>(k)];
    // NOLINTNEXTLINE(bugprone-incorrect-roundings): a is positive, and reads_back() checks the candidate
    const auto m = static_cast<std::uint64_t>(scaled + 0.5);
    const double off = scaled - static_cast<double>(m);
    if (m == 0 || off > near || off < -near) continue;
    d = k == 0 ? strip_zeros(m, 0) : decimal{m, -k};
    if (reads_back(d, a)) return true;
  }
  return false;
}

// If a has a representation of at most 15 significant digits, rounding it at
// 15 digits (scale 10^k) finds that representation: a is within half an ulp
// (< 0.12 units at that scale) of it, the scaled product is off by less than
// 0.07, so the nearest integer is it, followed by zeros. Two such
// representations cannot both be that close, so the shortest is unique and is
// what to_chars picks. If the rounded digits do not read back, no
// representation of 15 digits or fewer exists and to_chars does the work.
bool fifteen_digits(double a, decimal& d) noexcept {
  const int scale = max_digits - integer_digits_at_least(a);
  const double scaled = a * powers[static_cast<std::size_t>(scale)];
  // NOLINTNEXTLINE(bugprone-incorrect-roundings): a is positive, and reads_back() checks the candidate
  const auto rounded = static_cast<std::uint64_t>(scaled + 0.5);
  d = strip_zeros(rounded, -scale);
  return reads_back(d, a);
}

// "whole.fraction" with one to three fraction digits, none of them trailing
// zeros (a shorter scale would have read back). to_chars writes such a value
// in fixed notation: its scientific form is never shorter (digits + 4 or more
// characters against digits + 1, or digits + 4 at most for "0.00d").
char* write_decimals(char* dst, std::uint64_t m, int k) noexcept {
  static constexpr char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  std::uint64_t fraction = 0;
  std::uint64_t whole = 0;
  if (k == 1) {
    whole = m / 10;
    fraction = m % 10;
  } else if (k == 2) {
    whole = m / 100;
    fraction = m % 100;
  } else {
    whole = m / 1000;
    fraction = m % 1000;
  }
  dst = std::to_chars(dst, dst + shortest_double_room, whole).ptr;
  *dst++ = '.';
  if (k == 3) {
    *dst++ = static_cast<char>('0' + fraction / 100);
    fraction %= 100;
  }
  if (k == 1) {
    *dst++ = static_cast<char>('0' + fraction);
    return dst;
  }
  dst[0] = pairs[2 * fraction];
  dst[1] = pairs[2 * fraction + 1];
  return dst + 2;
}

}  // namespace

char* write_shortest_fast(char* dst, double x) noexcept {
  const double a = x < 0 ? -x : x;
  if (!(a >= lowest && a < highest)) return nullptr;
  decimal d{};
  const bool few = few_decimals(a, d);
  if (few && d.exponent < 0) {
    if (x < 0) *dst++ = '-';
    return write_decimals(dst, d.digits, -d.exponent);
  }
  if (!few && !fifteen_digits(a, d)) return nullptr;
  const int digits = count_digits(d.digits);
  const int point = digits + d.exponent;  // digits before the decimal point (<= 0: a leading "0.")
  if (!fixed_is_shorter(digits, point)) return nullptr;
  if (x < 0) *dst++ = '-';
  return write_fixed(dst, d, digits, point);
}

char* write_shortest(char* dst, double x) noexcept {
  if (char* end = write_shortest_fast(dst, x)) return end;
  return std::to_chars(dst, dst + shortest_double_room, x).ptr;
}

}  // namespace stet::json::detail

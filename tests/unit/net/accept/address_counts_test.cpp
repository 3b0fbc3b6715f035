#include "net/accept/address_counts.hpp"  // Test that the header file is self-contained.

#include <gtest/gtest.h>

namespace {

using stet::endpoint;
using stet::detail::address_counts;

TEST(AddressCounts, CountsPerAddressWhateverThePortAndFreesTheLast) {
  address_counts counts;
  const endpoint a1 = endpoint::parse("192.0.2.1", 1000);
  const endpoint a2 = endpoint::parse("192.0.2.1", 2000);
  const endpoint b = endpoint::parse("2001:db8::1", 1000);
  EXPECT_TRUE(counts.try_add(a1, 2));
  EXPECT_TRUE(counts.try_add(a2, 2));
  EXPECT_FALSE(counts.try_add(a1, 2));  // the port does not make another client
  EXPECT_TRUE(counts.try_add(b, 2));
  EXPECT_EQ(counts.addresses(), 2u);
  counts.remove(a2);
  EXPECT_TRUE(counts.try_add(a1, 2));
  counts.remove(a1);
  counts.remove(a1);
  counts.remove(b);
  EXPECT_EQ(counts.addresses(), 0u);
  counts.remove(b);  // more removes than adds: ignored
  EXPECT_EQ(counts.addresses(), 0u);
}

TEST(AddressCounts, Ipv4AndItsMappedFormAreOneClient) {
  address_counts counts;
  EXPECT_TRUE(counts.try_add(endpoint::parse("192.0.2.1"), 1));
  EXPECT_FALSE(counts.try_add(endpoint::parse("::ffff:192.0.2.1"), 1));
}

}  // namespace

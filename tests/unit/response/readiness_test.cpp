#include <stet/readiness.hpp>  // Test that the header file is self-contained.

#include <gtest/gtest.h>

namespace {

TEST(Readiness, NotReadyUntilServingAndWhileHeld) {
  stet::readiness r;
  EXPECT_FALSE(r.ready());
  EXPECT_EQ(r.respond().status(), stet::status::service_unavailable);
  r.set_serving(true);
  EXPECT_TRUE(r.ready());
  const stet::response ok = r.respond();
  EXPECT_EQ(ok.status(), stet::status::ok);
  EXPECT_EQ(ok.body(), "ready\n");
  r.hold(true);
  EXPECT_FALSE(r.ready());
  r.hold(false);
  EXPECT_TRUE(r.ready());
  r.set_serving(false);
  const stet::response draining = r.respond();
  EXPECT_EQ(draining.status(), stet::status::service_unavailable);
  EXPECT_EQ(draining.body(), "not ready\n");
}

}  // namespace

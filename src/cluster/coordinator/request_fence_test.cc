#include "cluster/coordinator/request_fence.h"

#include <gtest/gtest.h>

#include <memory>

namespace keywise::cluster {
namespace {

ClusterViewPtr ViewAt(int64_t revision) {
  auto view = std::make_shared<ClusterView>();
  view->revision = revision;
  view->topology = std::make_shared<const Topology>();
  return view;
}

std::chrono::steady_clock::time_point Soon() {
  return std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
}

// A barrier at a revision waits for the tickets of older views; a replica
// serving a request routed by an older view holds that view's revision
// even though its own view is newer, so a fence raised meanwhile waits
// for it too.
TEST(RequestFence, TicketsOfOlderRevisionsHoldBackWaits) {
  RequestFence fence(ViewAt(10));
  auto [view, ticket] = fence.Acquire();
  EXPECT_EQ(view->revision, 10);
  fence.Publish(ViewAt(20));
  EXPECT_FALSE(fence.Wait(20, Soon()));  // the request on view 10 runs
  ticket.reset();
  EXPECT_TRUE(fence.Wait(20, Soon()));

  // A request stamped 15 served by this node on view 20.
  auto [served_on, held] = fence.AcquireAt(15);
  EXPECT_EQ(served_on->revision, 20);
  EXPECT_FALSE(fence.Wait(20, Soon()));
  EXPECT_TRUE(fence.Wait(15, Soon()));
  held.reset();
  EXPECT_TRUE(fence.Wait(20, Soon()));
  // Newer than the view: held at the view's own revision.
  auto [current, newer] = fence.AcquireAt(99);
  EXPECT_TRUE(fence.Wait(20, Soon()));
  EXPECT_FALSE(fence.Wait(21, Soon()));  // no view of 21 yet
}

TEST(RequestFence, TheRaisedFenceOnlyRises) {
  RequestFence fence(ViewAt(1));
  EXPECT_EQ(fence.raised(), 0);
  fence.Raise(7);
  fence.Raise(3);
  EXPECT_EQ(fence.raised(), 7);
}

}  // namespace
}  // namespace keywise::cluster

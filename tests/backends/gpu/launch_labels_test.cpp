// The launch-label ring every GPU device keeps: the nodes an asynchronous error names.
#include "backends/gpu/launch_labels.h"

#include <gtest/gtest.h>

namespace tgc {
namespace {

TEST(LaunchLabels, NamesOneNodeOrTheLastFewOldestFirst) {
  gpu::LaunchLabels labels;
  EXPECT_EQ(labels.take_blame(), "");
  EXPECT_EQ(labels.last(), "");
  labels.note("c = add(a, b)");
  EXPECT_EQ(labels.last(), "c = add(a, b)");
  EXPECT_EQ(labels.take_blame(), "; raised by the device work of node 'c = add(a, b)'");
  EXPECT_EQ(labels.take_blame(), "") << "taking the blame clears the list";

  labels.note("x");
  labels.note("y");
  EXPECT_EQ(labels.take_blame(),
            "; raised by the device work of one of the nodes 'x', 'y' (launched since the last synchronisation)");
  for (int i = 0; i < 11; ++i) labels.note("n" + std::to_string(i));
  EXPECT_EQ(labels.last(), "n10");
  EXPECT_EQ(labels.take_blame(),
            "; raised by the device work of one of the nodes [3 earlier nodes], 'n3', 'n4', 'n5', 'n6', 'n7', 'n8', "
            "'n9', 'n10' (launched since the last synchronisation)");
  labels.note("z");
  labels.clear();
  EXPECT_EQ(labels.last(), "");
  EXPECT_EQ(labels.take_blame(), "");
}

}  // namespace
}  // namespace tgc

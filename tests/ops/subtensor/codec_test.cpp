// Codecs of the subtensor family: every kind of index entry, the set/inc modes and the
// inplace variant survive a saved function's JSON, and malformed fields are IOErrors.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <vector>

#include "ops/core/op_codec.h"
#include "ops/subtensor/inc_subtensor.h"
#include "ops/subtensor/subtensor.h"
#include "runtime/error.h"
#include "support/op_codec_round_trip.h"

namespace tgc {
namespace {

using namespace tgc::testing;  // codec_round_trip, MemoryOpContext, with_field, ...
using E = IndexEntry;
constexpr std::nullopt_t none = std::nullopt;

IndexSpec spec(std::vector<IndexEntry> entries) { return IndexSpec{std::move(entries)}; }

// Basic indices: every kind of entry but arrays, every slice part present or absent.
std::vector<IndexSpec> basic_specs() {
  return {spec({}),
          spec({E::integer(0)}),
          spec({E::integer(-3), E::integer(7)}),
          spec({E::slice()}),
          spec({E::slice(1), E::slice(none, 5), E::slice(none, none, 2)}),
          spec({E::slice(1, 5), E::slice(1, none, 3), E::slice(none, -1, -1)}),
          spec({E::slice(-1, 2, -1), E::slice(none, none, -1), E::slice(-5, -1, -2)}),
          spec({E::new_axis()}),
          spec({E::integer(1), E::slice(none, none, 2), E::new_axis(), E::slice(0, 0)}),
          spec({E::new_axis(), E::new_axis(), E::integer(-1), E::slice(2, 10, 4)})};
}

// Advanced indices: arrays alone, beside each other, apart, with every other kind of entry.
std::vector<IndexSpec> advanced_specs() {
  return {spec({E::array()}),
          spec({E::array(), E::array()}),
          spec({E::slice(), E::array(), E::integer(1)}),
          spec({E::array(), E::slice(1, none, -1), E::array()}),
          spec({E::new_axis(), E::integer(-2), E::array(), E::slice(none, 3), E::new_axis()})};
}

TEST(SubtensorCodec, SubtensorKeepsEveryBasicEntry) {
  for (const IndexSpec& s : basic_specs()) {
    Subtensor op(s);
    expect_codec_round_trip(op);
    EXPECT_EQ(dynamic_cast<const Subtensor&>(*codec_round_trip(op)).spec(), s) << op.name();
  }
}

TEST(SubtensorCodec, AdvancedSubtensorKeepsEveryEntry) {
  for (const IndexSpec& s : advanced_specs()) {
    AdvancedSubtensor op(s);
    expect_codec_round_trip(op);
    EXPECT_EQ(dynamic_cast<const AdvancedSubtensor&>(*codec_round_trip(op)).spec(), s) << op.name();
  }
}

TEST(SubtensorCodec, IncSubtensorKeepsModeIndexAndInplace) {
  std::vector<IndexSpec> specs = basic_specs();
  for (const IndexSpec& s : advanced_specs()) specs.push_back(s);
  for (IncSubtensor::Mode mode : {IncSubtensor::Mode::Set, IncSubtensor::Mode::Inc})
    for (const IndexSpec& s : specs)
      for (bool inplace : {false, true}) {
        IncSubtensor op(mode, s, inplace);
        expect_codec_round_trip(op);
        const std::shared_ptr<const Op> read = codec_round_trip(op);
        const auto& back = dynamic_cast<const IncSubtensor&>(*read);
        EXPECT_EQ(back.mode(), mode) << op.name();
        EXPECT_EQ(back.spec(), s) << op.name();
        EXPECT_EQ(back.inplace(), inplace) << op.name();
        EXPECT_EQ(back.inplace_input(0), inplace ? 0 : -1) << op.name();
      }
  // The variant the inplace pass makes.
  std::shared_ptr<const Op> inplace = IncSubtensor(IncSubtensor::Mode::Inc, spec({E::array()})).make_inplace(0, 0);
  ASSERT_TRUE(inplace != nullptr);
  expect_codec_round_trip(*inplace);
  EXPECT_EQ(codec_round_trip(*inplace)->inplace_input(0), 0);
}

TEST(SubtensorCodec, IndexEntriesAreWrittenByKind) {
  MemoryOpContext ctx;
  const Json j = write_op(Subtensor(spec({E::integer(-1), E::slice(1, none, -2), E::new_axis()})), ctx);
  EXPECT_EQ(j, Json::parse(R"({"op": "Subtensor", "fields": {"index": [
      {"kind": "int", "index": -1},
      {"kind": "slice", "start": 1, "stop": null, "step": -2},
      {"kind": "newaxis"}]}})"));
  EXPECT_EQ(write_op(AdvancedSubtensor(spec({E::array()})), ctx)["fields"]["index"],
            Json::parse(R"([{"kind": "array"}])"));
  EXPECT_EQ(write_op(IncSubtensor(IncSubtensor::Mode::Set, spec({E::integer(0)}), true), ctx)["fields"],
            Json::parse(R"({"mode": "set", "index": [{"kind": "int", "index": 0}], "inplace": true})"));
}

TEST(SubtensorCodec, MalformedFieldsAreIOErrors) {
  MemoryOpContext ctx;
  auto read = [&](const char* tag, const Json& fields) { return read_op(Json{{"op", tag}, {"fields", fields}}, ctx); };
  auto index = [](const Json& entry) { return Json::array({entry}); };
  const Json slice = {{"kind", "slice"}, {"start", 1}, {"stop", nullptr}, {"step", -1}};
  EXPECT_EQ(read("Subtensor", {{"index", index(slice)}})->name(), "Subtensor{1::-1}");
  EXPECT_THROW(read("Subtensor", Json::object()), IOError);
  EXPECT_THROW(read("Subtensor", {{"index", slice}}), IOError);                           // not a list
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "ellipsis"}})}}), IOError);   // unknown kind
  EXPECT_THROW(read("Subtensor", {{"index", index({{"index", 1}})}}), IOError);           // no kind
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "int"}})}}), IOError);        // no index
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "int"}, {"index", "1"}})}}), IOError);
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "int"}, {"index", 1.5}})}}), IOError);
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "slice"}, {"start", 1}, {"stop", 2}})}}), IOError);
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "slice"}, {"start", 1}, {"stop", true}, {"step", 1}})}}),
               IOError);
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "slice"}, {"start", 1}, {"stop", 2}, {"step", 0}})}}),
               IOError);
  EXPECT_THROW(read("Subtensor", {{"index", index({{"kind", "array"}})}}), IOError);  // arrays: AdvancedSubtensor
  EXPECT_THROW(read("AdvancedSubtensor", {{"index", index(slice)}}), IOError);        // no array: Subtensor
  const Json inc_index = index({{"kind", "array"}});
  EXPECT_EQ(read("IncSubtensor", {{"mode", "inc"}, {"index", inc_index}, {"inplace", false}})->name(),
            "IncSubtensor{Inc;array}");
  EXPECT_THROW(read("IncSubtensor", {{"mode", "add"}, {"index", inc_index}, {"inplace", false}}), IOError);
  EXPECT_THROW(read("IncSubtensor", {{"mode", 1}, {"index", inc_index}, {"inplace", false}}), IOError);
  EXPECT_THROW(read("IncSubtensor", {{"mode", "set"}, {"index", inc_index}, {"inplace", "yes"}}), IOError);
  EXPECT_THROW(read("IncSubtensor", {{"mode", "set"}, {"index", inc_index}}), IOError);
}

}  // namespace
}  // namespace tgc

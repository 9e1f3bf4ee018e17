// --format json (frontend/cli/json_output.h): run, devices and cache info print one JSON
// document a parser reads back, with the facts the text form prints; NaN and infinities are
// strings; the devices lines split into name, status and detail.
#include "frontend/cli/json_output.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "cli/cli_runner.h"

namespace tgc::test {
namespace {

using nlohmann::json;

json parse(const CliResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);  // throws, failing the test, on anything but one JSON document
}

TEST(CliJson, RunPrintsTimingsAndEachOutputsSummary) {
  ScratchDir dir;
  const std::string program =
      dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [log(x), x > 1.5, sum(x)])\n");
  const json doc = parse(run_tgc({"run", program, "--format", "json", "--iters", "3", "--input", "x=[-1, 1, 2, 4]"}));
  EXPECT_EQ(doc["function"], "f");
  EXPECT_EQ(doc["calls"], 3);
  EXPECT_GT(doc["seconds"].get<double>(), 0);
  EXPECT_NEAR(doc["seconds_per_call"].get<double>(), doc["seconds"].get<double>() / 3, 1e-12);
  ASSERT_EQ(doc["outputs"].size(), 3u);
  const json& log = doc["outputs"][0];
  EXPECT_EQ(log["name"], "out0");
  EXPECT_EQ(log["expression"], "log(x)");
  EXPECT_EQ(log["shape"], json::array({4}));
  EXPECT_EQ(log["values"][0], "nan") << "log(-1): JSON has no NaN";
  EXPECT_EQ(log["values"][1], 0.0);
  EXPECT_EQ(log["finite"], 3);
  EXPECT_NEAR(log["max"].get<double>(), std::log(4.0), 1e-6);
  const json& gt = doc["outputs"][1];
  EXPECT_EQ(gt["dtype"], "bool");
  EXPECT_EQ(gt["values"], json::array({false, false, true, true}));
  EXPECT_FALSE(gt.contains("mean"));
  EXPECT_EQ(doc["outputs"][2]["shape"], json::array());
  EXPECT_EQ(doc["outputs"][2]["values"], json::array({6.0}));
  EXPECT_EQ(doc["saved"], json::array());
}

TEST(CliJson, LargeOutputsGiveTheirSummaryWithoutValues) {
  ScratchDir dir;
  const std::string program = dir.write("p.tg", "x = vector(\"x\")\nf = function([x], [x * 2])\n");
  const json doc = parse(run_tgc({"run", program, "--format", "json", "--input", "x=arange(2000)"}));
  const json& out = doc["outputs"][0];
  EXPECT_FALSE(out.contains("values"));
  EXPECT_EQ(out["finite"], 2000);
  EXPECT_EQ(out["min"], 0.0);
  EXPECT_EQ(out["max"], 3998.0);
  EXPECT_EQ(out["mean"], 1999.0);
}

TEST(CliJson, DevicesAndCacheInfoParse) {
  const json devices = parse(run_tgc({"devices", "--format", "json"}));
  ASSERT_TRUE(devices.is_array());
  ASSERT_FALSE(devices.empty());
  EXPECT_EQ(devices[0]["name"], "cpu");
  EXPECT_EQ(devices[0]["status"], "available");
  for (const json& d : devices) EXPECT_FALSE(d["detail"].get<std::string>().empty()) << d.dump();

  ScratchDir dir;
  const json info = parse(run_tgc({"cache", "info", "--format", "json", "--cache-dir", dir.path() + "/cache"}));
  EXPECT_EQ(info["directory"], dir.path() + "/cache");
  EXPECT_EQ(info["exists"], false);
  EXPECT_EQ(info["entries"], 0);
  EXPECT_TRUE(info["backends"].is_object());
  const json cleared = parse(run_tgc({"cache", "clear", "--format", "json", "--cache-dir", dir.path() + "/cache"}));
  EXPECT_EQ(cleared["removed"], 0);
}

TEST(CliJson, ShowPrintsTheGraphsNodesInExecutionOrder) {
  const json doc = parse(run_tgc({"show", example("two_outputs.tg"), "--format", "json"}));
  EXPECT_EQ(doc["stage"], "optimized");
  ASSERT_EQ(doc["inputs"].size(), 2u);
  EXPECT_EQ(doc["inputs"][0], json({{"name", "x"}, {"dtype", "float32"}, {"shape", json::array({nullptr, nullptr})}}));
  ASSERT_EQ(doc["nodes"].size(), 1u);
  EXPECT_EQ(doc["nodes"][0]["op"], "Composite{add(i0,i1), sub(i0,i1)}");
  EXPECT_EQ(doc["nodes"][0]["inputs"], json::array({"x", "y"}));
  EXPECT_EQ(doc["nodes"][0]["outputs"][1]["name"], "t1");
  EXPECT_FALSE(doc["nodes"][0].contains("host_reason"));
  EXPECT_EQ(doc["outputs"][1], json({{"label", "out1"}, {"name", "t1"}, {"expression", "x - y"}}));
  // The global flag asks the same; the raw stage has the two nodes as built.
  const json raw = parse(run_tgc({"--format", "json", "show", example("two_outputs.tg"), "--stage", "raw"}));
  EXPECT_EQ(raw["nodes"].size(), 2u);
}

TEST(CliJson, AnUnknownFormatIsAUsageError) {
  CliResult r = run_tgc({"devices", "--format", "yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format"), std::string::npos) << r.err;
}

TEST(JsonOutput, DeviceLinesSplitIntoNameStatusAndDetail) {
  const json d = cli::devices_json({"cpu      available  (llvm: LLVM 16 (avx2))",
                                    "cuda:0   available  (H200, sm_90)\ncuda:1   available  (H200, sm_90)",
                                    "mpi      not built  (no mpi.h)", "odd line"});
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0], json({{"name", "cpu"}, {"status", "available"}, {"detail", "llvm: LLVM 16 (avx2)"}}));
  EXPECT_EQ(d[2]["name"], "cuda:1");
  EXPECT_EQ(d[3]["status"], "not built");
  EXPECT_EQ(d[4]["status"], nullptr);
  EXPECT_EQ(d[4]["detail"], "odd line");
}

TEST(JsonOutput, NonFiniteValuesAreStringsAndIntegersStayExact) {
  const Tensor t = Tensor::from_vector<double>({std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), 1.5}, {3});
  const json o = cli::output_json(0, "t", t);
  EXPECT_EQ(o["values"], json::array({"inf", "-inf", 1.5}));
  EXPECT_EQ(o["finite"], 1);
  const Tensor big = Tensor::from_vector<int64_t>({(int64_t{1} << 60) + 1}, {1});
  EXPECT_EQ(cli::output_json(0, "big", big)["values"][0].get<int64_t>(), (int64_t{1} << 60) + 1);
}

}  // namespace
}  // namespace tgc::test

// NCCL without a GPU (no `gpu` label: these run in CI): where the library is looked for and
// what the status says, the dtype and reduction mapping, the unique id's hex form, and the
// errors a group gets before any device is touched.
#include "backends/cuda/nccl_library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "backends/cuda/nccl_comm_factory.h"
#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/nccl_types.h"
#include "backends/cuda/nccl_unique_id.h"
#include "runtime/config.h"
#include "runtime/error.h"
#include "support/scoped_env.h"

namespace tgc {
namespace {

using testing::ScopedEnv;

TEST(NcclLibrary, VersionStrings) {
  EXPECT_EQ(cuda::nccl_version_str(22809), "2.28.9");
  EXPECT_EQ(cuda::nccl_version_str(23203), "2.32.3");
  EXPECT_EQ(cuda::nccl_version_str(2804), "2.8.4");  // NCCL_VERSION's encoding up to 2.8
}

TEST(NcclLibrary, TheOverrideIsTheOnlyCandidate) {
  ScopedEnv env("TGC_NCCL_LIBRARY", "/opt/nowhere/libnccl.so.2");
  EXPECT_EQ(cuda::nccl_library_candidates(), std::vector<std::string>{"/opt/nowhere/libnccl.so.2"});
}

TEST(NcclLibrary, TheSearchPathComesFirstThenWheels) {
  ScopedEnv env("TGC_NCCL_LIBRARY", nullptr);
  const std::vector<std::string> c = cuda::nccl_library_candidates();
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0], "libnccl.so.2");
  for (size_t i = 1; i < c.size(); ++i) {
    EXPECT_NE(c[i].find("nvidia/nccl/lib/libnccl.so.2"), std::string::npos) << c[i];
    for (size_t j = 0; j < i; ++j) EXPECT_NE(c[i], c[j]) << "tried twice";
  }
}

TEST(NcclLibrary, StatusSaysWhereFromOrWhyNot) {
  const cuda::NcclStatus& st = cuda::nccl_status();
  const std::string line = nccl_devices_description();
  if (st.available) {
    EXPECT_TRUE(st.reason.empty()) << st.reason;
    EXPECT_GE(st.version, 21400) << "tgc needs NCCL 2.14 or newer";
    EXPECT_NE(st.path.find("libnccl"), std::string::npos) << st.path;
    EXPECT_EQ(line.rfind("nccl     available  (NCCL " + cuda::nccl_version_str(st.version) + ", " + st.path, 0), 0u)
        << line;
  } else {
    EXPECT_FALSE(st.reason.empty());
    EXPECT_EQ(line, "nccl     unavailable  (" + st.reason + ")");
  }
}

TEST(NcclLibrary, NvlsIsOffUnlessTheUserSetIt) {
  cuda::nccl_status();  // the loader sets the default before loading
  const char* v = std::getenv("NCCL_NVLS_ENABLE");
  ASSERT_NE(v, nullptr);
  if (std::string(v) != "0") GTEST_SKIP() << "the user's NCCL_NVLS_ENABLE=" << v << " is kept";
  EXPECT_STREQ(v, "0");
}

// A call NCCL refuses before touching a device (no communicator): the text has NCCL's words,
// the result's name and NCCL's last error, which says what was wrong.
TEST(NcclLibrary, ErrorsCarryNcclsWordsAndItsLastError) {
  if (!cuda::nccl_status().available) GTEST_SKIP() << "needs NCCL: " << cuda::nccl_status().reason;
  const cuda::NcclApi& api = cuda::nccl_api();
  const ncclResult_t r = api.AllReduce(nullptr, nullptr, 1, ncclFloat32, ncclSum, nullptr, nullptr);
  ASSERT_NE(r, ncclSuccess);
  const std::string text = cuda::nccl_error_text(r);
  EXPECT_NE(text.find(api.GetErrorString(r)), std::string::npos) << text;
  EXPECT_NE(text.find("(ncclInvalidArgument = 4)"), std::string::npos) << text;
  EXPECT_NE(text.find("comm argument is NULL"), std::string::npos) << text;
}

// A fresh process (death-test child) whose only candidate does not exist: the status names
// the file and dlopen's words, and the API table is a CommError with a hint.
TEST(NcclLibraryDeathTest, AMissingLibraryIsExplained) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executes the binary: a fresh status
  EXPECT_EXIT(
      {
        setenv("TGC_NCCL_LIBRARY", "/opt/nowhere/libnccl.so.2", 1);
        const cuda::NcclStatus& st = cuda::nccl_status();
        bool ok = !st.available && st.reason.find("libnccl.so.2 not found (") == 0 &&
                  st.reason.find("/opt/nowhere/libnccl.so.2") != std::string::npos;
        try {
          cuda::nccl_api();
          ok = false;
        } catch (const CommError& e) {
          ok = ok && e.hint().find("TGC_NCCL_LIBRARY") != std::string::npos;
        }
        try {
          make_nccl_unique_id_hex();
          ok = false;
        } catch (const CommError&) {
        }
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

size_t nccl_type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

// Every dtype either has an NCCL type of its width and reduces with each op, or is moved as
// bytes and refuses to reduce with a CommError naming the collective, the dtype and a fix.
TEST(NcclTypes, EveryDTypeIsMappedOrRefusedWithAHint) {
  for (DType t : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    ncclDataType_t type;
    const bool has = cuda::nccl_type_of(t, type);
    const cuda::NcclElements moved = cuda::nccl_moved_elements(t, 10);
    EXPECT_EQ(moved.count * nccl_type_size(moved.type), 10 * dtype_size(t)) << "all_gather's blocks keep their bytes";
    for (CollectiveReduce op : {CollectiveReduce::Sum, CollectiveReduce::Max, CollectiveReduce::Min}) {
      if (has) {
        EXPECT_EQ(nccl_type_size(type), dtype_size(t));
        const cuda::NcclReduction r = cuda::nccl_reduction(t, op, "all_reduce");
        EXPECT_EQ(r.type, type);
      } else {
        try {
          cuda::nccl_reduction(t, op, "reduce_scatter");
          ADD_FAILURE() << "no error";
        } catch (const CommError& e) {
          EXPECT_NE(e.what_part().find("reduce_scatter{" + collective_reduce_name(op) + "} of " +
                                       std::string(dtype_name(t))),
                    std::string::npos)
              << e.what();
          EXPECT_NE(e.hint().find("cast to int32"), std::string::npos) << e.hint();
        }
      }
    }
  }
  // The one tgc dtype NCCL lacks today; a new dtype must be added to nccl_type_of.
  ncclDataType_t type;
  EXPECT_FALSE(cuda::nccl_type_of(DType::Int16, type));
}

TEST(NcclTypes, TheMapping) {
  auto red = [](DType t, CollectiveReduce op) { return cuda::nccl_reduction(t, op, "all_reduce"); };
  EXPECT_EQ(red(DType::Float32, CollectiveReduce::Sum).type, ncclFloat32);
  EXPECT_EQ(red(DType::Float64, CollectiveReduce::Sum).type, ncclFloat64);
  EXPECT_EQ(red(DType::Int8, CollectiveReduce::Sum).type, ncclInt8);
  EXPECT_EQ(red(DType::UInt8, CollectiveReduce::Sum).type, ncclUint8);
  EXPECT_EQ(red(DType::Int32, CollectiveReduce::Max).type, ncclInt32);
  EXPECT_EQ(red(DType::Int64, CollectiveReduce::Min).type, ncclInt64);
  EXPECT_EQ(red(DType::Float32, CollectiveReduce::Sum).op, ncclSum);
  EXPECT_EQ(red(DType::Float32, CollectiveReduce::Max).op, ncclMax);
  EXPECT_EQ(red(DType::Float32, CollectiveReduce::Min).op, ncclMin);
  // bool as uint8 0/1: a sum is a logical or (NumPy's add of bools), so it stays 0 or 1.
  EXPECT_EQ(red(DType::Bool, CollectiveReduce::Sum).type, ncclUint8);
  EXPECT_EQ(red(DType::Bool, CollectiveReduce::Sum).op, ncclMax);
  EXPECT_EQ(red(DType::Bool, CollectiveReduce::Min).op, ncclMin);
  const cuda::NcclElements int16 = cuda::nccl_moved_elements(DType::Int16, 7);
  EXPECT_EQ(int16.type, ncclUint8);
  EXPECT_EQ(int16.count, 14u);
}

TEST(NcclUniqueId, HexRoundTrip) {
  std::mt19937 rng(7);
  ncclUniqueId id{};
  for (char& c : id.internal) c = static_cast<char>(rng() & 0xff);
  const std::string hex = cuda::unique_id_to_hex(id);
  ASSERT_EQ(hex.size(), 256u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos) << hex;
  const ncclUniqueId back = cuda::unique_id_from_hex(hex, "test");
  EXPECT_EQ(std::string(back.internal, sizeof back.internal), std::string(id.internal, sizeof id.internal));
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  const ncclUniqueId back_upper = cuda::unique_id_from_hex(upper, "test");
  EXPECT_EQ(std::string(back_upper.internal, 128), std::string(id.internal, 128));
}

TEST(NcclUniqueId, MalformedHexNamesWhereAndWhat) {
  std::string hex(256, '0');
  try {
    cuda::unique_id_from_hex(hex.substr(1), "TGC_NCCL_UNIQUE_ID");
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("TGC_NCCL_UNIQUE_ID is malformed: 255 characters where 256"), std::string::npos)
        << e.what();
    EXPECT_NE(e.hint().find("tgc launch"), std::string::npos) << e.hint();
  }
  hex[10] = 'g';
  try {
    cuda::unique_id_from_hex(hex, "TGC_NCCL_UNIQUE_ID");
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("'g0' at 10 is not a hex byte"), std::string::npos) << e.what();
  }
}

// ncclGetUniqueId needs no GPU, only NCCL and a network interface for its bootstrap root.
TEST(NcclUniqueId, TheLauncherGetsAFreshIdEachTime) {
  if (!cuda::nccl_status().available) GTEST_SKIP() << "needs NCCL: " << cuda::nccl_status().reason;
  const std::string a = make_nccl_unique_id_hex(), b = make_nccl_unique_id_hex();
  EXPECT_EQ(a.size(), 256u);
  EXPECT_NE(a, b);
  EXPECT_NO_THROW(cuda::unique_id_from_hex(a, "make_nccl_unique_id_hex"));
}

TEST(NcclCommFactory, HostMemoryIsNotNcclsToMove) {
  CommGroup group(0, 2, "world");
  try {
    cuda::make_nccl_group_communicator(host_device(), group);
    FAIL() << "no error";
  } catch (const CommError& e) {
    EXPECT_NE(e.what_part().find("NCCL was asked to move the memory of cpu"), std::string::npos) << e.what();
    EXPECT_EQ(e.where(), "group world");
  }
}

TEST(NcclCommFactory, TimeoutDefaultsToFiveMinutes) {
  const std::vector<std::string>& keys = Config::keys();
  if (std::find(keys.begin(), keys.end(), "comm_timeout") != keys.end())
    GTEST_SKIP() << "Config has comm_timeout: the factory reads it";
  EXPECT_EQ(cuda::nccl_comm_timeout(), std::chrono::seconds(300));
  EXPECT_EQ(cuda::timeout_text(std::chrono::seconds(300)), "300 s");
  EXPECT_EQ(cuda::timeout_text(std::chrono::milliseconds(1500)), "1.5 s");
}

}  // namespace
}  // namespace tgc

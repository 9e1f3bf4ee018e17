// Tests of .npy reading and writing against files NumPy wrote (scripts/test_data/runtime.py),
// byte-for-byte output checks, and the IOError of every kind of malformed file.
#include "runtime/npy.h"

#include "runtime/rank_limit.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace tgc {
namespace {

using ::testing::HasSubstr;

std::string npy_path(const std::string& name) {
  return std::string(TGC_TEST_DATA_DIR) + "/runtime/npy/" + name;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::path(::testing::TempDir()) / "tgc_npy_test";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

// The script's sample(dtype, shape) in C order: i*7-5 (floats: then *0.25+0.125; uint8:
// then +5), bools: i % 3 == 0.
std::vector<double> sample(DType dtype, int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) {
    double x = static_cast<double>(i * 7 - 5);
    if (is_float(dtype)) x = x * 0.25 + 0.125;
    if (dtype == DType::UInt8) x += 5;
    if (dtype == DType::Bool) x = (i % 3 == 0) ? 1 : 0;
    v.push_back(x);
  }
  return v;
}

// A version 1.0 .npy image with a hand-written header dict, for malformed-header cases.
std::string make_npy(const std::string& dict, const std::string& data = "") {
  std::string header = dict + "\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

std::string doubles(std::initializer_list<double> values) {
  std::string out;
  for (double v : values) out.append(reinterpret_cast<const char*>(&v), sizeof v);
  return out;
}

// The message of the IOError that parsing `bytes` throws ("" and a failure when none).
std::string parse_error(const std::string& bytes) {
  try {
    parse_npy(bytes, "bad.npy");
  } catch (const IOError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IOError";
  return "";
}

std::string read_error(const std::string& path) {
  try {
    read_npy(path);
  } catch (const IOError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no IOError for " << path;
  return "";
}

TEST(Npy, ReadsEveryDtypeInCOrder) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor t = read_npy(npy_path("c_" + std::string(dtype_name(dt)) + ".npy"));
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.strides(), (Strides{3, 1}));
    EXPECT_EQ(t.to_vector<double>(), sample(dt, 6));
  }
}

TEST(Npy, FortranOrderIsAStridedViewOverTheFileData) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor t = read_npy(npy_path("f_" + std::string(dtype_name(dt)) + ".npy"));
    EXPECT_EQ(t.shape(), (Shape{3, 4}));
    EXPECT_EQ(t.strides(), (Strides{1, 3}));
    EXPECT_FALSE(t.is_contiguous());
    EXPECT_EQ(t.to_vector<double>(), sample(dt, 12));  // logical (C) order
    EXPECT_EQ(t.at({0, 1}), sample(dt, 12)[1]);
  }
  Tensor t3 = read_npy(npy_path("f3d_float32.npy"));
  EXPECT_EQ(t3.strides(), (Strides{1, 2, 6}));
  EXPECT_EQ(t3.to_vector<double>(), sample(DType::Float32, 24));
}

TEST(Npy, BigEndianDataIsByteSwapped) {
  for (DType dt : {DType::Int16, DType::Int32, DType::Int64, DType::Float32, DType::Float64}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor t = read_npy(npy_path("be_" + std::string(dtype_name(dt)) + ".npy"));
    EXPECT_EQ(t.dtype(), dt);
    EXPECT_EQ(t.to_vector<double>(), sample(dt, 6));
  }
  Tensor f = read_npy(npy_path("be_f_float64.npy"));
  EXPECT_EQ(f.strides(), (Strides{1, 3}));
  EXPECT_EQ(f.to_vector<double>(), sample(DType::Float64, 6));
}

TEST(Npy, ReadsFormatVersions2And3) {
  Tensor v2 = read_npy(npy_path("v2_float64.npy"));
  EXPECT_EQ(file_bytes(npy_path("v2_float64.npy"))[6], 2);
  EXPECT_EQ(v2.shape(), (Shape{4, 2}));
  EXPECT_EQ(v2.to_vector<double>(), sample(DType::Float64, 8));
  Tensor v3 = read_npy(npy_path("v3_int32.npy"));
  EXPECT_EQ(file_bytes(npy_path("v3_int32.npy"))[6], 3);
  EXPECT_EQ(v3.dtype(), DType::Int32);
  EXPECT_EQ(v3.to_vector<double>(), sample(DType::Int32, 5));
}

TEST(Npy, ReadsZeroDimensionalAndEmptyArrays) {
  Tensor f = read_npy(npy_path("scalar_float64.npy"));
  EXPECT_EQ(f.shape(), Shape{});
  EXPECT_EQ(f.item<double>(), 2.5);
  EXPECT_EQ(read_npy(npy_path("scalar_int32.npy")).item<int32_t>(), -7);
  Tensor b = read_npy(npy_path("scalar_bool.npy"));
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_TRUE(b.item<bool>());
  Tensor e = read_npy(npy_path("empty_float32_0x3.npy"));
  EXPECT_EQ(e.dtype(), DType::Float32);
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(read_npy(npy_path("empty_int64_0.npy")).shape(), Shape{0});
}

TEST(Npy, WritesTheBytesNumpySaveWrites) {
  std::vector<std::string> names = {"scalar_float64.npy", "scalar_int32.npy", "scalar_bool.npy",
                                    "empty_float32_0x3.npy", "empty_int64_0.npy",
                                    "empty_header_growth.npy", "vector_int64_1000.npy"};
  for (DType dt : kAllDTypes) names.push_back("c_" + std::string(dtype_name(dt)) + ".npy");
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const std::string numpy_bytes = file_bytes(npy_path(name));
    Tensor t = read_npy(npy_path(name));
    EXPECT_EQ(npy_bytes(t), numpy_bytes);
    const std::string out = temp_path("copy_" + name);
    write_npy(out, t);
    EXPECT_EQ(file_bytes(out), numpy_bytes);
  }
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor t = Tensor::empty(dt, {4, 5});
    dispatch_dtype(dt, [&]<typename T>() {
      for (int64_t i = 0; i < 20; ++i) t.data<T>()[i] = static_cast<T>((i * 37) % 11 - (dt == DType::UInt8 ? 0 : 5));
    });
    const std::string path = temp_path(std::string("roundtrip_") + std::string(dtype_name(dt)) + ".npy");
    write_npy(path, t);
    Tensor back = read_npy(path);
    EXPECT_TRUE(tensors_equal(back, t));
  }
}

TEST(Npy, WritesViewsInLogicalCOrder) {
  Tensor base = Tensor::from_vector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor transposed = base.transpose();                   // (3, 2), Fortran strides
  Tensor reversed = base.view({3}, {-1}, 5);              // [6, 5, 4]
  Tensor broadcast = base.view({2, 2, 3}, {0, 3, 1}, 0);  // stride-0 leading axis
  Tensor column = base.view({2}, {3}, 1);                 // [2, 5]
  for (const Tensor& view : {transposed, reversed, broadcast, column}) {
    const std::string bytes = npy_bytes(view);
    EXPECT_THAT(bytes, HasSubstr("'fortran_order': False"));
    EXPECT_THAT(bytes, HasSubstr("'shape': " + shape_str(view.shape())));
    Tensor back = parse_npy(bytes);
    EXPECT_TRUE(back.is_contiguous());
    EXPECT_EQ(back.to_vector<int32_t>(), view.to_vector<int32_t>());
  }
  EXPECT_EQ(parse_npy(npy_bytes(transposed)).to_vector<int32_t>(), (std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  // And a Fortran-order file from NumPy comes back out as C order with the same values.
  Tensor f = read_npy(npy_path("f_float64.npy"));
  EXPECT_TRUE(tensors_equal(parse_npy(npy_bytes(f)), f));
}

TEST(Npy, WritesVersion2WhenTheHeaderDoesNotFitVersion1) {
  Shape many_dims(22000, 1);  // "1, " per dim: a header longer than 65535 bytes
  Tensor t = Tensor::full(DType::Float64, many_dims, 4.5);
  const std::string bytes = npy_bytes(t);
  EXPECT_EQ(bytes[6], 2);
  EXPECT_EQ(bytes.size() % 64, 8u);  // 64-aligned data start, then one float64
  // Only a rank far beyond the limit needs such a header; reading it back is refused (the
  // reading of version 2 headers: ReadsFormatVersions2And3).
  EXPECT_THAT(parse_error(bytes), HasSubstr("the array has 22000 dimensions, more than tgc's limit of 64"));
}

TEST(Npy, RanksUpToTheLimitAreReadAndBeyondItRefused) {
  Tensor at_limit = Tensor::full(DType::Float64, Shape(kMaxRank, 1), 2.5);
  Tensor back = parse_npy(npy_bytes(at_limit));
  EXPECT_EQ(back.ndim(), kMaxRank);
  EXPECT_EQ(back.item<double>(), 2.5);
  std::string dims;
  for (int d = 0; d <= kMaxRank; ++d) dims += "1, ";
  const std::string msg = parse_error(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (" + dims + ")}",
                                               doubles({1.0})));
  EXPECT_THAT(msg, HasSubstr("cannot read .npy file 'bad.npy': the array has 65 dimensions, more than tgc's limit of 64"));
  EXPECT_THAT(msg, HasSubstr("hint: a tensor has at most 64 dimensions (NumPy's limit)"));
}

TEST(Npy, AcceptsTheHeaderVariantsPythonCanWrite) {
  const std::string data = doubles({1, 2, 3, 4, 5, 6});
  for (const std::string& dict :
       {std::string("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"),
        std::string("{\"descr\": \"<f8\", \"shape\": (2, 3,), \"fortran_order\": False}"),
        std::string("{ 'descr' : 'f8' ,\n 'fortran_order':False,'shape':(2L, 3L)}"),  // Python 2
        std::string("{'descr': '=f8', 'fortran_order': False, 'shape': (2, 3)}         ")}) {
    SCOPED_TRACE(dict);
    Tensor t = parse_npy(make_npy(dict, data));
    EXPECT_EQ(t.shape(), (Shape{2, 3}));
    EXPECT_EQ(t.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  }
  // '|' on a multi-byte type means "not applicable": read as this machine's order.
  Tensor pipe = parse_npy(make_npy("{'descr': '|i4', 'fortran_order': False, 'shape': (1,)}",
                                   std::string("\x07\x00\x00\x00", 4)));
  EXPECT_EQ(pipe.item<int32_t>(), 7);
}

TEST(Npy, AnyNonzeroByteIsTrue) {
  Tensor t = parse_npy(make_npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}",
                                std::string("\x00\x02\xff", 3)));
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1}));
}

TEST(Npy, MissingFileOrDirectoryIsAnIOError) {
  const std::string missing = temp_path("does_not_exist.npy");
  std::string msg = read_error(missing);
  EXPECT_THAT(msg, HasSubstr("cannot read .npy file '" + missing + "'"));
  EXPECT_THAT(msg, HasSubstr("No such file or directory"));
  EXPECT_THAT(msg, HasSubstr("hint: check the path"));
  std::filesystem::create_directories(temp_path("a_directory.npy"));
  EXPECT_THAT(read_error(temp_path("a_directory.npy")), HasSubstr("it is a directory"));
}

TEST(Npy, BadMagicVersionAndTruncationAreIOErrors) {
  const std::string good = file_bytes(npy_path("c_float64.npy"));
  EXPECT_THAT(parse_error("PK\x03\x04 this is a zip"), HasSubstr("bad magic string"));
  EXPECT_THAT(parse_error("PK\x03\x04 this is a zip"), HasSubstr("hint: the file is damaged or not a NumPy .npy file"));
  EXPECT_THAT(parse_error(""), HasSubstr("only 0 bytes long"));
  EXPECT_THAT(parse_error(good.substr(0, 7)), HasSubstr("only 7 bytes long"));
  std::string v4 = good;
  v4[6] = 4;
  EXPECT_THAT(parse_error(v4), HasSubstr("unsupported format version 4.0"));
  EXPECT_THAT(parse_error(good.substr(0, 9)), HasSubstr("the file ends inside the header length"));
  EXPECT_THAT(parse_error(good.substr(0, 40)), HasSubstr("the header is truncated (30 of 118 bytes)"));

  std::string msg = parse_error(good.substr(0, good.size() - 1));
  EXPECT_THAT(msg, HasSubstr("cannot read .npy file 'bad.npy': the data is truncated: shape (2, 3) of "
                             "float64 needs 48 bytes, the file has 47"));
  EXPECT_THAT(msg, HasSubstr("hint: the file was cut short"));
  EXPECT_THAT(parse_error(good + "x"), HasSubstr("data size mismatch: shape (2, 3) of float64 needs 48 "
                                                 "bytes, the file has 49 (1 extra)"));
  // The same through a real file.
  const std::string cut = temp_path("cut.npy");
  write_bytes(cut, good.substr(0, good.size() - 8));
  EXPECT_THAT(read_error(cut), HasSubstr("'" + cut + "': the data is truncated"));
  // A huge shape with little data fails on the size check, not on allocation.
  EXPECT_THAT(parse_error(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,)}")),
              HasSubstr("needs 8000000000000 bytes, the file has 0"));
  EXPECT_THAT(parse_error(make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000)}")),
              HasSubstr("the shape (4000000000, 4000000000) is too large"));
  std::string huge_header("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
  EXPECT_THAT(parse_error(huge_header), HasSubstr("header length 2147483647 is implausibly large"));
}

TEST(Npy, UnsupportedDtypesFromNumpyAreIOErrors) {
  struct Case {
    const char* file;
    const char* message;
  };
  for (const Case& c : {Case{"bad_complex64.npy", "unsupported dtype '<c8' (complex numbers)"},
                        Case{"bad_float128.npy", "unsupported dtype '<f16' (a float width tgc does not have)"},
                        Case{"bad_void3.npy", "unsupported dtype '|V3' (raw bytes)"},
                        Case{"bad_uint32.npy", "unsupported dtype '<u4' (an unsigned integer width"},
                        Case{"bad_unicode.npy", "unsupported dtype '<U3' (strings)"},
                        Case{"bad_object.npy", "object arrays are not supported (dtype '|O')"},
                        Case{"bad_structured.npy", "structured (record) dtypes are not supported"}}) {
    SCOPED_TRACE(c.file);
    std::string msg = read_error(npy_path(c.file));
    EXPECT_THAT(msg, HasSubstr(npy_path(c.file)));
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_THAT(msg, HasSubstr("hint: "));
  }
  EXPECT_THAT(read_error(npy_path("bad_complex64.npy")), HasSubstr("tgc reads bool, int8, int16"));
}

TEST(Npy, MalformedHeadersAreIOErrors) {
  struct Case {
    std::string dict;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f8', 'fortran_order': False}", "the header has no 'shape' key"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (), 'foo': 1}", "unexpected key 'foo'"},
      {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': ()}", "duplicate key 'descr'"},
      {"{'descr': '<f8', 'fortran_order': 0, 'shape': ()}", "'fortran_order' is not True or False"},
      {"{'descr': 8, 'fortran_order': False, 'shape': ()}", "'descr' is not a string"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': [1]}", "'shape' is not a tuple"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (3)}", "'shape' is not a tuple"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", "non-negative integers"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': ('a',)}", "non-negative integers"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,)}", "malformed number (only integers are allowed)"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}", "integer too large"},
      {"[1, 2]", "the header is not a dict"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)", "malformed header (missing '}'"},
      {"{'descr': <f8, 'fortran_order': False, 'shape': (1,)}", "unexpected character '<'"},
      {"{'descr': '<f8', 'fortran_order': false, 'shape': (1,)}", "unknown name 'false'"},
      {"{'descr': '<f8, 'fortran_order': False, 'shape': (1,)}", "expected '}'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", "unexpected text after the header dict"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': __import__('os')}", "unexpected character '_'"},
      {"{'descr': '<f8\\x', 'fortran_order': False, 'shape': ()}", "unsupported escape"},
      {"{1: '<f8'}", "expected a string key"},
      {"{'descr': 'xyz', 'fortran_order': False, 'shape': ()}", "unsupported dtype 'xyz'"},
      {"", "unexpected end of header"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dict);
    std::string msg = parse_error(make_npy(c.dict, doubles({1.0})));
    EXPECT_THAT(msg, HasSubstr("cannot read .npy file 'bad.npy'"));
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_THAT(msg, HasSubstr("hint: "));
  }
  // Syntax errors quote the header, so the user sees what is wrong.
  EXPECT_THAT(parse_error(make_npy("{'descr': '<f8', 'shape': (1,), 'fortran_order': Flase}")),
              HasSubstr("unknown name 'Flase' (only True, False and None are allowed) at offset 49): "
                        "\"{'descr': '<f8', 'shape': (1,), 'fortran_order': Flase}\\x0a\""));
}

TEST(Npy, WriteErrors) {
  Tensor t = Tensor::scalar(1.0);
  const std::string bad = temp_path("no_such_dir/x.npy");
  try {
    write_npy(bad, t);
    ADD_FAILURE() << "no IOError";
  } catch (const IOError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot write .npy file '" + bad + "': No such file or directory"));
    EXPECT_THAT(e.what(), HasSubstr("hint: check that the directory exists"));
  }
  EXPECT_THROW(write_npy(temp_path("undefined.npy"), Tensor()), ValueError);
}

}  // namespace
}  // namespace tgc

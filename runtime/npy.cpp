// .npy reading and writing: the magic and version prefix, the header length and the data
// (the header dict itself is read by npy_header.cpp).
#include "runtime/npy.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "runtime/npy_header.h"

namespace tgc {

namespace {

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr size_t kAlign = 64;                // NumPy aligns the data start to 64 bytes
constexpr size_t kMaxHeaderLen = 1u << 20;   // far beyond any real header; guards allocations
constexpr size_t kGrowthDigits = 21;         // NumPy's spare room after the header dict

// ---- Byte sources --------------------------------------------------------------------

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual size_t read(void* dst, size_t n) = 0;  // fewer than n only at the end
  virtual std::optional<uint64_t> remaining() = 0;  // unknown for unseekable files
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  size_t read(void* dst, size_t n) override {
    n = std::min(n, bytes_.size() - pos_);
    if (n) std::memcpy(dst, bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::optional<uint64_t> remaining() override { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

class FileSource : public ByteSource {
 public:
  FileSource(std::FILE* f, const std::string& path) : f_(f), path_(path) {}
  size_t read(void* dst, size_t n) override {
    size_t got = std::fread(dst, 1, n, f_);
    if (got < n && std::ferror(f_)) npy_read_error(path_, std::strerror(errno), "check that the file is readable");
    return got;
  }
  std::optional<uint64_t> remaining() override {
    long here = std::ftell(f_);
    if (here < 0 || std::fseek(f_, 0, SEEK_END) != 0) return std::nullopt;
    long end = std::ftell(f_);
    std::fseek(f_, here, SEEK_SET);
    if (end < here) return std::nullopt;
    return static_cast<uint64_t>(end - here);
  }

 private:
  std::FILE* f_;
  const std::string& path_;
};

void swap_bytes(void* data, size_t count, size_t esize) {
  auto* p = static_cast<unsigned char*>(data);
  for (size_t i = 0; i < count; ++i, p += esize) std::reverse(p, p + esize);
}

Tensor read_from(ByteSource& src, const std::string& source) {
  unsigned char prefix[8];
  const size_t got = src.read(prefix, sizeof prefix);
  if (std::memcmp(prefix, kMagic.data(), std::min(got, kMagic.size())) != 0)
    npy_read_error(source, "bad magic string (a .npy file starts with \\x93NUMPY)");
  if (got < sizeof prefix)
    npy_read_error(source, fmt::format("the file is only {} bytes long, too short for a .npy file", got));
  const int major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3 || minor != 0)
    npy_read_error(source, fmt::format("unsupported format version {}.{}", major, minor),
                   "tgc reads .npy format versions 1.0, 2.0 and 3.0, the ones numpy.save writes");

  // Version 1.0 stores the header length in 2 bytes, later versions in 4 (little-endian).
  const size_t len_bytes = major == 1 ? 2 : 4;
  unsigned char len_buf[4] = {0, 0, 0, 0};
  if (src.read(len_buf, len_bytes) < len_bytes) npy_read_error(source, "the file ends inside the header length");
  const size_t header_len = len_buf[0] | len_buf[1] << 8 | size_t{len_buf[2]} << 16 | size_t{len_buf[3]} << 24;
  if (header_len > kMaxHeaderLen)
    npy_read_error(source, fmt::format("the header length {} is implausibly large", header_len));
  std::string header(header_len, '\0');
  if (size_t n = src.read(header.data(), header_len); n < header_len)
    npy_read_error(source, fmt::format("the header is truncated ({} of {} bytes)", n, header_len));

  const NpyHeader h = parse_npy_header(header, source);
  const size_t esize = dtype_size(h.dtype);
  const uint64_t data_bytes = static_cast<uint64_t>(shape_numel(h.shape)) * esize;
  const std::string what = fmt::format("shape {} of {}", shape_str(h.shape), dtype_name(h.dtype));
  // Check the size before allocating, so a bad header cannot ask for terabytes.
  if (std::optional<uint64_t> left = src.remaining()) {
    if (*left < data_bytes)
      npy_read_error(source, fmt::format("the data is truncated: {} needs {} bytes, the file has {}", what,
                                         data_bytes, *left),
                     "the file was cut short (an interrupted write or download?); write it again");
    if (*left > data_bytes)
      npy_read_error(source, fmt::format("data size mismatch: {} needs {} bytes, the file has {} ({} extra)",
                                         what, data_bytes, *left, *left - data_bytes));
  }

  Tensor t = Tensor::empty(h.dtype, h.shape);
  if (data_bytes) {
    if (size_t n = src.read(t.raw_data(), data_bytes); n < data_bytes)
      npy_read_error(source, fmt::format("the data is truncated: {} needs {} bytes, the file has {}", what,
                                         data_bytes, n));
  }
  const size_t count = static_cast<size_t>(t.numel());
  if (h.swap) swap_bytes(t.raw_data(), count, esize);
  if (h.dtype == DType::Bool) {
    // Any nonzero byte is True in NumPy; a C++ bool must hold exactly 0 or 1.
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < count; ++i) p[i] = p[i] != 0;
  }
  if (h.fortran) return t.view(h.shape, fortran_strides(h.shape), 0);
  return t;
}

// ---- Writing -------------------------------------------------------------------------

std::string_view descr_of(DType dtype) {
  switch (dtype) {
    case DType::Bool: return "|b1";
    case DType::Int8: return "|i1";
    case DType::UInt8: return "|u1";
    case DType::Int16: return "<i2";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Float16: return "<f2";
    // NumPy has no bfloat16: ml_dtypes' arrays save as 2-byte raw values, read back with
    // np.load(...).view(ml_dtypes.bfloat16); tgc reads "<V2" as bfloat16 (npy_header.cpp).
    case DType::BFloat16: return "<V2";
  }
  TGC_INTERNAL_CHECK(false, "descr_of: unknown dtype");
  return "";
}

// The prefix and header exactly as numpy.save writes them, so files compare byte for byte.
std::string header_bytes(DType dtype, const Shape& shape) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 descr_of(dtype), shape_str(shape));
  if (!shape.empty()) dict.append(kGrowthDigits - std::to_string(shape[0]).size(), ' ');
  for (int major : {1, 2}) {
    const size_t prefix = kMagic.size() + 2 + (major == 1 ? 2 : 4);
    const size_t text_len = dict.size() + 1;  // + the final newline
    const size_t pad = kAlign - (prefix + text_len) % kAlign;
    const size_t total = text_len + pad;
    if (major == 1 && total > 0xffff) continue;
    std::string out(kMagic);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < prefix - kMagic.size() - 2; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  TGC_INTERNAL_CHECK(false, "header_bytes: a version 2.0 header always fits");
  return "";
}

// A host, C-contiguous, little-endian copy (or `t` itself when it already is one).
Tensor host_little_endian(const Tensor& t) {
  if (!t.defined())
    throw ValueError("write_npy: the tensor is undefined (default-constructed)", "",
                     "create it with Tensor::empty/zeros/from_vector or take a function's result");
  Tensor host = t.on_host() ? t.contiguous() : t.to(host_device());
  if (std::endian::native == std::endian::big && dtype_size(host.dtype()) > 1) {
    host = host.copy();
    swap_bytes(host.raw_data(), static_cast<size_t>(host.numel()), dtype_size(host.dtype()));
  }
  return host;
}

}  // namespace

Tensor parse_npy(std::string_view bytes, const std::string& source_name) {
  MemorySource src(bytes);
  return read_from(src, source_name);
}

Tensor read_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    npy_read_error(path, "it is a directory", "pass the path of a .npy file");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    int err = errno;
    npy_read_error(path, std::strerror(err),
                   err == ENOENT ? fmt::format("check the path; relative paths start at the current directory {}",
                                               std::filesystem::current_path(ec).string())
                                 : std::string("check that the file exists and is readable"));
  }
  FileSource src(f.get(), path);
  return read_from(src, path);
}

std::string npy_bytes(const Tensor& t) {
  Tensor host = host_little_endian(t);
  std::string out = header_bytes(host.dtype(), host.shape());
  if (host.nbytes()) out.append(static_cast<const char*>(host.raw_data()), host.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& t) {
  Tensor host = host_little_endian(t);
  const std::string header = header_bytes(host.dtype(), host.shape());
  auto write_error = [&](int err) {
    throw IOError(fmt::format("cannot write .npy file '{}': {}", path, std::strerror(err)), "",
                  "check that the directory exists, is writable and has free space");
  };
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) write_error(errno);
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  if (ok && host.nbytes()) ok = std::fwrite(host.raw_data(), 1, host.nbytes(), f) == host.nbytes();
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(path.c_str());  // leave no half-written file behind
    write_error(err);
  }
}

}  // namespace tgc

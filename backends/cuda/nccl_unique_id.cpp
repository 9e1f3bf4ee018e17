// The hex form of NCCL unique ids and the launcher's make_nccl_unique_id_hex.
#include "backends/cuda/nccl_unique_id.h"

#include "backends/cuda/nccl_entry.h"
#include "backends/cuda/nccl_library.h"
#include "runtime/error.h"

namespace tgc::cuda {

std::string unique_id_to_hex(const ncclUniqueId& id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * sizeof(id.internal));
  for (char c : id.internal) {
    const auto b = static_cast<unsigned char>(c);
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

ncclUniqueId unique_id_from_hex(std::string_view hex, std::string_view source) {
  ncclUniqueId id{};
  const size_t want = 2 * sizeof(id.internal);
  auto bad = [&](const std::string& what) {
    return CommError("the NCCL unique id in " + std::string(source) + " is malformed: " + what, "",
                     "it is set by `tgc launch` (" + std::to_string(want) +
                         " hex digits); unset it when not starting ranks with tgc launch");
  };
  if (hex.size() != want)
    throw bad(std::to_string(hex.size()) + " characters where " + std::to_string(want) + " hex digits belong");
  for (size_t i = 0; i < sizeof(id.internal); ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw bad("'" + std::string(hex.substr(2 * i, 2)) + "' at " + std::to_string(2 * i) +
                                    " is not a hex byte");
    id.internal[i] = static_cast<char>(hi << 4 | lo);
  }
  return id;
}

ncclUniqueId make_unique_id() {
  const NcclApi& api = nccl_api();
  ncclUniqueId id{};
  const ncclResult_t r = api.GetUniqueId(&id);
  if (r != ncclSuccess)
    throw CommError("NCCL call ncclGetUniqueId failed: " + nccl_error_text(r), "",
                    "NCCL's bootstrap needs a usable network interface (NCCL_SOCKET_IFNAME chooses one); run with "
                    "NCCL_DEBUG=INFO for details");
  return id;
}

}  // namespace tgc::cuda

namespace tgc {

std::string make_nccl_unique_id_hex() { return cuda::unique_id_to_hex(cuda::make_unique_id()); }

}  // namespace tgc

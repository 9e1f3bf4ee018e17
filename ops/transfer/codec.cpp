// Codecs of the transfer family (ops/core/op_codec.h): HostToDevice and DeviceToHost hold no
// parameters (the device is the function's, chosen when it is compiled), so their fields are
// an empty object.
#include <memory>

#include "ops/core/op_codec.h"
#include "ops/transfer/transfer.h"
#include "runtime/error.h"

namespace tgc {
namespace {

template <class T>
Json write_transfer(const T&, OpWriteContext&) {
  return Json::object();
}

template <class T>
std::shared_ptr<const Op> read_transfer(const Json& f, OpReadContext&) {
  if (!f.is_object()) throw IOError(T().name() + ": the fields are not an object: " + f.dump());
  return std::make_shared<T>();
}

[[maybe_unused]] const bool registered =
    register_op_codec<HostToDevice>("HostToDevice", write_transfer<HostToDevice>, read_transfer<HostToDevice>) &&
    register_op_codec<DeviceToHost>("DeviceToHost", write_transfer<DeviceToHost>, read_transfer<DeviceToHost>);

}  // namespace
}  // namespace tgc

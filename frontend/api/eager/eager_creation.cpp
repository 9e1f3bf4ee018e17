// Devices by name and tensors made on a device: nd::empty/zeros/ones/full/arange/array.
// Values made on a device are filled there (a compiled fill, cached like every eager call),
// never on the host and copied.
#include <tgc/creation.h>
#include <tgc/eager.h>

#include "frontend/api/backend_choice.h"
#include "frontend/api/eager/eager_run.h"

namespace tgc {

Device& device(const std::string& name) { return device_by_name(name); }
Device& gpu_device(int ordinal) { return device_by_name("cuda:" + std::to_string(ordinal)); }
std::string device_name(const Device& d) { return d.name(); }

Tensor to_device(const Tensor& host, Device& device) { return nd::array(host, device); }

namespace nd {

namespace {

DType dtype_or_floatX(std::optional<DType> dtype) { return dtype ? *dtype : global_config().floatX; }

// A graph without operands, computed on `device`.
Tensor made_on(Device& device, const Var& value) { return eager_impl::run_recorded({value}, {}, device).at(0); }

// On a device: fill(like, value) over a shape carrier, so one compiled call per dtype, rank
// and value serves every size.
Tensor filled(const Shape& shape, double value, DType dtype, Device& device) {
  if (device.kind() == DeviceKind::Host) return Tensor::full(dtype, shape, value);
  const eager_impl::Leaf like = eager_impl::make_leaf(eager_impl::shape_carrier(shape, device), 0);
  return eager_impl::run_recorded({fill(Var(like.var), constant(value, dtype))}, {like}, device).at(0);
}

}  // namespace

Tensor empty(const Shape& shape, std::optional<DType> dtype, Device& device) {
  return Tensor::empty(dtype_or_floatX(dtype), shape, device);
}
Tensor zeros(const Shape& shape, std::optional<DType> dtype, Device& device) {
  return filled(shape, 0, dtype_or_floatX(dtype), device);
}
Tensor ones(const Shape& shape, std::optional<DType> dtype, Device& device) {
  return filled(shape, 1, dtype_or_floatX(dtype), device);
}
Tensor full(const Shape& shape, double value, std::optional<DType> dtype, Device& device) {
  return filled(shape, value, dtype_or_floatX(dtype), device);
}
Tensor arange(double start, double stop, double step, std::optional<DType> dtype, Device& device) {
  return made_on(device, tgc::arange(start, stop, step, dtype));
}
Tensor array(const Tensor& value, Device& device) {
  if (!value.defined())
    throw ValueError("nd::array: the value is an undefined tensor", "", "make it first, e.g. Tensor::from_vector");
  return value.to(device);
}

}  // namespace nd
}  // namespace tgc

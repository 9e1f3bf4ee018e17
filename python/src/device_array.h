// tgc.DeviceArray's C++ side, shared by its protocols (device_array.cpp) and its eager
// operations (eager.cpp): a Tensor, on a device or the host, possibly pending (docs/eager.md).
#pragma once

#include <optional>

#include "python/src/bindings.h"

namespace tgc::python {

struct DeviceArray {
  Tensor tensor;
  nb::object view;  // nanobind's DLPack-capable view of the memory, made on first use
};

// The tensor of a tgc.DeviceArray, or nullopt for any other object.
std::optional<Tensor> device_array_tensor(nb::handle obj);

// The eager operations (operators, methods) on DeviceArray and the functions behind tgc.nd.
void bind_eager(nb::module_& m, nb::class_<DeviceArray>& cls);

}  // namespace tgc::python

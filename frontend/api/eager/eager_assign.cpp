// Writes into tensors (<tgc/eager.h>: assign): mxnet's a[:] = v and a[1:3] = v, PyCUDA's
// a_gpu[...] = v. The value is broadcast to the selected elements and cast to the tensor's
// dtype, as NumPy's assignment does, and written into the tensor's own memory, so every tensor
// sharing it sees the new values. Recorded graphs (lazy fusion) that read that memory are
// computed first, so they see the values from before the write, as if they had run at once.
#include <tgc/eager.h>

#include "backends/gpu/device_copy.h"
#include "frontend/api/eager/eager_expr.h"
#include "frontend/api/index_spec_of.h"
#include "runtime/device_lock.h"

namespace tgc {
namespace {

// The elements of `dst` that NumPy's basic index `index` selects: a view of dst's memory.
Tensor basic_view(const Tensor& dst, const std::vector<Index>& index) {
  std::vector<Var> arrays;
  const IndexSpec spec = index_spec_of(index, arrays);
  if (!arrays.empty())
    throw TypeError("assign(): an index entry is a symbolic Var", "assign",
                    "index with numbers, slices and newaxis; for an index array, write "
                    "assign(x, eager(set_subtensor(...)))");
  const IndexLayout l = resolve_index("assign", spec, dst.shape(), dst.strides(), {});
  return dst.view(l.view_shape, l.view_strides, dst.offset() + l.view_offset);
}

// dst's elements = value's (same shape, dtype and device; either with any strides).
void write(const Tensor& dst, const Tensor& value) {
  if (dst.numel() == 0) return;
  if (dst.on_host()) {
    copy_elements(value, dst);
    return;
  }
  auto* gpu = dynamic_cast<gpu::GpuDevice*>(&dst.device());
  TGC_INTERNAL_CHECK(gpu != nullptr, "assign(): a device tensor on a device without the GPU layer");
  const Tensor& src = value;
  DeviceUseLock use(dst.device());
  if (dst.is_contiguous()) {
    gpu::copy_strided(*gpu, src, dst);  // src's strides (0 for a broadcast value) read on the device
    return;
  }
  // A strided selection (a column, every other row, a reversed slice): its memory span goes to
  // the host, takes the values there and comes back, one dense copy each way.
  int64_t lo = 0, hi = 0;  // the lowest and highest element offsets from dst's first element
  for (int d = 0; d < dst.ndim(); ++d) (dst.strides()[d] < 0 ? lo : hi) += (dst.shape()[d] - 1) * dst.strides()[d];
  const size_t item = dtype_size(dst.dtype());
  const Tensor span = Tensor::view_of(dst.buffer(), dst.dtype(), {hi - lo + 1}, {1}, dst.offset() + lo);
  Tensor host = span.to(host_device());
  copy_elements(src.to(host_device()), host.view(dst.shape(), dst.strides(), -lo));
  dst.device().copy_from_host(span.raw_data(), host.raw_data(), static_cast<size_t>(hi - lo + 1) * item,
                              dst.device().default_stream());
  dst.device().synchronize();  // the host copy dies with this scope
}

}  // namespace

void assign(const Tensor& dst, const Tensor& value) { assign(dst, {}, value); }

void assign(const Tensor& dst, double value) { assign(dst, {}, Tensor::full(dst.dtype(), {}, value)); }

void assign(const Tensor& dst, const std::vector<Index>& index, const Tensor& value) {
  if (dst.is_pending())
    throw ValueError("assign(): the tensor is the pending result of an eager operation", "assign",
                     "write into a tensor that holds memory: eval() it first and write into that");
  const Tensor target = index.empty() ? dst : basic_view(dst, index);
  Tensor v = value.eval();
  if (v.dtype() != target.dtype()) v = v.astype(target.dtype());
  // A value that shares the tensor's memory (a[1:] = a[:-1]) is copied first, as NumPy does.
  if (v.shares_buffer(target)) v = v.copy();
  // Moved before it is broadcast: a scalar crosses the bus as one element.
  if (&v.device() != &target.device()) v = v.to(target.device());
  v = v.broadcast_to(target.shape());
  // Recorded graphs that read this memory run now, with the values from before the write.
  eager_impl::compute_readers_of(target.buffer().get());
  write(target, v);
}

void assign(const Tensor& dst, const std::vector<Index>& index, double value) {
  assign(dst, index, Tensor::full(dst.dtype(), {}, value));
}

}  // namespace tgc

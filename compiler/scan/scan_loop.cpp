// run_scan(): step counting, the buffers a loop writes (histories, windows, stacked outputs,
// accumulations), binding each step's inputs as views and copying its results into place.
#include "compiler/scan/scan_loop.h"

#include <algorithm>

#include "runtime/error.h"

namespace tgc {

namespace {

Shape drop_first(const Shape& s) { return Shape(s.begin() + 1, s.end()); }

Shape with_rows(int64_t rows, const Shape& s) {
  Shape out{rows};
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

// Rows [begin, begin + count) of `t`: a view.
Tensor row_range(const Tensor& t, int64_t begin, int64_t count) {
  Shape shape = t.shape();
  shape[0] = count;
  return t.view(shape, t.strides(), t.offset() + begin * (t.ndim() ? t.strides()[0] : 0));
}

std::string taps_str(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// The same error with the step named in its message: which step failed matters as much as
// which node did.
[[noreturn]] void rethrow_in_step(const Error& e, const std::string& step) {
  const std::string what = e.what_part() + " (" + step + ")";
#define TGC_RETHROW_AS(T) \
  if (dynamic_cast<const T*>(&e)) throw T(what, e.where(), e.hint());
  TGC_RETHROW_AS(TypeError)
  TGC_RETHROW_AS(ShapeError)
  TGC_RETHROW_AS(ValueError)
  TGC_RETHROW_AS(InputError)
  TGC_RETHROW_AS(DeviceError)
  TGC_RETHROW_AS(CommError)
  TGC_RETHROW_AS(InternalError)
#undef TGC_RETHROW_AS
  throw Error(what, e.where(), e.hint());
}

// A state that keeps only its last value (taps {-1}, no history): the step's result is bound
// as the next step's input as it is, with no copy into a buffer of the loop's. A step never
// writes into its inputs, and its program gives a result the buffer of an earlier result
// only when nothing else holds it, so the carried value stays intact.
bool carried(const ScanState& st) { return !st.keep_history && st.taps == std::vector<int>{-1}; }

bool same_memory(const Tensor& a, const Tensor& b) {
  return a.buffer() == b.buffer() && a.offset() == b.offset() && a.strides() == b.strides();
}

}  // namespace

Tensor scan_row(const Tensor& t, int64_t i) {
  return t.view(drop_first(t.shape()), Strides(t.strides().begin() + 1, t.strides().end()),
                t.offset() + i * t.strides()[0]);
}

int64_t scan_steps(const ScanSpec& spec, const std::vector<Tensor>& inputs,
                   const std::function<int64_t(const Tensor&)>& read_int) {
  const std::string loop = "scan " + spec.name;
  std::optional<int64_t> n = spec.n_steps;
  if (spec.n_steps_input) {
    n = read_int ? read_int(inputs[0]) : inputs[0].to_host().item<int64_t>();
    if (*n < 0)
      throw ValueError(loop + ": n_steps is " + std::to_string(*n), "",
                       "the number of steps must be >= 0 (use go_backwards=true to run backwards)");
  }
  if (spec.steps_from_input >= 0) n = inputs[spec.steps_from_input].shape()[0] - spec.steps_from_sub;
  const bool given = n.has_value();
  for (size_t s = 0; s < spec.sequences.size(); ++s) {
    const ScanSequence& seq = spec.sequences[s];
    const Tensor& x = inputs[spec.first_sequence_input() + s];
    const int64_t span = seq.offsets.back();
    const int64_t available = x.shape()[0] - span;
    if (!given) {
      if (available < 0)
        throw ValueError(loop + ": sequence " + seq.name + " has " + std::to_string(x.shape()[0]) +
                             " rows, fewer than its taps span (" + std::to_string(span + 1) + ")",
                         "", "give a longer sequence or fewer taps");
      n = n ? std::min(*n, available) : available;
    } else if (available < *n) {
      throw ValueError(loop + ": sequence " + seq.name + " has " + std::to_string(x.shape()[0]) + " rows; " +
                           std::to_string(*n) + " steps need " + std::to_string(*n + span),
                       "", "pass n_steps no larger than the shortest sequence allows");
    }
  }
  TGC_INTERNAL_CHECK(n.has_value(), loop + ": no sequence and no step count");
  return std::max<int64_t>(*n, 0);
}

void run_scan(const ScanSpec& spec, const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs,
              const ScanLoopHooks& hooks) {
  const std::string loop = "scan " + spec.name;
  auto read_int = [&](const Tensor& t) -> int64_t {
    if (hooks.read_int) return hooks.read_int(t);
    return t.to_host().item<int64_t>();
  };
  const int64_t n = scan_steps(spec, inputs, read_int);
  const int64_t iterations = spec.truncate >= 0 ? std::min(n, spec.truncate) : n;
  Device& device = hooks.device ? *hooks.device : host_device();
  const size_t num_states = spec.states.size();
  const int nit = spec.num_outputs_per_step;

  // States: a history of k + iterations rows, or a ring of k rows holding value m at row m mod k.
  std::vector<Tensor> state_buffer(num_states);
  std::vector<Shape> state_shape(num_states);
  for (size_t s = 0; s < num_states; ++s) {
    const ScanState& st = spec.states[s];
    const Tensor& init = inputs[spec.first_state_input() + s];
    const int64_t k = st.window();
    state_shape[s] = st.init_is_single ? init.shape() : drop_first(init.shape());
    if (!st.init_is_single && init.shape()[0] < k)
      throw ValueError(loop + ": the initial value of state " + std::to_string(s) + " has " +
                           std::to_string(init.shape()[0]) + " rows; taps " + taps_str(st.taps) + " need " +
                           std::to_string(k),
                       "", "give the last " + std::to_string(k) + " values before the first step as rows");
    if (carried(st)) {
      // The value itself is carried from step to step: no buffer, no copy (see carried()).
      state_buffer[s] = st.init_is_single ? init : scan_row(init, init.shape()[0] - 1);
      continue;
    }
    state_buffer[s] = Tensor::empty(init.dtype(), with_rows(st.keep_history ? k + iterations : k, state_shape[s]), device);
    if (st.init_is_single) hooks.copy(init, scan_row(state_buffer[s], 0));
    else if (st.keep_history) hooks.copy(row_range(init, init.shape()[0] - k, k), row_range(state_buffer[s], 0, k));
    else
      // Value -j (init row k - j) lives at ring row (-j) mod k.
      for (int64_t j = 1; j <= k; ++j)
        hooks.copy(scan_row(init, init.shape()[0] - j), scan_row(state_buffer[s], ((-j) % k + k) % k));
  }
  std::vector<Tensor> accumulation(spec.accumulations.size());
  for (size_t a = 0; a < accumulation.size(); ++a) {
    const Tensor& init = inputs[spec.first_accumulation_input() + a];
    accumulation[a] = Tensor::empty(init.dtype(), init.shape(), device);
    hooks.copy(init, accumulation[a]);
    const int64_t need = n + spec.accumulations[a].offsets.back();
    if (init.shape()[0] < need)
      throw ValueError(loop + ": accumulation " + spec.accumulations[a].name + " has " +
                       std::to_string(init.shape()[0]) + " rows; " + std::to_string(n) + " steps need " +
                       std::to_string(need));
  }
  std::vector<Tensor> stacked(nit);

  std::vector<Tensor> in(spec.num_inner_inputs());
  for (int k = 0; k < spec.num_non_sequences; ++k)
    in[spec.inner_non_sequence_input(k)] = inputs[spec.first_non_sequence_input() + k];
  std::vector<Tensor> out;
  int64_t done = 0;
  for (int64_t i = 0; i < iterations; ++i) {
    const int64_t t = spec.reverse ? n - 1 - i : i;
    for (size_t s = 0; s < spec.sequences.size(); ++s) {
      const Tensor& x = inputs[spec.first_sequence_input() + s];
      for (size_t j = 0; j < spec.sequences[s].offsets.size(); ++j)
        in[spec.inner_sequence_input(static_cast<int>(s), static_cast<int>(j))] =
            scan_row(x, t + spec.sequences[s].offsets[j]);
    }
    for (size_t s = 0; s < num_states; ++s) {
      const ScanState& st = spec.states[s];
      const int64_t k = st.window();
      if (carried(st)) {
        in[spec.inner_state_input(static_cast<int>(s), 0)] = state_buffer[s];
        continue;
      }
      for (size_t j = 0; j < st.taps.size(); ++j) {
        const int64_t row = st.keep_history ? k + i + st.taps[j] : ((i + st.taps[j]) % k + k) % k;
        in[spec.inner_state_input(static_cast<int>(s), static_cast<int>(j))] = scan_row(state_buffer[s], row);
      }
    }
    for (size_t a = 0; a < accumulation.size(); ++a)
      for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
        in[spec.inner_accumulation_input(static_cast<int>(a), static_cast<int>(j))] =
            scan_row(accumulation[a], t + spec.accumulations[a].offsets[j]);

    // Named only when an error needs it: the loop runs every step of every call.
    auto step_name = [&] { return "step " + std::to_string(t) + " of " + loop; };
    try {
      out.assign(spec.num_inner_outputs(), Tensor());
      hooks.step(in, out);
    } catch (const Error& e) {
      rethrow_in_step(e, step_name());
    }
    // A step's result checked against the place it goes (`what` names it, only on error).
    auto expect_like = [&](const Tensor& value, const Shape& shape, DType dtype, auto&& what) {
      if (value.shape() != shape || value.dtype() != dtype)
        throw ValueError(loop + ": " + step_name() + " gives " + what() + " of shape " + shape_str(value.shape()) +
                             " where " + shape_str(shape) + " is expected",
                         "", "a recurrent or stacked result must keep its shape from step to step");
    };
    auto put = [&](const Tensor& value, const Tensor& dst, auto&& what) {
      expect_like(value, dst.shape(), dst.dtype(), what);
      if (!same_memory(value, dst)) hooks.copy(value, dst);
    };
    for (size_t s = 0; s < num_states; ++s) {
      const ScanState& st = spec.states[s];
      const int64_t k = st.window();
      auto name = [s] { return "state " + std::to_string(s); };
      if (carried(st)) {
        expect_like(out[s], state_shape[s], state_buffer[s].dtype(), name);
        state_buffer[s] = out[s];
        continue;
      }
      put(out[s], scan_row(state_buffer[s], st.keep_history ? k + i : i % k), name);
    }
    for (int k = 0; k < nit; ++k) {
      const Tensor& v = out[num_states + k];
      if (!stacked[k].defined()) stacked[k] = Tensor::empty(v.dtype(), with_rows(n, v.shape()), device);
      put(v, scan_row(stacked[k], t), [k] { return "per-step output " + std::to_string(k); });
    }
    for (size_t a = 0; a < accumulation.size(); ++a)
      for (size_t j = 0; j < spec.accumulations[a].offsets.size(); ++j)
        put(out[spec.inner_accumulation_output(static_cast<int>(a), static_cast<int>(j))],
            scan_row(accumulation[a], t + spec.accumulations[a].offsets[j]),
            [&] { return "accumulation " + spec.accumulations[a].name; });
    done = i + 1;
    if (spec.has_until && read_int(out.back()) != 0) break;
  }

  outputs.assign(spec.num_node_outputs(), Tensor());
  for (size_t s = 0; s < num_states; ++s) {
    const ScanState& st = spec.states[s];
    const int64_t k = st.window();
    if (carried(st)) {
      // The last value, as the one-row window the node's output is.
      const Tensor& v = state_buffer[s];
      Shape shape = with_rows(1, v.shape());
      Strides strides{0};
      strides.insert(strides.end(), v.strides().begin(), v.strides().end());
      outputs[s] = v.view(shape, strides, v.offset());
    } else if (st.keep_history) {
      outputs[s] = done < iterations ? row_range(state_buffer[s], 0, k + done) : state_buffer[s];
    } else if (k == 1) {
      outputs[s] = state_buffer[s];
    } else {
      // The ring holds value m at row m mod k: the last k values, oldest first.
      Tensor window = Tensor::empty(state_buffer[s].dtype(), state_buffer[s].shape(), device);
      for (int64_t r = 0; r < k; ++r)
        hooks.copy(scan_row(state_buffer[s], ((done - k + r) % k + k) % k), scan_row(window, r));
      outputs[s] = window;
    }
  }
  for (int k = 0; k < nit; ++k) {
    Tensor& st = stacked[k];
    if (!st.defined()) {
      // No step ran: zero rows, the step's static dims (0 where a dim is not known).
      Shape shape{0};
      for (int64_t d : hooks.per_step_types.at(k).shape) shape.push_back(d == kUnknownDim ? 0 : d);
      outputs[num_states + k] = Tensor::empty(hooks.per_step_types[k].dtype, shape, device);
      continue;
    }
    outputs[num_states + k] = done < n ? row_range(st, 0, done) : st;
  }
  for (size_t a = 0; a < accumulation.size(); ++a) outputs[num_states + nit + a] = accumulation[a];
}

}  // namespace tgc

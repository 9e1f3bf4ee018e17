// The entries of a reduction kernel. Each output element folds its reduced elements into one
// accumulator per Reduce value (floats' sums and products in double, integers in wrapping
// 64 bits, max/min letting NaN win, as the reference), then runs the epilogue. Four
// deterministic schedules: a thread per output (C order, as the reference), a block per
// output (lane l folds l, l+T, ... then a fixed tree: warp shuffles in CUDA, a local-memory
// tree in OpenCL), and two passes for few outputs with long reductions (blocks reduce fixed
// chunks into scratch; a block per output combines the chunks in a fixed tree: in CUDA the
// pass-1 block that finishes an output's chunks last, in OpenCL a second launch), and for
// column reductions (the kept innermost dim dense) threads over (output, stretch of rows)
// whose partials pass 2 combines (and a vector form: four adjacent outputs a thread, a block's
// row lanes combined in shared memory). The block and pass-1 schedules also come as vector
// entries that read 16 bytes per lane along a dense reduced dim. No atomics on values: the same plan
// gives the same bits on every run.
#include <fmt/format.h>

#include <limits>

#include "backends/c_family/render_common.h"
#include "runtime/error.h"

namespace tgc::cfam::detail {

namespace {

std::vector<int> reduce_values(const Kernel& k) {
  std::vector<int> r;
  for (size_t i = 0; i < k.values.size(); ++i)
    if (k.values[i].kind == KernelValue::Kind::Reduce) r.push_back(static_cast<int>(i));
  return r;
}

bool float_domain(const KernelValue& v) { return is_float(v.dtype); }

// The accumulator's type: double for float sums/products/means, the float type itself for
// max/min, 64-bit integers for integer ones, int for all/any.
std::string acc_type(const Ctx& c, const KernelValue& v) {
  switch (v.reduce_op) {
    case KernelReduceOp::Sum:
    case KernelReduceOp::Prod:
    case KernelReduceOp::Mean: return float_domain(v) ? "double" : "tgc_i64";
    case KernelReduceOp::Max:
    case KernelReduceOp::Min: return float_domain(v) ? register_type(v.dtype, c.d.dialect()) : "tgc_i64";
    case KernelReduceOp::All:
    case KernelReduceOp::Any: return "int";
  }
  return "?";
}

std::string int_limit(const Ctx& c, DType t, bool lowest) {
  int64_t v = 0;
  switch (t) {
    case DType::Bool: v = lowest ? 0 : 1; break;
    case DType::Int8: v = lowest ? -128 : 127; break;
    case DType::UInt8: v = lowest ? 0 : 255; break;
    case DType::Int16: v = lowest ? -32768 : 32767; break;
    case DType::Int32: v = lowest ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int32_t>::max(); break;
    case DType::Int64:
      return lowest ? fmt::format("(-9223372036854775807{} - 1)", c.d.cuda() ? "LL" : "L")
                    : fmt::format("9223372036854775807{}", c.d.cuda() ? "LL" : "L");
    default: break;
  }
  return fmt::format("((tgc_i64){}{})", v, c.d.cuda() ? "LL" : "L");
}

std::string init(const Ctx& c, const KernelValue& v) {
  const std::string inf = c.d.double_from_bits("0x7ff0000000000000");
  const std::string t = acc_type(c, v);
  switch (v.reduce_op) {
    case KernelReduceOp::Sum:
    case KernelReduceOp::Mean: return fmt::format("({})0", t);
    case KernelReduceOp::Prod: return fmt::format("({})1", t);
    case KernelReduceOp::Max: return float_domain(v) ? fmt::format("({})(-{})", t, inf) : int_limit(c, v.dtype, true);
    case KernelReduceOp::Min: return float_domain(v) ? fmt::format("({})({})", t, inf) : int_limit(c, v.dtype, false);
    case KernelReduceOp::All: return "1";
    case KernelReduceOp::Any: return "0";
  }
  return "?";
}

std::string combine_body(const KernelValue& v) {
  const bool f = float_domain(v);
  switch (v.reduce_op) {
    case KernelReduceOp::Sum:
    case KernelReduceOp::Mean: return f ? "a + b" : "tgc_wrap_add(a, b)";
    case KernelReduceOp::Prod: return f ? "a * b" : "tgc_wrap_mul(a, b)";
    case KernelReduceOp::Max: return f ? "(b > a || isnan(b)) ? b : a" : "b > a ? b : a";
    case KernelReduceOp::Min: return f ? "(b < a || isnan(b)) ? b : a" : "b < a ? b : a";
    case KernelReduceOp::All: return "(a != 0 && b != 0) ? 1 : 0";
    case KernelReduceOp::Any: return "(a != 0 || b != 0) ? 1 : 0";
  }
  return "?";
}

// The finished accumulator as the value's register type.
std::string finish(const Ctx& c, const KernelValue& v, const std::string& acc) {
  const std::string t = register_type(v.dtype, c.d.dialect());
  switch (v.reduce_op) {
    case KernelReduceOp::Mean: return fmt::format("({})({} / (double)n_red)", t, acc);  // 0/0 is NaN, as Mean
    case KernelReduceOp::All:
    case KernelReduceOp::Any: return fmt::format("({} != 0)", acc);
    default: break;
  }
  if (v.dtype == DType::Bool) return fmt::format("({} != 0)", acc);
  return fmt::format("({})({})", t, acc);
}

class ReductionWriter {
 public:
  explicit ReductionWriter(const Ctx& c) : c_(c), reduces_(reduce_values(c.k)) {}

  std::string helpers() const {
    std::string s;
    for (size_t k = 0; k < reduces_.size(); ++k) {
      const KernelValue& v = c_.k.values[reduces_[k]];
      const std::string t = acc_type(c_, v);
      s += fmt::format("{} {} {}_comb{}({} a, {} b) {{ return {}; }}\n", c_.d.helper_qualifier(), t, c_.prefix, k, t, t,
                       combine_body(v));
    }
    // Prologue: loop-space loads -> each Reduce value's argument.
    std::vector<int> params, results;
    for (int j = 0; j < c_.nin(); ++j)
      if (!c_.k.inputs[j].in_output_space) params.push_back(load_value(c_.k, j));
    for (int r : reduces_) results.push_back(c_.k.values[r].args[0]);
    s += element_function(c_, c_.prefix + "_prologue", params, results);
    // Epilogue: finished reductions and output-space loads -> outputs.
    params = reduces_;
    for (int j = 0; j < c_.nin(); ++j)
      if (c_.k.inputs[j].in_output_space) params.push_back(load_value(c_.k, j));
    results.clear();
    for (const KernelOutput& o : c_.k.outputs) results.push_back(o.value);
    s += element_function(c_, c_.prefix + "_epilogue", params, results);
    return s;
  }

  std::string entry(EntryKind kind, bool index32) {
    idx_ = index32 ? "int" : c_.d.i64();
    std::string s = c_.open_entry(kind, index32);
    s += "  int tgc_errors = 0;\n  (void)scratch; (void)errors;\n";
    s += fmt::format("  const {0} n_out = {1};\n  const {0} n_red = {2};\n", idx_, c_.param(ParamLayout::kNOut, idx_),
                     c_.param(ParamLayout::kNRed, idx_));
    s += fmt::format("  const {0} chunks = {1};\n", idx_, c_.param(ParamLayout::kChunks, idx_));
    s += fmt::format("  const int krank = (int)P.v[{}];\n  const int rrank = (int)P.v[{}];\n", ParamLayout::kKeptRank,
                     ParamLayout::kRedRank);
    s += "  (void)n_red; (void)chunks; (void)rrank;\n";
    s += fmt::format("  const {0} tid = ({0}){1} * ({0}){2} + ({0}){3};\n", idx_, c_.d.block_index(),
                     c_.d.block_size(), c_.d.thread_index());
    s += fmt::format("  const {0} step = ({0}){1} * ({0}){2};\n", idx_, c_.d.grid_size(), c_.d.block_size());
    s += fmt::format("  const int lid = {};\n  const int lsize = {};\n", c_.d.thread_index(), c_.d.block_size());
    s += "  (void)tid; (void)step; (void)lid; (void)lsize;\n";
    if (kind != EntryKind::RedThread && kind != EntryKind::RedColumn && kind != EntryKind::RedColumnVector)
      for (size_t k = 0; k < reduces_.size(); ++k)
        s += fmt::format("  {} {} tgc_sh{}[{}];\n", c_.d.shared(), acc_type(c_, value(k)), k, c_.d.has_shuffle() ? 32 : 256);
    if (kind == EntryKind::RedColumnVector)
      for (size_t k = 0; k < reduces_.size(); ++k)
        s += fmt::format("  {} {} tgc_col{}[{}];\n", c_.d.shared(), acc_type(c_, value(k)), k,
                         kColumnVectorBlock * kColumnVectorOutputs);
    if ((kind == EntryKind::RedPass1 || kind == EntryKind::RedPass1Vector) &&
        long_reduction(c_.d.dialect()).last_block_combines)
      s += "  __shared__ bool tgc_last;\n  unsigned int* tgc_tickets = (unsigned int*)(errors + 1);\n";
    const bool vector = kind == EntryKind::RedBlockVector || kind == EntryKind::RedPass1Vector;
    switch (kind) {
      case EntryKind::RedThread:
        s += fmt::format("  for ({} o = tid; o < n_out; o += step) {{\n", idx_);
        s += kept_offsets("o") + accumulators_init();
        s += fmt::format("    for ({} r = 0; r < n_red; ++r)\n", idx_) + fold_element("r");
        s += epilogue("    ") + "  }\n";
        break;
      case EntryKind::RedBlock:
      case EntryKind::RedBlockVector:
        s += fmt::format("  for ({0} o = ({0}){1}; o < n_out; o += ({0}){2}) {{\n", idx_, c_.d.block_index(),
                         c_.d.grid_size());
        s += kept_offsets("o") + accumulators_init();
        s += fmt::format("    const {0} first = lid, stride = lsize;\n", idx_);
        s += fold_range(vector);
        s += block_reduce() + "    if (lid == 0) {\n" + epilogue("      ") + "    }\n  }\n";
        break;
      case EntryKind::RedPass1:
      case EntryKind::RedPass1Vector:
        s += fmt::format("  for ({0} b = ({0}){1}; b < n_out * chunks; b += ({0}){2}) {{\n", idx_, c_.d.block_index(),
                         c_.d.grid_size());
        // Chunk c of output o: the block's lanes start at c's stretch of lsize elements (or
        // vectors) and stride over all the chunks' stretches, so the blocks of an output
        // sweep its row together, in address order.
        s += fmt::format("    const {0} o = b / chunks;\n    const {0} first = (b - o * chunks) * ({0})lsize + lid;\n",
                         idx_);
        s += fmt::format("    const {0} stride = chunks * ({0})lsize;\n", idx_);
        s += kept_offsets("o") + accumulators_init();
        s += fold_range(vector);
        s += block_reduce() + "    if (lid == 0) {\n";
        for (size_t k = 0; k < reduces_.size(); ++k) s += fmt::format("      {}[b] = acc{};\n", partials(k), k);
        s += "    }\n";
        if (long_reduction(c_.d.dialect()).last_block_combines) s += last_block_combines();
        s += "  }\n";
        break;
      case EntryKind::RedColumn:
        // Thread t folds output o = t % n_out over the rows of chunk t / n_out (a stretch of
        // `per` reduced elements, in order) into partial [o * chunks + chunk]: consecutive
        // threads read consecutive outputs of a row. Pass 2 combines an output's chunks in
        // order, so the bits do not depend on the schedule's timing.
        s += fmt::format("  for ({} t = tid; t < n_out * chunks; t += step) {{\n", idx_);
        s += fmt::format("    const {0} ch = t / n_out;\n    const {0} o = t - ch * n_out;\n", idx_);
        s += fmt::format("    const {0} per = (n_red + chunks - 1) / chunks;\n    const {0} r0 = ch * per;\n", idx_);
        s += fmt::format("    const {0} r1 = per < n_red - r0 ? r0 + per : n_red;  /* no overflow past n_red */\n", idx_);
        s += kept_offsets("o") + accumulators_init();
        s += unroll() + fmt::format("    for ({} r = r0; r < r1; ++r)\n", idx_) + fold_element("r");
        for (size_t k = 0; k < reduces_.size(); ++k) s += fmt::format("    {}[o * chunks + ch] = acc{};\n", partials(k), k);
        s += "  }\n";
        break;
      case EntryKind::RedColumnVector: s += column_vector_body(); break;
      case EntryKind::RedPass2:
        s += fmt::format("  for ({0} o = ({0}){1}; o < n_out; o += ({0}){2}) {{\n", idx_, c_.d.block_index(),
                         c_.d.grid_size());
        s += kept_offsets("o") + combine_partials(false) + "  }\n";
        break;
      default: TGC_INTERNAL_CHECK(false, "not a reduction entry");
    }
    return s + flush_errors(c_) + "}\n";
  }

 private:
  const KernelValue& value(size_t k) const { return c_.k.values[reduces_[k]]; }

  // Pass 2's work for output o (offsets q*): the block combines the chunks' partials (lanes
  // stride over the chunks, then the block's tree: one thread walking a thousand partials in
  // order is bound by their load latency) and runs the epilogue. `fresh`: the partials were
  // written by other blocks of this launch, so they are read past the (incoherent) L1.
  std::string combine_partials(bool fresh) const {
    std::string s = "    {\n" + accumulators_init();
    s += unroll() + fmt::format("    for ({} ch = lid; ch < chunks; ch += lsize) {{\n", idx_);
    for (size_t k = 0; k < reduces_.size(); ++k) {
      const std::string at = fmt::format("{}[o * chunks + ch]", partials(k));
      s += fmt::format("      acc{0} = {1}_comb{0}(acc{0}, {2});\n", k, c_.prefix, fresh ? "__ldcg(&" + at + ")" : at);
    }
    s += "    }\n" + block_reduce() + "    if (lid == 0) {\n" + epilogue("      ");
    if (fresh) s += "      tgc_tickets[o] = 0u;  /* zero again for the next launch */\n";
    return s + "    }\n    }\n";
  }

  // CUDA, after a pass-1 block stored output o's partial: it takes a ticket for o, and the
  // block taking the last one (all the chunks' partials are written) combines them, as pass 2
  // would, and zeroes the counter. The fences order each partial's store before its ticket and
  // the tickets before the combining block's loads; the order of the combination is fixed, so
  // results do not depend on which block comes last.
  std::string last_block_combines() const {
    std::string s = "    if (lid == 0) {\n      __threadfence();\n";
    s += "      tgc_last = atomicAdd(&tgc_tickets[o], 1u) == (unsigned)(chunks - 1);\n      __threadfence();\n    }\n";
    s += fmt::format("    {};\n    if (tgc_last) {{\n", c_.d.barrier());
    return s + combine_partials(true) + "    }\n";
  }

  // A lane folds the reduced elements first, first + stride, ... of output o. Scalar:
  // element indices. Vector (the plan guarantees one dense reduced dim with every row
  // 16-byte aligned): whole vectors first, first + stride, ..., then the elements after the
  // last whole vector, with the same first and stride. The vectors go in batches
  // of kReductionLoadBatch per lane, all loaded before the first is folded, so that a lane has that
  // many loads in flight whatever the compiler schedules. On an H100 this moved the sum of
  // squares' pass 1 from 74% to 75.5% of the DRAM bandwidth (28.5 -> 28.1 us a call): a small
  // gain; the warps still wait on memory most of the time. The fold order is the plain
  // loop's, so results do not change.
  std::string fold_range(bool vector) const {
    if (!vector) return unroll() + fmt::format("    for ({} r = first; r < n_red; r += stride)\n", idx_) + fold_element("r");
    const int w = reduction_vector_width(c_.k);
    std::string s;
    // Inputs constant along the reduction: one element an output, at the kept offsets.
    for (int j : loop_inputs())
      if (constant_along_reduction(c_.k, j))
        s += fmt::format("    const {} c{} = p{}[q{}];\n", memory_type(c_.k.inputs[j].dtype, c_.d.dialect()), j, j, j);
    s += fmt::format("    const {0} nv = n_red / {1};\n    {0} v = first;\n", idx_, w);
    s += fmt::format("    for (; v + {} * stride < nv; v += {} * stride) {{\n", kReductionLoadBatch - 1,
                     kReductionLoadBatch);
    for (int b = 0; b < kReductionLoadBatch; ++b)
      s += load_vectors(fmt::format("v + {} * stride", b), "_" + std::to_string(b));
    for (int b = 0; b < kReductionLoadBatch; ++b) s += fold_vectors("_" + std::to_string(b));
    s += "    }\n";
    s += "    for (; v < nv; v += stride) {\n" + load_vectors("v", "") + fold_vectors("") + "    }\n";
    s += fmt::format("    for ({} r = nv * {} + first; r < n_red; r += stride)\n", idx_, w) + fold_element("r");
    return s;
  }

  // RedColumnVector (the planner guarantees: int32 indices, the kept innermost dim a multiple
  // of W = kColumnVectorOutputs, every loop-space input one element or dense along it with
  // aligned rows). Block b takes tile b % tiles (G groups of W adjacent outputs, G = 32 or
  // fewer) and chunk b / tiles (a stretch of `per` rows); thread (gl, rl) folds group gl's W
  // outputs over the rows r0 + rl, r0 + rl + R, ... of the chunk, one vector per row and
  // input, so a warp reads whole rows of 32 * W outputs. The R row lanes then combine through
  // shared memory in lane order (thread rl = 0 folds lanes 1 .. R-1 into its own), and the
  // chunk's partial goes where RedColumn's would: pass 2 combines the chunks in order, so the
  // bits depend only on the plan.
  std::string column_vector_body() const {
    const int w = kColumnVectorOutputs;
    std::string s = fmt::format("  const {0} groups = n_out / {1};\n", idx_, w);
    s += "  const int G = groups < 32 ? (int)groups : 32;\n  const int R = lsize / G;\n";
    s += "  const int gl = lid % G, rl = lid / G;\n";
    s += fmt::format("  const {0} tiles = (groups + G - 1) / G;\n", idx_);
    s += fmt::format("  const {0} per = (n_red + chunks - 1) / chunks;\n", idx_);
    s += fmt::format("  for ({0} b = ({0}){1}; b < tiles * chunks; b += ({0}){2}) {{\n", idx_, c_.d.block_index(),
                     c_.d.grid_size());
    s += fmt::format("    const {0} ch = b / tiles;\n    const {0} g = (b - ch * tiles) * G + gl;\n", idx_);
    s += "    const bool active = rl < R && g < groups;\n";
    s += fmt::format("    const {0} o = active ? g * {1} : 0;\n", idx_, w);
    s += fmt::format("    const {0} r0 = ch * per;\n", idx_);
    s += fmt::format("    const {0} r1 = per < n_red - r0 ? r0 + per : n_red;\n", idx_);
    s += kept_offsets("o");
    for (int l = 0; l < w; ++l) s += accumulators_init(lane_suffix(l));
    s += "    if (active) {\n" + unroll() + fmt::format("    for ({} r = r0 + rl; r < r1; r += R)\n", idx_);
    s += fold_row_vectors("r") + "    }\n";
    for (size_t k = 0; k < reduces_.size(); ++k)
      for (int l = 0; l < w; ++l) s += fmt::format("    tgc_col{0}[lid * {1} + {2}] = acc{0}{3};\n", k, w, l, lane_suffix(l));
    s += fmt::format("    {};\n    if (active && rl == 0) {{\n      for (int j = 1; j < R; ++j) {{\n", c_.d.barrier());
    for (size_t k = 0; k < reduces_.size(); ++k)
      for (int l = 0; l < w; ++l)
        s += fmt::format("        acc{0}{1} = {2}_comb{0}(acc{0}{1}, tgc_col{0}[(j * G + gl) * {3} + {4}]);\n", k,
                         lane_suffix(l), c_.prefix, w, l);
    s += "      }\n";
    for (size_t k = 0; k < reduces_.size(); ++k)
      for (int l = 0; l < w; ++l)
        s += fmt::format("      {}[(o + {}) * chunks + ch] = acc{}{};\n", partials(k), l, k, lane_suffix(l));
    return s + fmt::format("    }}\n    {};\n  }}\n", c_.d.barrier());
  }

  static std::string lane_suffix(int lane) { return "_" + std::to_string(lane); }

  // Row r of RedColumnVector: each loop-space input's W values at the kept offsets plus r's
  // reduced offsets (one vector, two for 8-byte types; one element read once for an input that
  // is a single element), then each lane's prologue and fold into its accumulators.
  std::string fold_row_vectors(const std::string& r) const {
    static const char* xyzw[] = {"x", "y", "z", "w"};
    const int w = kColumnVectorOutputs;
    std::string s = "    {\n";
    std::vector<std::pair<std::string, int>> offsets;
    for (int j : loop_inputs()) {
      s += fmt::format("      {0} rq{1} = q{1};\n", idx_, j);
      offsets.emplace_back(fmt::format("rq{}", j), c_.layout.red_strides(j));
    }
    s += decompose(c_, idx_, r, c_.layout.red_shape(), c_.layout.red_divisors(), c_.layout.red_cap, "rrank", offsets);
    std::vector<std::vector<std::string>> lanes(w);
    for (int j : loop_inputs()) {
      const DType t = c_.k.inputs[j].dtype;
      if (statically_scalar(c_.k, j)) {  // the same element for every lane (its load is common)
        for (int l = 0; l < w; ++l) lanes[l].push_back(load(c_, j, fmt::format("rq{}", j)));
        continue;
      }
      const std::string at = fmt::format("(p{0} + rq{0})", j);
      const bool wide = dtype_size(t) == 8;  // two 16-byte halves
      std::vector<std::string> parts;
      if (wide) {
        s += fmt::format("      const {} a{}l = {};\n", c_.d.vector_type(t, 2), j, c_.d.vector_load(t, 2, at, "0"));
        s += fmt::format("      const {} a{}h = {};\n", c_.d.vector_type(t, 2), j, c_.d.vector_load(t, 2, at, "1"));
        parts = {fmt::format("a{}l.x", j), fmt::format("a{}l.y", j), fmt::format("a{}h.x", j), fmt::format("a{}h.y", j)};
      } else {
        s += fmt::format("      const {} a{} = {};\n", c_.d.vector_type(t, w), j, c_.d.vector_load(t, w, at, "0"));
        for (int l = 0; l < w; ++l) parts.push_back(fmt::format("a{}.{}", j, xyzw[l]));
      }
      for (int l = 0; l < w; ++l) lanes[l].push_back(t == DType::Bool ? "(" + parts[l] + " != 0)" : parts[l]);
    }
    for (int l = 0; l < w; ++l) s += fold_values(lanes[l], "      ", lane_suffix(l));
    return s + "    }\n";
  }

  std::vector<int> loop_inputs() const {
    std::vector<int> inputs;
    for (int j = 0; j < c_.nin(); ++j)
      if (!c_.k.inputs[j].in_output_space) inputs.push_back(j);
    return inputs;
  }

  // Every loop-space input's vector at index `at` of output o's row, as a<j><suffix> (those
  // constant along the reduction are c<j>, read once an output by fold_range).
  std::string load_vectors(const std::string& at, const std::string& suffix) const {
    const int w = reduction_vector_width(c_.k);
    std::string s;
    for (int j : loop_inputs())
      if (!constant_along_reduction(c_.k, j))
        s += fmt::format("      const {} a{}{} = {};\n", c_.d.vector_type(c_.k.inputs[j].dtype, w), j, suffix,
                         c_.d.vector_load(c_.k.inputs[j].dtype, w, fmt::format("(p{0} + q{0})", j), at));
    return s;
  }

  // Folds the lanes of the vectors a<j><suffix> in lane order.
  std::string fold_vectors(const std::string& suffix) const {
    static const char* lanes[] = {"x", "y", "z", "w"};
    std::string s;
    for (int lane = 0; lane < reduction_vector_width(c_.k); ++lane) {
      std::vector<std::string> in;
      for (int j : loop_inputs()) {
        const std::string v = constant_along_reduction(c_.k, j) ? fmt::format("c{}", j)
                                                                : fmt::format("a{}{}.{}", j, suffix, lanes[lane]);
        in.push_back(c_.k.inputs[j].dtype == DType::Bool ? "(" + v + " != 0)" : v);
      }
      s += fold_values(in, "      ");
    }
    return s;
  }

  // The prologue on loaded loop-space values, each accumulator folded.
  // `acc`: the accumulators' suffix (a RedColumnVector lane's).
  std::string fold_values(const std::vector<std::string>& in, const std::string& ind, const std::string& acc = "") const {
    std::string s = ind + "{\n";
    std::vector<std::string> results;
    for (size_t k = 0; k < reduces_.size(); ++k) {
      const KernelValue& arg = c_.k.values[value(k).args[0]];
      s += fmt::format("{}  {} x{};\n", ind, register_type(arg.dtype, c_.d.dialect()), k);
      results.push_back(fmt::format("x{}", k));
    }
    s += ind + "  " + element_call(c_.prefix + "_prologue", in, results) + "\n";
    for (size_t k = 0; k < reduces_.size(); ++k)
      s += fmt::format("{0}  acc{1}{4} = {2}_comb{1}(acc{1}{4}, ({3})x{1});\n", ind, k, c_.prefix, acc_type(c_, value(k)), acc);
    return s + ind + "}\n";
  }

  // The block-strided loops read one element per thread and iteration; unrolled, a thread
  // has several loads in flight (the accumulation order, hence the result, is unchanged).
  // Without it a long reduction is latency-bound at a third of the memory bandwidth.
  std::string unroll() const { return c_.d.cuda() ? "    #pragma unroll 4\n" : ""; }

  // Scratch: each Reduce value's partials, n_out * chunks slots of 8 bytes.
  std::string partials(size_t k) const {
    const std::string t = acc_type(c_, value(k));
    const std::string i64 = c_.d.i64();
    if (c_.d.cuda())
      return fmt::format("(({}*)((char*)scratch + ({})n_out * ({})chunks * {}))", t, i64, i64, 8 * k);
    return fmt::format("((__global {}*)((__global char*)scratch + ({})n_out * ({})chunks * {}))", t, i64, i64, 8 * k);
  }

  // Offsets of every operand at output element `o` (kept dims).
  std::string kept_offsets(const std::string& o) const {
    std::string s = fmt::format("    {} ", idx_);
    std::vector<std::pair<std::string, int>> offsets;
    for (int op = 0; op < c_.nops(); ++op) {
      s += fmt::format("{}q{} = 0", op ? ", " : "", op);
      offsets.emplace_back(fmt::format("q{}", op), c_.layout.kept_strides(op));
    }
    return s + ";\n" + decompose(c_, idx_, o, c_.layout.kept_shape(), c_.layout.kept_divisors(), c_.layout.kept_cap, "krank", offsets);
  }

  std::string accumulators_init(const std::string& suffix = "") const {
    std::string s;
    for (size_t k = 0; k < reduces_.size(); ++k)
      s += fmt::format("    {} acc{}{} = {};\n", acc_type(c_, value(k)), k, suffix, init(c_, value(k)));
    return s;
  }

  // One reduced element r: the loop-space loads at the kept + reduced offsets, the
  // prologue, each accumulator folded.
  std::string fold_element(const std::string& r) const {
    std::string s = "    {\n";
    std::vector<std::pair<std::string, int>> offsets;
    std::vector<std::string> in;
    for (int j = 0; j < c_.nin(); ++j) {
      if (c_.k.inputs[j].in_output_space) continue;
      s += fmt::format("      {0} rq{1} = q{1};\n", idx_, j);
      offsets.emplace_back(fmt::format("rq{}", j), c_.layout.red_strides(j));
      in.push_back(load(c_, j, fmt::format("rq{}", j)));
    }
    s += decompose(c_, idx_, r, c_.layout.red_shape(), c_.layout.red_divisors(), c_.layout.red_cap, "rrank", offsets);
    return s + fold_values(in, "      ") + "    }\n";
  }

  // Thread 0 of the block ends with the block's combined accumulators (all threads do in
  // OpenCL). The tree's shape depends only on the block size.
  std::string block_reduce() const {
    std::string s;
    for (size_t k = 0; k < reduces_.size(); ++k) {
      const std::string comb = fmt::format("{}_comb{}", c_.prefix, k);
      if (c_.d.has_shuffle()) {
        s += fmt::format("    for (int off = 16; off > 0; off >>= 1) acc{0} = {1}(acc{0}, {2});\n", k, comb,
                         c_.d.shuffle_down(fmt::format("acc{}", k), "off"));
        s += fmt::format("    if ((lid & 31) == 0) tgc_sh{0}[lid >> 5] = acc{0};\n    {1};\n", k, c_.d.barrier());
        s += fmt::format("    if (lid < 32) {{\n      acc{0} = lid < (lsize >> 5) ? tgc_sh{0}[lid] : {1};\n", k,
                         init(c_, value(k)));
        s += fmt::format("      for (int off = 16; off > 0; off >>= 1) acc{0} = {1}(acc{0}, {2});\n    }}\n", k, comb,
                         c_.d.shuffle_down(fmt::format("acc{}", k), "off"));
        s += fmt::format("    {};\n", c_.d.barrier());
      } else {
        s += fmt::format("    tgc_sh{0}[lid] = acc{0};\n    {1};\n", k, c_.d.barrier());
        s += fmt::format("    for (int off = lsize >> 1; off > 0; off >>= 1) {{\n"
                         "      if (lid < off) tgc_sh{0}[lid] = {1}(tgc_sh{0}[lid], tgc_sh{0}[lid + off]);\n      {2};\n    }}\n",
                         k, comb, c_.d.barrier());
        s += fmt::format("    acc{0} = tgc_sh{0}[0];\n    {1};\n", k, c_.d.barrier());
      }
    }
    return s;
  }

  // At output element o (offsets q*): finish, output-space loads, epilogue, stores.
  std::string epilogue(const std::string& ind) const {
    std::string s = ind + "{\n";
    std::vector<std::string> in;
    for (size_t k = 0; k < reduces_.size(); ++k) {
      s += fmt::format("{}  const {} e{} = {};\n", ind, register_type(value(k).dtype, c_.d.dialect()), k,
                       finish(c_, value(k), fmt::format("acc{}", k)));
      in.push_back(fmt::format("e{}", k));
    }
    for (int j = 0; j < c_.nin(); ++j)
      if (c_.k.inputs[j].in_output_space) in.push_back(load(c_, j, fmt::format("q{}", j)));
    std::vector<std::string> results;
    for (size_t o = 0; o < c_.k.outputs.size(); ++o) {
      s += fmt::format("{}  {} o{};\n", ind, register_type(c_.k.outputs[o].dtype, c_.d.dialect()), o);
      results.push_back(fmt::format("o{}", o));
    }
    s += ind + "  " + element_call(c_.prefix + "_epilogue", in, results) + "\n";
    for (size_t o = 0; o < c_.k.outputs.size(); ++o)
      s += ind + "  " + store(c_, static_cast<int>(o), fmt::format("q{}", c_.nin() + static_cast<int>(o)), fmt::format("o{}", o)) + "\n";
    return s + ind + "}\n";
  }

  const Ctx& c_;
  std::vector<int> reduces_;
  std::string idx_ = "int";
};

}  // namespace

std::string render_reduction_entries(const Ctx& c, std::vector<std::string>& entries, std::vector<bool>& wide_index) {
  ReductionWriter w(c);
  std::string s = w.helpers();
  for (const auto& [kind, index32] : entry_list(c.k)) {
    entries.push_back(entry_name(c.prefix, kind, index32));
    wide_index.push_back(!index32);
    if (c.defines(entries.size() - 1)) s += w.entry(kind, index32);
  }
  return s;
}

}  // namespace tgc::cfam::detail

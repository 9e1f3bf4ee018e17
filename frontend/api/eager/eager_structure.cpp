// structure_key: a post-order walk from the outputs writing each variable once.
#include "frontend/api/eager/eager_structure.h"

#include <cstring>
#include <typeinfo>
#include <utility>

#include <fmt/format.h>

#include "ops/core/node.h"
#include "runtime/error.h"

namespace tgc::eager_impl {

namespace {

void append_type(std::string& key, const Type& t) {
  key += dtype_name(t.dtype);
  key += '[';
  for (int64_t d : t.shape) key += d == 1 ? '1' : '?';
  key += ']';
}

class KeyWriter {
 public:
  explicit KeyWriter(const std::vector<Leaf>& leaves) {
    key_.reserve(256);
    for (size_t i = 0; i < leaves.size(); ++i) {
      ids_.emplace_back(leaves[i].var.get(), static_cast<int>(i));
      key_ += 'L';
      append_type(key_, leaves[i].var->type());
    }
    next_ = static_cast<int>(leaves.size());
  }

  int visit(const Variable* v) {
    if (const int* id = find(v)) return *id;
    switch (v->kind()) {
      case Variable::Kind::Input:
      case Variable::Kind::Shared: reject_root(*v);
      case Variable::Kind::Constant: {
        const Tensor& c = v->constant_value().eval();
        const Tensor host = c.to_host().contiguous();
        key_ += fmt::format("C{}{}:", dtype_name(c.dtype()), shape_str(c.shape()));
        const auto* bytes = static_cast<const unsigned char*>(host.raw_data());
        for (size_t i = 0; i < host.nbytes(); ++i) key_ += fmt::format("{:02x}", bytes[i]);
        key_ += ';';
        ids_.emplace_back(v, next_);
        return next_++;
      }
      case Variable::Kind::Result: break;
    }
    const Node* node = v->owner();
    std::vector<int> in;
    for (const VarPtr& input : node->inputs()) in.push_back(visit(input.get()));
    key_ += 'N';
    key_ += typeid(node->op()).name();
    key_ += '{';
    key_ += node->op().name();
    key_ += "}(";
    for (int i : in) key_ += std::to_string(i) + ',';
    key_ += ')';
    // Every output of the node gets its id now, so a second output read later is found.
    for (int k = 0; k < node->num_outputs(); ++k) ids_.emplace_back(node->output_raw(k), next_ + k);
    next_ += node->num_outputs();
    return *find(v);
  }

  std::string take() { return std::move(key_); }
  std::string& key() { return key_; }

 private:
  // The graphs of eager operations are small: a linear search beats a hash table's setup.
  const int* find(const Variable* v) const {
    for (const auto& [var, id] : ids_)
      if (var == v) return &id;
    return nullptr;
  }
  std::vector<std::pair<const Variable*, int>> ids_;
  int next_ = 0;
  std::string key_;
};

}  // namespace

std::string structure_key(const std::vector<Var>& outputs, const std::vector<Leaf>& leaves) {
  KeyWriter writer(leaves);
  for (const Var& out : outputs) writer.key() += "O" + std::to_string(writer.visit(out.ptr().get()));
  return writer.take();
}

void reject_root(const Variable& v) {
  if (v.kind() == Variable::Kind::Shared)
    throw TypeError("an eager operation read the shared variable '" + v.label() + "'", "",
                    "pass its value (get_value(true)) instead");
  throw TypeError("an eager operation read the symbolic variable '" + v.label() + "'", "",
                  "eager operations take tensors; build a graph and call function() to use Vars");
}

Type leaf_type(const Tensor& value) {
  std::vector<int64_t> dims(value.shape().size(), kUnknownDim);
  for (size_t d = 0; d < dims.size(); ++d)
    if (value.shape()[d] == 1) dims[d] = 1;
  return Type(value.dtype(), std::move(dims));
}

}  // namespace tgc::eager_impl

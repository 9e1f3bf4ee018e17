// Variable: a symbolic tensor — a graph input, a constant, a shared variable, or the output
// of a Node. User handles hold it through a shared_ptr; an output's pointer keeps its Node
// (and so the whole expression it came from) alive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/export.h"
#include "runtime/tensor.h"
#include "runtime/type.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

class Node;
class SharedValue;

class Variable {
 public:
  enum class Kind { Input, Constant, Shared, Result };

  static std::shared_ptr<Variable> input(Type type, std::string name);
  static std::shared_ptr<Variable> constant(Tensor value, std::string name = "");
  static std::shared_ptr<Variable> shared(std::shared_ptr<SharedValue> storage);

  Kind kind() const { return kind_; }
  const Type& type() const { return type_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  uint64_t id() const { return id_; }  // unique per process, stable ordering for printing

  Node* owner() const { return owner_; }  // Kind::Result only
  int index() const { return index_; }    // which output of owner()
  const Tensor& constant_value() const { return constant_; }             // Kind::Constant
  const std::shared_ptr<SharedValue>& storage() const { return storage_; }  // Kind::Shared

  // The user's name, or a short expression for unnamed variables ("exp(x)").
  std::string label() const;

 private:
  friend class Node;
  Variable(Kind kind, Type type, std::string name);
  Kind kind_;
  Type type_;
  std::string name_;
  uint64_t id_;
  Node* owner_ = nullptr;
  int index_ = 0;
  Tensor constant_;
  std::shared_ptr<SharedValue> storage_;
};

using VarPtr = std::shared_ptr<Variable>;

// The value behind a shared variable, shared by every function that uses it. An update may be
// written into the value's own buffer (compiler/update_in_place.h): a tensor handed out with
// get_value() is a copy and keeps its contents; one handed out with borrow=true may change.
class SharedValue {
 public:
  SharedValue(Tensor value, std::string name, bool borrow);

  const std::string& name() const { return name_; }
  const Type& type() const { return type_; }  // dtype and rank fixed; dims left unknown
  // A host copy of the value, or the value itself with borrow=true (then do not modify it,
  // and expect a later call to write the variable's update into it; it may live on a device
  // when a function on that device keeps it there).
  Tensor get_value(bool borrow = false) const;
  // Replaces the value; dtype and rank must match (TypeError names the variable).
  void set_value(const Tensor& value, bool borrow = false);
  // The current value without copying, for the executor.
  const Tensor& current() const { return value_; }

 private:
  void check(const Tensor& value) const;
  std::string name_;
  Type type_;
  Tensor value_;
};

TGC_API_END
}  // namespace tgc

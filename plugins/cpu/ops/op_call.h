// One call of a named op as a kernel sees it: its tensors checked and viewed
// as f32, its attributes read by name. Everything wrong with a call is an
// INVALID_ARGUMENT (omnirt::plugin::Error) naming the op, the tensor or
// attribute, what was expected and what came.
#ifndef OMNIRT_CPU_OPS_OP_CALL_H_
#define OMNIRT_CPU_OPS_OP_CALL_H_

#include <initializer_list>
#include <string>

#include "omnirt/types.h"
#include "tensor_view.h"

namespace omnirt::cpu::ops {

class OpCall {
 public:
  OpCall(const char* op, const DLTensor* inputs, const DLTensor* outputs,
         const omnirt_op_attr* attrs, size_t num_attrs)
      : op_(op), inputs_(inputs), outputs_(outputs), attrs_(attrs), num_attrs_(num_attrs) {}

  // The i-th input/output as an f32 view with at least one dimension; `role`
  // names it in messages. The registry has checked the counts.
  TensorView input(size_t i, const char* role) const;
  TensorView output(size_t i, const char* role) const;

  // Rejects attributes not named in `known`: a typo must not silently become
  // the default.
  void check_attrs(std::initializer_list<const char*> known) const;
  // A finite attribute >= 0, or `fallback` when absent.
  double non_negative_attr(const char* name, double fallback) const;
  // An integral attribute, or `fallback` when absent.
  int64_t int_attr(const char* name, int64_t fallback) const;

  void require_same_shape(const TensorView& t, const TensorView& like) const;
  // `t` must be 1-D of the size of `of`'s last dimension.
  void require_last_dim_vector(const TensorView& t, const TensorView& of) const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  TensorView view(const DLTensor& t, std::string name) const;
  const omnirt_op_attr* find_attr(const char* name) const;

  const char* op_;
  const DLTensor* inputs_;
  const DLTensor* outputs_;
  const omnirt_op_attr* attrs_;
  size_t num_attrs_;
};

}  // namespace omnirt::cpu::ops

#endif  // OMNIRT_CPU_OPS_OP_CALL_H_

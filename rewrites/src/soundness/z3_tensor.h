// z3_tensor.h: private to rewrites/: tensor e-nodes as Z3 real expressions, one per element
// in row-major order.
#pragma once

#include "tilesat/egraph/egraph.h"
#include "tilesat/graph/op.h"
#include "tilesat/rewrites/tensor_analysis.h"

#include <map>
#include <vector>
#include <z3++.h>

namespace tilesat::rewrites::soundness {

using Elements = std::vector<z3::expr>;

class Z3Tensors {
public:
  Z3Tensors(z3::context& ctx, const egraph::EGraph& eg, const TensorAnalysis& facts)
      : ctx_(ctx), eg_(eg), facts_(facts) {}

  /// The elements of class `cls`, built from its earliest e-node (the left side's, or the
  /// argument's); arguments are fresh real variables named after their class.
  const Elements& of_class(egraph::Id cls);
  /// The elements of one e-node (children through of_class).
  Elements of_node(egraph::NodeId node);
  /// The input variables created so far, by class.
  const std::map<egraph::Id, Elements>& inputs() const { return inputs_; }

private:
  Elements unary(OpKind kind, const Elements& x);
  z3::expr binary(OpKind kind, const z3::expr& a, const z3::expr& b);
  z3::func_decl function(const std::string& name, int arity);

  z3::context& ctx_;
  const egraph::EGraph& eg_;
  const TensorAnalysis& facts_;
  std::map<egraph::Id, Elements> memo_;
  std::map<egraph::Id, Elements> inputs_;
};

} // namespace tilesat::rewrites::soundness

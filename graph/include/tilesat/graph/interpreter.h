// The reference interpreter: evaluates a graph on host tensors, op by op, in plain loops over
// f32 values (sums accumulate in double).
//
// It is the ground truth every numeric test of tilesat compares against (the optimizer's
// rewrites, the runtime's tile kernels). Each op's semantics come from the op table; a value
// whose dtype is bf16 (or bfp8_b) is rounded to bf16 (nearest-even) and an i32 value is
// truncated toward zero, so rounding happens where the graph says it does.
//
//   std::vector<Tensor> args = random_arguments(g, /*seed=*/1);
//   std::vector<Tensor> out = evaluate(g, args);   // one tensor per g.results()
//
// Deep models need weights of the right scale to keep values finite: with
// RandomInit::FanIn, every argument read as the weight of a contraction is drawn with
// variance 1 / fan-in, as LeCun initialization does.
//
//   random_arguments(resnet, 1, RandomInit::FanIn);   // conv weights scaled by 1/sqrt(fan-in)
#pragma once

#include "tilesat/graph/graph.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tilesat {

/// Evaluates `g` on `arguments` (in the order of g.arguments(), each of the argument's
/// declared dtype and shape) and returns one tensor per graph result. Throws tilesat::Error
/// when the graph does not verify or an argument does not match its declaration.
std::vector<Tensor> evaluate(const Graph& g, std::span<const Tensor> arguments);

/// How random_arguments scales the float values it draws.
enum class RandomInit : uint8_t {
  /// Every float argument uniform in [-1, 1).
  Uniform,
  /// As Uniform, but an argument that argument_fan_in() finds to be a contraction's weight is
  /// scaled by sqrt(3 / fan_in): uniform with variance 1 / fan_in (LeCun), so a product with
  /// it keeps its input's scale and a 20-layer net stays far from overflow; and one that
  /// argument_under_root() finds under a square root or log (a batch norm's running variance)
  /// is drawn in [0.5, 1.5), so the model stays in its ops' domains.
  FanIn,
};

/// One deterministic random tensor per argument of `g`: floats uniform in [-1, 1) (rounded to
/// the argument's dtype, scaled as `init` says), i32 integers in [-8, 8]. The same seed gives
/// the same tensors on every platform; the scale does not change which values are drawn.
/// Arguments with `skip[i]` set (their values come from elsewhere, such as a model's weights)
/// are left empty, and their draws are passed over, so every other argument gets the same
/// value as without `skip`.
std::vector<Tensor> random_arguments(const Graph& g, uint64_t seed,
                                     RandomInit init = RandomInit::Uniform,
                                     const std::vector<bool>& skip = {});

/// Per argument of `g` (in argument order), the number of values each output element of a
/// contraction sums over when the argument is that contraction's weight: operand 1 of
/// conv2d (in_channels / groups * kh * kw), matmul or linear (the contracted dim), seen
/// through data movement (transposes, reshapes, slices of a packed weight, ...) and
/// typecasts; 0 for every other argument.
///
///   argument_fan_in(g);   // {0, 128, 0}: x, w [128, 64] of matmul(x, w), bias
std::vector<int64_t> argument_fan_in(const Graph& g);

/// Per argument of `g`, whether it reaches a sqrt, rsqrt or log through data movement,
/// typecasts and additions: a batch norm's running variance in sqrt(var + eps).
///
///   argument_under_root(g);   // {false, true}: x, var of x / sqrt(var + 1e-5)
std::vector<bool> argument_under_root(const Graph& g);

} // namespace tilesat

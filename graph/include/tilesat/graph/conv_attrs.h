// The window and layout attributes of conv2d and the pools, spelled out: stride, padding and
// dilation may each be written as one integer or a list (padding as 2 or 4 values), and conv2d
// names the dims of its input and result with batch_dim, height_dim, width_dim, channel_dim.
//
//   Attrs a = complete_attrs(OpKind::Conv2d, parse("stride = 2, padding = [1, 2]"));
//   Window2d w = window2d(a);   // stride 2x2, padding [1, 2, 1, 2], dilation 1x1
//   ConvDims d = conv_dims(a);  // NHWC: batch 0, height 1, width 2, channel 3
#pragma once

#include "tilesat/graph/attribute.h"
#include "tilesat/graph/shape.h"

#include <array>
#include <cstdint>

namespace tilesat {

/// A sliding window's geometry without its kernel extent.
struct Window2d {
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

/// The window of completed conv2d / pool attributes; throws Error (not naming the op) when a
/// value has the wrong count (stride, dilation: 1 or 2; padding: 1, 2 or 4) or range
/// (strides and dilations in [1, 2^20], paddings in [0, 2^20]).
Window2d window2d(const Attrs& complete);

/// The dims of a conv2d's input and result holding batch, channel, height and width.
struct ConvDims {
  int64_t batch = 0, height = 1, width = 2, channel = 3;
  /// The dims in N, C, H, W order: the permutation taking this layout to NCHW.
  std::array<int64_t, 4> nchw_order() const { return {batch, channel, height, width}; }
  bool is_nchw() const { return batch == 0 && channel == 1 && height == 2 && width == 3; }
};

/// The dims of completed conv2d attributes; throws Error (not naming the op) unless they are a
/// permutation of 0..3.
ConvDims conv_dims(const Attrs& complete);

/// Attributes saying `d` (each dim attribute set, NCHW: channel_dim = 1, height_dim = 2, ...).
void set_conv_dims(Attrs& attrs, const ConvDims& d);

/// The image of a conv2d or pool whose input is flattened NHWC, as ttnn keeps activations:
/// `[1, 1, batch * height * width, C]`, the result `[1, 1, batch * out_h * out_w, C']`. The
/// attributes batch_size, input_height and input_width say it (all 0: a 4-D input).
///
///   Attrs a = complete_attrs(OpKind::Conv2d, parse("batch_size = 2, input_height = 7, "
///                                                 "input_width = 7"));
///   FlatImage f = flat_image(a);  // f.active(), f.pixels() == 98
struct FlatImage {
  int64_t batch = 0, height = 0, width = 0;
  bool active() const { return batch != 0; }
  int64_t pixels() const { return batch * height * width; }
  /// The input viewed as NHWC, [batch, height, width, channels].
  Shape nhwc(int64_t channels) const { return Shape{batch, height, width, channels}; }
};

/// The flat image of completed conv2d / pool attributes (inactive when all three are 0);
/// throws Error (not naming the op) unless all three are 0 or all in [1, 2^20].
FlatImage flat_image(const Attrs& complete);

/// Attributes saying `f` (batch_size, input_height, input_width).
void set_flat_image(Attrs& attrs, const FlatImage& f);

} // namespace tilesat

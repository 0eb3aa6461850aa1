// Origin: seed 001 (ttnn.jit documentation), the TTIR of the cosh example.
// The listing below the RUN lines is copied verbatim from the seed; the CHECK lines follow it.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

module {
  func.func @cosh(%arg0: tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout> {
    %0 = ttir.exp %arg0 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %1 = ttir.neg %arg0 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %2 = ttir.exp %1 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %3 = ttir.add %0, %2 : tensor<32x32xbf16, #ttnn_layout>, tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %4 = ttir.multiply %3, 0.5 : tensor<32x32xbf16, #ttnn_layout>, f32 -> tensor<32x32xbf16, #ttnn_layout>
    return %4 : tensor<32x32xbf16, #ttnn_layout>
  }
}

// The canonical print: every op in generic form, attributes sorted by name.
// CHECK: module {
// CHECK-LABEL: func.func @cosh(%arg0: tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout> {
// CHECK-NEXT: %0 = "ttir.exp"(%arg0) : (tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: %1 = "ttir.neg"(%arg0) : (tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: %2 = "ttir.exp"(%1) : (tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: %3 = "ttir.add"(%0, %2) : (tensor<32x32xbf16, #ttnn_layout>, tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: %4 = "ttir.constant"() <{value = dense<5.000000e-01> : tensor<f32>}> : () -> tensor<f32>
// CHECK-NEXT: %5 = "ttir.multiply"(%3, %4) : (tensor<32x32xbf16, #ttnn_layout>, tensor<f32>) -> tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: return %5 : tensor<32x32xbf16, #ttnn_layout>
// CHECK-NEXT: }
// CHECK-NEXT: }

// Parse and verification errors: each case is a file of its own (split-file keeps line
// numbers), and its expected message sits on the line before the bad input.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not %tilesat print %t/missing_paren.mlir 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not %tilesat print %t/unknown_op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN-OP
// RUN: not %tilesat print %t/unknown_dtype.mlir 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not %tilesat print %t/operand_count.mlir 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not %tilesat print %t/shape_mismatch.mlir 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not %tilesat print %t/undefined.mlir 2>&1 | FileCheck %s --check-prefix=UNDEF
// RUN: not %tilesat print %t/duplicate.mlir 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not %tilesat print %t/unterminated.mlir 2>&1 | FileCheck %s --check-prefix=ANGLE
// RUN: not %tilesat print %t/operand_type.mlir 2>&1 | FileCheck %s --check-prefix=OPTYPE
// RUN: not %tilesat print %t/out_of_range.mlir 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not %tilesat print %t/no_return.mlir 2>&1 | FileCheck %s --check-prefix=RETURN
// RUN: not %tilesat print %t/dot_general.mlir 2>&1 | FileCheck %s --check-prefix=DOT

//--- missing_paren.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // PAREN: missing_paren.mlir:[[@LINE+1]]:26: error: expected ')', got ':'
  %0 = "ttir.relu"(%arg0 : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- unknown_op.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // UNKNOWN-OP: unknown_op.mlir:[[@LINE+1]]:8: error: unknown op 'ttir.frobnicate'
  %0 = "ttir.frobnicate"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- unknown_dtype.mlir
// DTYPE: unknown_dtype.mlir:[[@LINE+1]]:33: error: unknown element type 'f8' (expected f32, bf16, f16, f64, bfp_bf8, or an integer type from i1 to i64)
func.func @main(%arg0: tensor<4xf8>) -> tensor<4xf8> {
  return %arg0 : tensor<4xf8>
}

//--- operand_count.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // COUNT: operand_count.mlir:[[@LINE+1]]:3: error: 'ttir.relu' %0: expected 1 operand, got 2
  %0 = "ttir.relu"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- shape_mismatch.mlir
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<5xf32>) -> tensor<4xf32> {
  // SHAPE: shape_mismatch.mlir:[[@LINE+1]]:3: error: 'ttir.add' %0: expected broadcastable shapes, got 4 and 5
  %0 = "ttir.add"(%arg0, %arg1) : (tensor<4xf32>, tensor<5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- undefined.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // UNDEF: undefined.mlir:[[@LINE+1]]:20: error: use of undefined value %7
  %0 = "ttir.relu"(%7) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- duplicate.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // DUP: duplicate.mlir:[[@LINE+1]]:3: error: redefinition of %0 (first defined at {{.*}}duplicate.mlir:[[@LINE-1]]:3)
  %0 = "ttir.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- unterminated.mlir
// ANGLE: unterminated.mlir:[[@LINE+1]]:28: error: unterminated '<'
#layout = #ttnn.ttnn_layout<(d0) -> (d0), memref<4xf32>
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

//--- operand_type.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // OPTYPE: operand_type.mlir:[[@LINE+1]]:20: error: type of operand #0 of 'ttir.relu': expected tensor<4xf32> (the type of %arg0), got tensor<4xbf16>
  %0 = "ttir.relu"(%arg0) : (tensor<4xbf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

//--- out_of_range.mlir
func.func @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // RANGE: out_of_range.mlir:[[@LINE+1]]:41: error: integer '99999999999999999999' is out of range
  %0 = "ttir.transpose"(%arg0) <{dim0 = 99999999999999999999 : si32, dim1 = 0 : si32}> : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

//--- no_return.mlir
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ttir.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// RETURN: no_return.mlir:[[@LINE+1]]:1: error: expected 'return' before the end of function @main
}

//--- dot_general.mlir
func.func @main(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x6x4xf32>) -> tensor<2x4x2x4xf32> {
  // DOT: dot_general.mlir:[[@LINE+1]]:3: error: 'stablehlo.dot_general' with contracting dims [2] x [1] and batching dims [] x [] on 2x4x8 and 2x6x4: dim 2 (8) and dim 1 (6) differ
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [1] : (tensor<2x4x8xf32>, tensor<2x6x4xf32>) -> tensor<2x4x2x4xf32>
  return %0 : tensor<2x4x2x4xf32>
}

// Multi-chip op verification errors name the op: a shard that does not divide its dim, a
// reduction other than sum, a cluster_axis that is no mesh axis, an all_gather whose result
// type implies no group size, and evaluating a collective without a mesh.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not %tilesat print %t/divide.mlir 2>&1 | FileCheck %s --check-prefix=DIVIDE
// RUN: not %tilesat print %t/max.mlir 2>&1 | FileCheck %s --check-prefix=MAX
// RUN: not %tilesat print %t/axis.mlir 2>&1 | FileCheck %s --check-prefix=AXIS
// RUN: not %tilesat print %t/gather.mlir 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not %tilesat eval %t/eval.mlir --random-inputs 1 --output-dir %t/out 2>&1 | FileCheck %s --check-prefix=EVAL

//--- divide.mlir
func.func @main(%x: tensor<6x4xf32>) -> tensor<1x4xf32> {
  // DIVIDE: divide.mlir:[[@LINE+1]]:3: error: 'ttir.mesh_shard' %0: expected dim 0 (extent 6) to split into 4 equal shards
  %0 = "ttir.mesh_shard"(%x) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 4, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<6x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

//--- max.mlir
func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // MAX: max.mlir:[[@LINE+1]]:3: error: 'ttir.all_reduce' %0: expected reduce_type sum (the only one supported), got max
  %0 = "ttir.all_reduce"(%x) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<max>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

//--- axis.mlir
func.func @main(%x: tensor<8x4xf32>) -> tensor<8x16xf32> {
  // AXIS: axis.mlir:[[@LINE+1]]:3: error: 'ttir.all_gather' %0: expected cluster_axis 0 or 1 (a mesh axis), got 2
  %0 = "ttir.all_gather"(%x) <{all_gather_dim = 1 : si32, cluster_axis = 2 : ui32}> : (tensor<8x4xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

//--- gather.mlir
func.func @main(%x: tensor<8x4xf32>) -> tensor<8x6xf32> {
  // GATHER: gather.mlir:[[@LINE+1]]:3: error: 'ttir.all_gather' %0: expected attribute 'cluster_size' (int), got none
  %0 = "ttir.all_gather"(%x) <{all_gather_dim = 1 : si32, cluster_axis = 1 : ui32}> : (tensor<8x4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

//--- eval.mlir
func.func @main(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // EVAL: error: 'ttir.all_reduce' combines the values of several chips; evaluate a mesh program with interpret_mesh (or tilesat check --device <mesh>)
  %0 = "ttir.all_reduce"(%x) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

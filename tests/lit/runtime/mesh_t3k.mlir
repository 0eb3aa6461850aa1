// A per-chip graph for a T3000 (2x4 chips, SPMD): the batch split over the mesh's rows (data
// parallel), a Megatron MLP over the 4 chips of each row (w1 split by columns, w2 by rows, one
// all_reduce along cluster_axis 1), the result reassembled from the rows. It plans on the
// mesh's chip with the collective priced over the mesh's Ethernet, lowers to a program for
// every chip of the mesh, runs with each chip in its own thread, and `check` compares the run
// with interpret_mesh. On a device without the module's mesh (ttcore.meshes), planning says so.
// RUN: %tilesat opt %s --device t3k --emit plan | FileCheck %s --check-prefix=PLAN
// PLAN: // plan @main for t3k:
// PLAN: mesh_shard(%x) -> {{.*}}
// PLAN-NEXT: // mesh_shard (host transfer of one chip's shard): {{.*}}
// PLAN: all_reduce({{.*}}) -> {{.*}} | ethernet-bound
// PLAN-NEXT: // all_reduce over 4 chips (mesh axis 1): all_reduce = reduce_scatter line of 4 chips, 1 link(s): {{.*}}

// RUN: %tilesat opt %s --device t3k --emit program | FileCheck %s --check-prefix=PROG
// PROG: program @main v1.6 for t3k ({{.*}}), on every chip of a 2x4 mesh
// PROG: mesh_shard(t{{[0-9]+}}) full_to_shard devices shard_shape=[2,1] shard_dims=[0,-1]
// PROG: mesh_shard(t{{[0-9]+}}) full_to_shard devices shard_shape=[1,4] shard_dims=[-1,1]
// PROG: all_reduce(t{{[0-9]+}}) AllReduce cluster_axis=1
// PROG: mesh_shard(t{{[0-9]+}}) shard_to_full devices shard_shape=[2,1] shard_dims=[0,-1]

// RUN: %tilesat opt %s --device t3k --emit ttnn | FileCheck %s --check-prefix=TTNN
// TTNN: "ttnn.all_reduce"(%{{[0-9]+}}) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}>

// RUN: %tilesat check %s --device t3k | FileCheck %s --check-prefix=CHECK
// CHECK: check @main on t3k (8 chips, compared with interpret_mesh): 8 ops -> {{[0-9]+}} device ops
// CHECK-NEXT: result0 64x32: max_abs_err={{.*}} ok

// RUN: %tilesat opt %s --device t3k -o %t.tsprog
// RUN: %tilesat run %t.tsprog --random-inputs 1 | FileCheck %s --check-prefix=RAN
// RUN: %tilesat run %t.tsprog --random-inputs 1 --profile - | FileCheck %s --check-prefix=PROFILE
// RUN: not %tilesat eval %s --random-inputs 1 --output-dir %t.ref 2>&1 | FileCheck %s --check-prefix=EVAL
// RUN: not %tilesat check %s --device n300 2>&1 | FileCheck %s --check-prefix=N300
// RAN: ran {{.*}}.tsprog ({{[0-9]+}} ops on t3k, each of 2x4 chips) in {{.*}}
// RAN-NEXT: result0: tensor<64x32xf32>
// PROFILE: "mesh": "2x4",
// PROFILE: "kind": "all_reduce"
// EVAL: error: 'ttir.mesh_shard' moves values between the chips of a mesh; evaluate a mesh program with interpret_mesh (or tilesat check --device <mesh>)
// N300: tilesat: error: the module's mesh 2x4 (ttcore.meshes) does not fit device 'n300': its mesh is 1x2

module @mlp_2x4 attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>} {
  func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x128xf32>, %w2: tensor<128x32xf32>) -> tensor<64x32xf32> {
    %0 = "ttir.mesh_shard"(%x) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x32xf32>) -> tensor<32x32xf32>
    %1 = "ttir.mesh_shard"(%w1) <{shard_dims = array<i64: -1, 1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 4>, shard_type = #ttcore.shard_type<devices>}> : (tensor<32x128xf32>) -> tensor<32x32xf32>
    %2 = "ttir.mesh_shard"(%w2) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 4, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<128x32xf32>) -> tensor<32x32xf32>
    %3 = "ttir.matmul"(%0, %1) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %4 = "ttir.relu"(%3) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %5 = "ttir.matmul"(%4, %2) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %6 = "ttir.all_reduce"(%5) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %7 = "ttir.mesh_shard"(%6) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 2, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<32x32xf32>) -> tensor<64x32xf32>
    return %7 : tensor<64x32xf32>
  }
}

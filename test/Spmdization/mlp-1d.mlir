// Spec 000's end-to-end example, "After sharding partition": local shapes in
// the signature, one all_gather before the first matmul, the relu on the
// local 2x4x16 block and one reduce_scatter at the end.
// RUN: mesh-opt %s --mesh-sharding-propagation --mesh-spmdization | FileCheck %s
// RUN: mesh-opt %s --pass-pipeline="builtin.module(mesh-sharding-propagation, mesh-spmdization{boundary=global})" | FileCheck --check-prefix=GLOBAL %s

mesh.mesh @mesh0(shape = 2)

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %arg0: tensor<2x4x4xf32> {mesh.sharding = #mesh.sharding<@mesh0, {{\[\[\], \[\], \[0\]\]}}>}
// CHECK-SAME: %arg1: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh0, {{\[\[\], \[0\]\]}}>}
// CHECK-SAME: %arg2: tensor<16x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, {{\[\[0\]\]}}>}
// CHECK-SAME: -> (tensor<2x4x4xf32> {mesh.sharding = #mesh.sharding<@mesh0, {{\[\[\], \[\], \[0\]\]}}>})
// CHECK-SAME: attributes {mesh.spmdized = "local"}
// CHECK-NEXT: %[[X:.*]] = mesh.all_gather %arg0 on @mesh0 mesh_axes = [0] gather_axis = 2 : tensor<2x4x4xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[H:.*]] = stablehlo.dot_general %[[X]], %arg1, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<2x4x16xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.maximum %[[H]], %[[Z]] : tensor<2x4x16xf32>
// CHECK-NEXT: %[[Y:.*]] = stablehlo.dot_general %[[R]], %arg2, contracting_dims = [2] x [0] : (tensor<2x4x16xf32>, tensor<16x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[O:.*]] = mesh.reduce_scatter %[[Y]] on @mesh0 mesh_axes = [0] scatter_axis = 2 : tensor<2x4x8xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT: return %[[O]] : tensor<2x4x4xf32>
// CHECK-NOT: mesh.shard
// CHECK-NOT: mesh.sharding @

// Whole arguments: each device slices its block by its process index, and the
// result is gathered again.
// GLOBAL-LABEL: func.func @mlp(%arg0: tensor<2x4x8xf32>
// GLOBAL-SAME: attributes {mesh.spmdized = "global"}
// GLOBAL: %[[I:.*]] = mesh.process_multi_index on @mesh0 : index
// GLOBAL: %[[OFF:.*]] = arith.muli %[[I]], %c4
// GLOBAL: tensor.extract_slice %arg0[0, 0, %[[OFF]]] [2, 4, 4] [1, 1, 1] : tensor<2x4x8xf32> to tensor<2x4x4xf32>
// GLOBAL: tensor.extract_slice %arg1[0, %{{.*}}] [8, 16] [1, 1] : tensor<8x32xf32> to tensor<8x16xf32>
// GLOBAL: tensor.extract_slice %arg2[%{{.*}}, 0] [16, 8] [1, 1] : tensor<32x8xf32> to tensor<16x8xf32>
// GLOBAL: mesh.reduce_scatter
// GLOBAL: %[[FULL:.*]] = mesh.all_gather %{{.*}} on @mesh0 mesh_axes = [0] gather_axis = 2 : tensor<2x4x4xf32> -> tensor<2x4x8xf32>
// GLOBAL: return %[[FULL]] : tensor<2x4x8xf32>
func.func @mlp(%x: tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], [0]]>},
               %w_in: tensor<8x32xf32>, %w_out: tensor<32x8xf32>)
    -> (tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], [0]]>}) {
  %h = stablehlo.dot_general %x, %w_in, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x32xf32>) -> tensor<2x4x32xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<2x4x32xf32>
  %r = stablehlo.maximum %h, %zero : tensor<2x4x32xf32>
  %y = stablehlo.dot_general %r, %w_out, contracting_dims = [2] x [0] : (tensor<2x4x32xf32>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
  %s = mesh.sharding @mesh0 split_axes = [[]] partial = sum[0] : !mesh.sharding
  %p = mesh.shard %y to %s : tensor<2x4x8xf32>
  return %p : tensor<2x4x8xf32>
}

// The walk-through of spec 000: MLP 1D weight-stationary (arXiv 2211.05102
// fig. 2a), written with stablehlo ops.  After annotation completion the
// input is all-gathered before the first dot (its use is replicated), W_in is
// split on its columns, W_out on its rows, the second dot's result stays
// partial and the return takes it split on the last dimension.
// RUN: mesh-opt %s --mesh-sharding-propagation | FileCheck %s
// RUN: mesh-opt %s --mesh-sharding-propagation=explain=true | FileCheck %s --check-prefix=EXPLAIN

// With `explain`, every inserted annotation says where its sharding came from.
// EXPLAIN: mesh.shard %{{.*}} to %{{.*}} annotate_for_users {mesh.origin = "operand of 'stablehlo.dot_general' at {{.*}}mlp-1d-stablehlo.mlir:31:8, propagated from the result annotation at {{.*}}mlp-1d-stablehlo.mlir:48:8"}
// EXPLAIN: mesh.shard %{{.*}} to %{{.*}} {mesh.origin = "result of 'stablehlo.dot_general' at {{.*}}mlp-1d-stablehlo.mlir:31:8, propagated from the result annotation at {{.*}}mlp-1d-stablehlo.mlir:48:8"}

mesh.mesh @mesh0(shape = 2)

// CHECK-LABEL: func.func @mlp_1d_weight_stationary(
// CHECK-SAME: %arg0: tensor<2x4x8xf32>,
// CHECK-SAME: %arg1: tensor<8x32xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [0]]>},
// CHECK-SAME: %arg2: tensor<32x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[0]]>})
// CHECK-SAME: -> (tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], [0]]>})
func.func @mlp_1d_weight_stationary(%arg0: tensor<2x4x8xf32>, %arg1: tensor<8x32xf32>, %arg2: tensor<32x8xf32>) -> tensor<2x4x8xf32> {
  // CHECK-DAG: %[[REP:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[\]\]}} : !mesh.sharding
  // CHECK-DAG: %[[COLS:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[\], \[0\]\]}} : !mesh.sharding
  // CHECK-DAG: %[[ROWS:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[0\]\]}} : !mesh.sharding
  // CHECK-DAG: %[[LAST:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[\], \[\], \[0\]\]}} : !mesh.sharding
  %s0 = mesh.sharding @mesh0 split_axes = [[], [], [0]] : !mesh.sharding
  // CHECK: %[[X:.*]] = mesh.shard %arg0
  %0 = mesh.shard %arg0 to %s0 : tensor<2x4x8xf32>
  // CHECK: %[[XU:.*]] = mesh.shard %[[X]] to %[[REP]] annotate_for_users : tensor<2x4x8xf32>
  // CHECK: %[[W1:.*]] = mesh.shard %arg1 to %[[COLS]] annotate_for_users : tensor<8x32xf32>
  // CHECK: %[[H:.*]] = stablehlo.dot_general %[[XU]], %[[W1]]
  %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x32xf32>) -> tensor<2x4x32xf32>
  // CHECK: %[[HS:.*]] = mesh.shard %[[H]] to %[[LAST]] : tensor<2x4x32xf32>
  // CHECK: %[[C:.*]] = stablehlo.constant
  // CHECK: %[[CS:.*]] = mesh.shard %[[C]] to %[[LAST]] : tensor<2x4x32xf32>
  %2 = stablehlo.constant dense<0.000000e+00> : tensor<2x4x32xf32>
  // CHECK: %[[HU:.*]] = mesh.shard %[[HS]] to %[[LAST]] annotate_for_users
  // CHECK: %[[CU:.*]] = mesh.shard %[[CS]] to %[[LAST]] annotate_for_users
  // CHECK: %[[R:.*]] = stablehlo.maximum %[[HU]], %[[CU]]
  %3 = stablehlo.maximum %1, %2 : tensor<2x4x32xf32>
  // CHECK: %[[RS:.*]] = mesh.shard %[[R]] to %[[LAST]] : tensor<2x4x32xf32>
  // CHECK-DAG: %[[RU:.*]] = mesh.shard %[[RS]] to %[[LAST]] annotate_for_users
  // CHECK-DAG: %[[W2:.*]] = mesh.shard %arg2 to %[[ROWS]] annotate_for_users : tensor<32x8xf32>
  // CHECK: %[[Y:.*]] = stablehlo.dot_general %[[RU]], %[[W2]]
  %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [2] x [0] : (tensor<2x4x32xf32>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
  // CHECK: %[[PARTIAL:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[\]\]}} partial = sum[0]
  // CHECK: %[[YS:.*]] = mesh.shard %[[Y]] to %[[PARTIAL]] : tensor<2x4x8xf32>
  %s1 = mesh.sharding @mesh0 split_axes = [[]] partial = sum[0] : !mesh.sharding
  %5 = mesh.shard %4 to %s1 : tensor<2x4x8xf32>
  // CHECK: %[[OUT:.*]] = mesh.shard %[[YS]] to %{{.*}} annotate_for_users
  // CHECK: return %[[OUT]]
  %s2 = mesh.sharding @mesh0 split_axes = [[], [], [0]] : !mesh.sharding
  %6 = mesh.shard %5 to %s2 annotate_for_users : tensor<2x4x8xf32>
  return %6 : tensor<2x4x8xf32>
}

// Broadcasts and transposes map tensor dimensions to loops: the split axes
// follow the dimension they belong to.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x4)

// CHECK-LABEL: func.func @stablehlo(
// CHECK-SAME: -> (tensor<16x8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>})
func.func @stablehlo(%a: tensor<16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) -> tensor<16x8xf32> {
  // CHECK-DAG: %[[COLS:.*]] = mesh.sharding @mesh split_axes = {{\[\[\], \[1\]\]}}
  // CHECK-DAG: %[[ROWS:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
  // CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim
  // CHECK-NEXT: mesh.shard %[[B]] to %[[COLS]] :
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: %[[T:.*]] = stablehlo.transpose
  // CHECK-NEXT: mesh.shard %[[T]] to %[[ROWS]] :
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// Backward through a broadcast: the broadcast dimension has no operand
// dimension, so only the kept one reaches the argument.
// CHECK-LABEL: func.func @broadcast_backward(
// CHECK-SAME: %arg0: tensor<16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>}
func.func @broadcast_backward(%a: tensor<16xf32>) -> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) {
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// linalg.transpose and linalg.broadcast through their indexing maps.
// CHECK-LABEL: func.func @linalg(
// CHECK-SAME: -> (tensor<4x16x8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\], \[1\], \[0\]\]}}>})
func.func @linalg(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) -> tensor<4x16x8xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%a : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<4x16x8xf32>
  %b = linalg.broadcast ins(%t : tensor<16x8xf32>) outs(%e2 : tensor<4x16x8xf32>) dimensions = [0]
  return %b : tensor<4x16x8xf32>
}

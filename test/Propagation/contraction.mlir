// Contractions: the contracting loop is a sum reduction.  Splitting it leaves
// a partial result; splitting a free dimension splits the result.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x4)

// K split on axis 1: the other operand follows on its rows and the product is
// partial over axis 1.
// CHECK-LABEL: func.func @linalg_matmul_k(
// CHECK-SAME: %arg1: tensor<16x32xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>}
func.func @linalg_matmul_k(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}, %b: tensor<16x32xf32>) -> tensor<8x32xf32> {
  // CHECK-DAG: %[[P:.*]] = mesh.sharding @mesh split_axes = {{\[\[\]\]}} partial = sum[1]
  %e = tensor.empty() : tensor<8x32xf32>
  // CHECK: %[[MM:.*]] = linalg.matmul
  // CHECK-NEXT: mesh.shard %[[MM]] to %[[P]] : tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// M split on axis 0 and N on axis 1 (from the output sharding, backward).
// CHECK-LABEL: func.func @linalg_matmul_mn(
// CHECK-SAME: %arg0: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\]\]}}>}
// CHECK-SAME: %arg1: tensor<16x32xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\], \[1\]\]}}>}
func.func @linalg_matmul_mn(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>) -> (tensor<8x32xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) {
  // CHECK-DAG: %[[MN:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\], \[1\]\]}}
  %e = tensor.empty() : tensor<8x32xf32>
  // CHECK: %[[MM:.*]] = linalg.matmul
  // CHECK-NEXT: mesh.shard %[[MM]] to %[[MN]] : tensor<8x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// Batch on axis 0, contraction on axis 1; zero points are replicated.
// CHECK-LABEL: func.func @tosa_matmul(
// CHECK-SAME: %arg1: tensor<2x16x4xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\], \[1\]\]}}>}
// CHECK-SAME: %arg2: tensor<1xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\]\]}}>}
func.func @tosa_matmul(%a: tensor<2x8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [], [1]]>}, %b: tensor<2x16x4xf32>, %za: tensor<1xf32>, %zb: tensor<1xf32>) -> tensor<2x8x4xf32> {
  // CHECK-DAG: %[[P:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}} partial = sum[1]
  // CHECK: %[[MM:.*]] = tosa.matmul
  // CHECK-NEXT: mesh.shard %[[MM]] to %[[P]] : tensor<2x8x4xf32>
  %0 = tosa.matmul %a, %b, %za, %zb : (tensor<2x8x16xf32>, tensor<2x16x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// dot_general with a batching dimension: the batch is split on axis 0 and the
// rhs free dimension on axis 1, taken from the rhs.
// CHECK-LABEL: func.func @stablehlo_batched_dot(
// CHECK-SAME: -> (tensor<2x8x4xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\], \[\], \[1\]\]}}>})
func.func @stablehlo_batched_dot(%a: tensor<2x8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}, %b: tensor<2x16x4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [], [1]]>}) -> tensor<2x8x4xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  return %0 : tensor<2x8x4xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// A named op through its indexing maps: batch_matmul.
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME: -> (tensor<4x8x32xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\], \[0\]\]}}>})
func.func @batch_matmul(%a: tensor<4x8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1], [0]]>}, %b: tensor<4x16x32xf32>) -> tensor<4x8x32xf32> {
  %e = tensor.empty() : tensor<4x8x32xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%e : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %0 : tensor<4x8x32xf32>
}

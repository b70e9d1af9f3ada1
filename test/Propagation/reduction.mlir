// Reductions: the reduction kind of a split reduction loop comes from the
// combiner of the body (spec 000) and becomes the partial kind of the result.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x4)

// CHECK-LABEL: func.func @linalg_reduce_max(
func.func @linalg_reduce_max(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) -> tensor<8xf32> {
  // CHECK-DAG: %[[P:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}} partial = max[1]
  %e = tensor.empty() : tensor<8xf32>
  // CHECK: %[[R:.*]] = linalg.reduce
  // CHECK: mesh.shard %[[R]] to %[[P]] : tensor<8xf32>
  %0 = linalg.reduce ins(%a : tensor<8x16xf32>) outs(%e : tensor<8xf32>) dimensions = [1]
    (%x: f32, %y: f32) {
      %s = arith.maximumf %x, %y : f32
      linalg.yield %s : f32
    }
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// A generic with a multiplying combiner: partial product.
// CHECK-LABEL: func.func @generic_product(
func.func @generic_product(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}) -> tensor<8xf32> {
  // CHECK-DAG: %[[P:.*]] = mesh.sharding @mesh split_axes = {{\[\[\]\]}} partial = product[1]
  %e = tensor.empty() : tensor<8xf32>
  // CHECK: %[[R:.*]] = linalg.generic
  // CHECK: mesh.shard %[[R]] to %[[P]] : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %m = arith.mulf %x, %acc : f32
      linalg.yield %m : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// A combiner that is not a known reduction makes the loop unshardable: the
// operand is gathered along it instead.
// CHECK-LABEL: func.func @generic_unknown_combiner(
func.func @generic_unknown_combiner(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) -> tensor<8xf32> {
  // CHECK-DAG: %[[ROWS:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}} :
  // CHECK: mesh.shard %arg0 to %[[ROWS]] annotate_for_users : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %d = arith.subf %x, %acc : f32
      linalg.yield %d : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// stablehlo.reduce with an add body; the init value is replicated.
// CHECK-LABEL: func.func @stablehlo_reduce_sum(
// CHECK-SAME: %arg1: tensor<f32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\]\]}}>}
func.func @stablehlo_reduce_sum(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}, %init: tensor<f32>) -> tensor<8xf32> {
  // CHECK-DAG: %[[P:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}} partial = sum[1]
  // CHECK: %[[R:.*]] = stablehlo.reduce
  // CHECK-NEXT: mesh.shard %[[R]] to %[[P]] : tensor<8xf32>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

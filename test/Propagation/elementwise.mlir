// Elementwise ops (arith, math, tosa, stablehlo, linalg named): every loop is
// parallel, so a sharding flows unchanged forward and backward; broadcast
// (size-1) dimensions and zero points stay replicated.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x4)

// Forward from an input sharding through arith and math.
// CHECK-LABEL: func.func @arith_math(
// CHECK-SAME: -> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\], \[1\]\]}}>})
func.func @arith_math(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) -> tensor<8x16xf32> {
  // CHECK: %[[S:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\], \[1\]\]}}
  // CHECK: %[[X:.*]] = math.exp
  // CHECK-NEXT: mesh.shard %[[X]] to %[[S]] :
  %0 = math.exp %a : tensor<8x16xf32>
  // CHECK: %[[Y:.*]] = arith.mulf
  // CHECK-NEXT: mesh.shard %[[Y]] to %[[S]] :
  %1 = arith.mulf %0, %a : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// Backward from an output sharding: the arguments take it.
// CHECK-LABEL: func.func @backward(
// CHECK-SAME: %arg0: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\], \[1, 0\]\]}}>}
// CHECK-SAME: %arg1: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\], \[1, 0\]\]}}>}
func.func @backward(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1, 0]]>}) {
  %0 = arith.subf %a, %b : tensor<8x16xf32>
  %1 = math.tanh %0 : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// tosa: the broadcast operand (size-1 dim 0) keeps that dimension whole, and
// the zero points of tosa.negate are replicated.
// CHECK-LABEL: func.func @tosa_broadcast(
// CHECK-SAME: %arg1: tensor<1x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\], \[1\]\]}}>}
// CHECK-SAME: %arg2: tensor<1xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[\]\]}}>}
// CHECK-SAME: -> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\], \[1\]\]}}>})
func.func @tosa_broadcast(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}, %b: tensor<1x16xf32>, %z: tensor<1xf32>) -> tensor<8x16xf32> {
  %0 = tosa.add %a, %b : (tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
  %1 = tosa.negate %0, %z, %z : (tensor<8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// stablehlo and linalg elementwise ops.
// CHECK-LABEL: func.func @stablehlo_linalg(
// CHECK-SAME: -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>})
func.func @stablehlo_linalg(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) -> tensor<8xf32> {
  // CHECK: %[[S:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
  // CHECK: %[[L:.*]] = stablehlo.logistic
  // CHECK-NEXT: mesh.shard %[[L]] to %[[S]] :
  %0 = stablehlo.logistic %a : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // CHECK: %[[ADD:.*]] = linalg.add
  // CHECK-NEXT: mesh.shard %[[ADD]] to %[[S]] :
  %2 = linalg.add ins(%0, %1 : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}

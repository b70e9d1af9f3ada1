// Constants and tensor factories take the sharding their users want (each
// device materialises its own shard); calls follow the callee's input and
// output shardings.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x4)

// CHECK-LABEL: func.func @constants(
func.func @constants(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}, %f: f32) -> tensor<8x16xf32> {
  // CHECK: %[[S:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\], \[1\]\]}}
  // CHECK: %[[C:.*]] = arith.constant
  // CHECK-NEXT: mesh.shard %[[C]] to %[[S]] :
  %c = arith.constant dense<1.0> : tensor<8x16xf32>
  // CHECK: %[[SP:.*]] = tensor.splat
  // CHECK-NEXT: mesh.shard %[[SP]] to %[[S]] :
  %s = tensor.splat %f : tensor<8x16xf32>
  // CHECK: %[[E:.*]] = tensor.empty
  // CHECK-NEXT: mesh.shard %[[E]] to %[[S]] :
  %e = tensor.empty() : tensor<8x16xf32>
  // CHECK: %[[H:.*]] = stablehlo.constant
  // CHECK-NEXT: mesh.shard %[[H]] to %[[S]] :
  %h = stablehlo.constant dense<2.0> : tensor<8x16xf32>
  %0 = arith.addf %a, %c : tensor<8x16xf32>
  %1 = arith.addf %0, %s : tensor<8x16xf32>
  %2 = linalg.add ins(%1, %h : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %2 : tensor<8x16xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

func.func private @callee(tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>})

// The call operand is used as the callee's input sharding says; the call
// result is made as its output sharding says, and that reaches the caller's
// result.
// CHECK-LABEL: func.func @caller(
// CHECK-SAME: %arg0: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>}
// CHECK-SAME: -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\]\]}}>})
func.func @caller(%a: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: %[[IN:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
  // CHECK: %[[X:.*]] = mesh.shard %arg0 to %[[IN]] annotate_for_users
  // CHECK: %[[OUT:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}}
  // CHECK: %[[R:.*]] = call @callee(%[[X]])
  // CHECK-NEXT: mesh.shard %[[R]] to %[[OUT]] :
  %0 = func.call @callee(%a) : (tensor<8xf32>) -> tensor<8xf32>
  %1 = math.sqrt %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x4)

// A value returned twice, one output with a sharding: the exp is computed in
// that sharding (resharding its input or its output costs the same, and a
// tie goes to the result side), and the other output takes it as well.
// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME: -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>}, tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\]\]}}>})
func.func @two_outputs(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}) -> (tensor<8xf32>, tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) {
  // CHECK: %[[S:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
  // CHECK: %[[X:.*]] = mesh.shard %arg0 to %[[S]] annotate_for_users
  // CHECK: math.exp %[[X]]
  // CHECK: %[[A:.*]] = mesh.shard %{{.*}} to %[[S]] annotate_for_users
  // CHECK: return %[[A]], %[[A]]
  %0 = math.exp %a : tensor<8xf32>
  return %0, %0 : tensor<8xf32>, tensor<8xf32>
}

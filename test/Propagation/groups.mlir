// Sharding groups (spec 002): every member ends with the same sharding.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation=traversal=forward | FileCheck %s

mesh.mesh @mesh_xy(shape = 2x2)

// spec 002's jit_zeros_like: the input's sharding reaches the constant and the
// output through the group, although no data flows between them.
// CHECK-LABEL: func.func @zeros_like(
// CHECK-SAME: -> (tensor<8x2xi64> {mesh.sharding = #mesh.sharding<@mesh_xy, {{\[\[0\], \[1\]\]}}>})
func.func @zeros_like(%arg0: tensor<8x2xi64> {mesh.sharding = #mesh.sharding<@mesh_xy, [[0], [1]]>}) -> tensor<8x2xi64> {
  // CHECK: %[[XY:.*]] = mesh.sharding @mesh_xy split_axes = {{\[\[0\], \[1\]\]}}
  // CHECK: mesh.sharding_group %arg0 id = 0
  mesh.sharding_group %arg0 id = 0 : tensor<8x2xi64>
  // CHECK: %[[C:.*]] = stablehlo.constant
  // CHECK-NEXT: mesh.shard %[[C]] to %[[XY]] : tensor<8x2xi64>
  %1 = stablehlo.constant dense<0> : tensor<8x2xi64>
  mesh.sharding_group %1 id = 0 : tensor<8x2xi64>
  return %1 : tensor<8x2xi64>
}

// -----

mesh.mesh @mesh(shape = 4)

// A sharding found for one member (the product, from its operands) is given
// to the others: the unrelated exp takes it too.
// CHECK-LABEL: func.func @inferred_member(
// CHECK-SAME: -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\]\]}}>}, tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\]\]}}>})
func.func @inferred_member(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // CHECK: %[[ROWS:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}}
  // CHECK: %[[P:.*]] = arith.mulf
  // CHECK-NEXT: mesh.shard %[[P]] to %[[ROWS]] :
  %p = arith.mulf %a, %a : tensor<8xf32>
  mesh.sharding_group %p id = 7 : tensor<8xf32>
  // CHECK: %[[E:.*]] = math.exp
  // CHECK-NEXT: mesh.shard %[[E]] to %[[ROWS]] :
  %e = math.exp %b : tensor<8xf32>
  mesh.sharding_group %e id = 7 : tensor<8xf32>
  return %p, %e : tensor<8xf32>, tensor<8xf32>
}

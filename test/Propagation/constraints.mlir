// Sharding constraints (spec 002): a `mesh.shard ... annotate_for_users` on
// the uses of a value.  `?` marks an open dimension, which propagation may
// split further; every other dimension is closed and keeps its axes.
// RUN: mesh-opt %s --split-input-file --mesh-sharding-propagation | FileCheck %s

mesh.mesh @mesh(shape = 2x2)

// The open dimension 1 takes axis 1 from the other operand of the add; the
// constraint is rewritten with its final, closed sharding.
// CHECK-LABEL: func.func @open_dim_is_completed(
// CHECK-SAME: %arg0: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}
func.func @open_dim_is_completed(%a: tensor<4x8xf32>, %b: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}) -> tensor<4x8xf32> {
  // CHECK: %[[BOTH:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\], \[1\]\]}}
  // CHECK: %[[C:.*]] = mesh.shard %arg0 to %[[BOTH]] annotate_for_users
  %s = mesh.sharding @mesh split_axes = [[0], [?]] : !mesh.sharding
  %c = mesh.shard %a to %s annotate_for_users : tensor<4x8xf32>
  // CHECK: %[[B:.*]] = mesh.shard %arg1 to %[[BOTH]] annotate_for_users
  // CHECK: arith.addf %[[C]], %[[B]]
  %d = arith.addf %c, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// A closed dimension stays unsplit, even though the other operand is split
// there: that operand is resharded for the add instead.
// CHECK-LABEL: func.func @closed_dim_is_kept(
func.func @closed_dim_is_kept(%a: tensor<4x8xf32>, %b: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}) -> tensor<4x8xf32> {
  // CHECK: %[[ROWS:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}}
  // CHECK: %[[USER:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\], \[\]\]}}
  // CHECK: %[[C:.*]] = mesh.shard %arg0 to %[[USER]] annotate_for_users
  %s = mesh.sharding @mesh split_axes = [[0], []] : !mesh.sharding
  %c = mesh.shard %a to %s annotate_for_users : tensor<4x8xf32>
  // CHECK: %[[B:.*]] = mesh.shard %arg1 to %[[ROWS]] annotate_for_users
  // CHECK: %[[SUM:.*]] = arith.addf %[[C]], %[[B]]
  // CHECK: mesh.shard %[[SUM]] to %[[ROWS]] :
  %d = arith.addf %c, %b : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// An open dimension that already has an axis may only grow after it: [0, ?]
// becomes [0, 1] when the result is wanted split over both axes.
// CHECK-LABEL: func.func @open_dim_grows(
// CHECK-SAME: -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0, 1\]\]}}>})
func.func @open_dim_grows(%a: tensor<8xf32>) -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0, 1]]>}) {
  // CHECK: %[[BOTH:.*]] = mesh.sharding @mesh split_axes = {{\[\[0, 1\]\]}}
  // CHECK: mesh.shard %arg0 to %[[BOTH]] annotate_for_users
  %s = mesh.sharding @mesh split_axes = [[0, ?]] : !mesh.sharding
  %c = mesh.shard %a to %s annotate_for_users : tensor<8xf32>
  %d = math.exp %c : tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// A dangling constraint (no uses) is the sharding of the value itself
// (spec 002): the exp produces its result that way, and the argument follows.
// CHECK-LABEL: func.func @dangling(
// CHECK-SAME: %arg0: tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[1\], \[0\]\]}}>}
func.func @dangling(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // CHECK: %[[S:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\], \[0\]\]}}
  // CHECK: %[[E:.*]] = math.exp
  // CHECK-NEXT: mesh.shard %[[E]] to %[[S]] :
  %e = math.exp %a : tensor<8x8xf32>
  %s = mesh.sharding @mesh split_axes = [[1], [0]] : !mesh.sharding
  %c = mesh.shard %e to %s annotate_for_users : tensor<8x8xf32>
  return %e : tensor<8x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// A constraint that is the only user of a value is its sharding too; its open
// dimension is completed from the other operand and the value follows.
// CHECK-LABEL: func.func @only_user(
// CHECK-SAME: %arg0: tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh, {{\[\[0\], \[1\]\]}}>}
func.func @only_user(%a: tensor<8x8xf32>, %b: tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}) -> tensor<8x8xf32> {
  // CHECK: %[[E:.*]] = math.exp
  // CHECK-NEXT: mesh.shard %[[E]] to %[[BOTH:.*]] :
  %e = math.exp %a : tensor<8x8xf32>
  %s = mesh.sharding @mesh split_axes = [[0], [?]] : !mesh.sharding
  // CHECK: mesh.shard %{{.*}} to %[[BOTH]] annotate_for_users
  %c = mesh.shard %e to %s annotate_for_users : tensor<8x8xf32>
  %d = arith.addf %c, %b : tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// Ops that differ only in their SSA names are translated from one template;
// a diagnostic inside such an op still points at the right column, and the
// verifier still sees every op (its memo only skips identical signatures).
// RUN: not mesh-opt %s --split-input-file 2>&1 | FileCheck %s

mesh.mesh @mesh0(shape = 2)
func.func @undeclared(%x: tensor<4xf32>) -> tensor<8xf32> {
  %a = mesh.all_gather %x on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
  %b = mesh.all_gather %nope on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<4xf32> -> tensor<8xf32>
  return %b : tensor<8xf32>
}
// CHECK: template-locations.mlir:9:24: error: use of undeclared SSA value name
// CHECK-NEXT: %b = mesh.all_gather %nope on @mesh0
// CHECK-NEXT: {{^}}                       ^

// -----

mesh.mesh @mesh0(shape = 2)
func.func @same_shard_other_sharding(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = mesh.sharding @mesh0 split_axes = [[0]] : !mesh.sharding
  %t = mesh.sharding @mesh0 split_axes = [[], [0]] : !mesh.sharding
  %a = mesh.shard %x to %s : tensor<4xf32>
  %b = mesh.shard %x to %t : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
// CHECK: template-locations.mlir:23:8: error: 'mesh.shard' op sharding splits 2 tensor dimensions, but the tensor has rank 1

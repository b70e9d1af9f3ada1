// RUN: mesh-opt %s --convert-mesh-to-shard --split-input-file --verify-diagnostics

mesh.mesh @mesh0(shape = 2)
func.func @partial(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{a sharding with partial axes has no counterpart in the shard dialect}}
  %s = mesh.sharding @mesh0 split_axes = [[]] partial = sum[0] : !mesh.sharding
  %y = mesh.shard %x to %s : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2)
func.func @group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'mesh.sharding_group' has no counterpart in the shard dialect}}
  mesh.sharding_group %x id = 0 : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2)
func.func @halo(%x: tensor<6xf32>, %d: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{an update_halo whose source is not its destination has no counterpart}}
  %y = mesh.update_halo %x into %d on @mesh0 split_axes = [[0]] destination_halo_sizes = [1, 1] : tensor<6xf32> -> tensor<6xf32>
  return %y : tensor<6xf32>
}

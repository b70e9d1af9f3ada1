// RUN: mesh-opt %s --convert-mesh-to-shard | FileCheck %s
// RUN: mesh-opt %s --convert-mesh-to-shard --convert-shard-to-mesh | FileCheck %s --check-prefix=BACK
// RUN: mesh-opt %s --convert-mesh-to-shard --convert-shard-to-mesh | diff - %S/Inputs/mesh-to-shard.expected

mesh.mesh @mesh0(shape = 2x4)

// CHECK: shard.grid @mesh0(shape = 2x4)
// CHECK-LABEL: func.func @collectives
func.func @collectives(%x: tensor<4x8xf32>) -> tensor<8x8xf32> {
  // CHECK: shard.sharding @mesh0 split_axes = {{\[\[0\], \[1\]\]}} halo_sizes = [1, 2, 0, 3] : !shard.sharding
  %s = mesh.sharding @mesh0 split_axes = [[0], [1]] halo_sizes = [1, 2, 0, 3] : !mesh.sharding
  // CHECK: shard.shard %arg0 to %{{.*}} annotate_for_users : tensor<4x8xf32>
  %y = mesh.shard %x to %s annotate_for_users : tensor<4x8xf32>
  // CHECK: shard.all_gather %{{.*}} on @mesh0 grid_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %g = mesh.all_gather %y on @mesh0 mesh_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  // CHECK: shard.all_reduce %{{.*}} on @mesh0 grid_axes = [0, 1] reduction = max
  %r = mesh.all_reduce %g on @mesh0 mesh_axes = [0, 1] reduction = <max> : tensor<16x8xf32> -> tensor<16x8xf32>
  // CHECK: shard.reduce_scatter %{{.*}} on @mesh0 grid_axes = [0] reduction = min scatter_dim = 0
  %rs = mesh.reduce_scatter %r on @mesh0 mesh_axes = [0] reduction = <min> scatter_axis = 0 : tensor<16x8xf32> -> tensor<8x8xf32>
  // CHECK: shard.process_multi_index on @mesh0 axes = [1] : index
  %i = mesh.process_multi_index on @mesh0 axes = [1] : index
  // CHECK: shard.broadcast %{{.*}} on @mesh0 grid_axes = [1] root = [%{{.*}}]
  %b = mesh.broadcast %rs on @mesh0 mesh_axes = [1] root = [%i] : (tensor<8x8xf32>, index) -> tensor<8x8xf32>
  // CHECK: shard.grid_shape @mesh0 : index, index
  %n:2 = mesh.mesh_shape @mesh0 : index, index
  return %b : tensor<8x8xf32>
}

// BACK: mesh.mesh @mesh0(shape = 2x4)
// BACK: mesh.reduce_scatter %{{.*}} on @mesh0 mesh_axes = [0] reduction = <min> scatter_axis = 0

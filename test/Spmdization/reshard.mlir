// Each reshard kind of spec 004, as mesh-spmdization emits it for a pair of
// mesh.shard ops (the value's sharding, then what its user asks for).
// RUN: mesh-opt %s --split-input-file --mesh-spmdization | FileCheck %s

mesh.mesh @grid(shape = 2x3)

// Replicated to split: a local slice, no communication.
// CHECK-LABEL: func.func @split
// CHECK: mesh.all_slice %arg0 on @grid mesh_axes = [1] slice_axis = 0 : tensor<6x4xf32> -> tensor<2x4xf32>
func.func @split(%x: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %s = mesh.sharding @grid split_axes = [[1]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// Split to replicated: all_gather of the minor axis.
// CHECK-LABEL: func.func @unsplit(%arg0: tensor<1x4xf32>
// CHECK: mesh.all_gather %arg0 on @grid mesh_axes = [1] gather_axis = 0 : tensor<1x4xf32> -> tensor<3x4xf32>
func.func @unsplit(%x: tensor<6x4xf32> {mesh.sharding = #mesh.sharding<@grid, [[0, 1]]>}) -> tensor<6x4xf32> {
  %s = mesh.sharding @grid split_axes = [[0]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// Move an axis to another dimension: all_to_all (spec 004's [[0], []] -> [[], [0]]).
// CHECK-LABEL: func.func @move(%arg0: tensor<3x6xf32>
// CHECK: mesh.all_to_all %arg0 on @grid mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<3x6xf32> -> tensor<6x3xf32>
func.func @move(%x: tensor<6x6xf32> {mesh.sharding = #mesh.sharding<@grid, [[0], []]>}) -> tensor<6x6xf32> {
  %s = mesh.sharding @grid split_axes = [[], [0]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}

// Reorder the axes of one dimension ([[0, 1]] -> [[1, 0]]): every device sends
// its block to the device that owns it in the new order.
// CHECK-LABEL: func.func @swap(%arg0: tensor<1x2xf32>
// CHECK: %[[I:.*]]:2 = mesh.process_multi_index on @grid : index, index
// CHECK: %[[SENT:.*]] = mesh.send %arg0 on @grid mesh_axes = [0, 1] destination = [%{{.*}}, %{{.*}}]
// CHECK: mesh.recv %[[SENT]] on @grid mesh_axes = [0, 1] source = [%{{.*}}, %{{.*}}]
func.func @swap(%x: tensor<6x2xf32> {mesh.sharding = #mesh.sharding<@grid, [[0, 1]]>}) -> tensor<6x2xf32> {
  %s = mesh.sharding @grid split_axes = [[1, 0]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}

// Partial to replicated: all_reduce with the partial kind.
// CHECK-LABEL: func.func @partial_to_replicated
// CHECK: mesh.all_reduce %arg0 on @grid mesh_axes = [1] reduction = <max> : tensor<6x4xf32> -> tensor<6x4xf32>
func.func @partial_to_replicated(%x: tensor<6x4xf32> {mesh.sharding = #mesh.sharding<@grid, [[]], partial = max[1]>}) -> tensor<6x4xf32> {
  %s = mesh.sharding @grid split_axes = [[]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// Partial to split: reduce_scatter.
// CHECK-LABEL: func.func @partial_to_split
// CHECK: mesh.reduce_scatter %arg0 on @grid mesh_axes = [1] scatter_axis = 1 : tensor<6x6xf32> -> tensor<6x2xf32>
func.func @partial_to_split(%x: tensor<6x6xf32> {mesh.sharding = #mesh.sharding<@grid, [[]], partial = sum[1]>}) -> tensor<6x6xf32> {
  %s = mesh.sharding @grid split_axes = [[], [1]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<6x6xf32>
  return %y : tensor<6x6xf32>
}

// -----

mesh.mesh @ring(shape = 4)

// Halos: the core goes into a zeroed buffer with room for them and
// update_halo fills them from the neighbours.
// CHECK-LABEL: func.func @halo(%arg0: tensor<2x3xf32>
// CHECK: %[[BUF:.*]] = arith.constant dense<0.000000e+00> : tensor<5x3xf32>
// CHECK: mesh.update_halo %arg0 into %[[BUF]] on @ring split_axes = {{\[\[0\]\]}} destination_halo_sizes = [1, 2] : tensor<2x3xf32> -> tensor<5x3xf32>
func.func @halo(%x: tensor<8x3xf32> {mesh.sharding = #mesh.sharding<@ring, [[0]]>}) -> tensor<8x3xf32> {
  %s = mesh.sharding @ring split_axes = [[0]] halo_sizes = [1, 2] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}

// Uneven shards (sharded_dims_offsets): padded to the largest shard, gathered,
// and the pieces put back together.
// CHECK-LABEL: func.func @uneven(%arg0: tensor<?x3xf32>
// CHECK: %[[PAD:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0] [%{{.*}}, 3] [1, 1] : tensor<?x3xf32> into tensor<4x3xf32>
// CHECK: %[[ALL:.*]] = mesh.all_gather %[[PAD]] on @ring mesh_axes = [0] gather_axis = 0 : tensor<4x3xf32> -> tensor<16x3xf32>
// CHECK: tensor.concat dim(0)
// CHECK-SAME: -> tensor<8x3xf32>
func.func @uneven(%x: tensor<8x3xf32> {mesh.sharding = #mesh.sharding<@ring, [[0]], sharded_dims_offsets = [0, 1, 4, 4, 8]>}) -> tensor<8x3xf32> {
  %s = mesh.sharding @ring split_axes = [[]] : !mesh.sharding
  %y = mesh.shard %x to %s annotate_for_users : tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}

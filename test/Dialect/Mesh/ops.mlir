// Round trip of every mesh op and every syntax variant of spec 001.
// RUN: mesh-opt %s | FileCheck %s
// The printed text parses again to the same text (print-parse-print is a fixed point).
// RUN: mesh-opt %s > %t.1.mlir && mesh-opt %t.1.mlir > %t.2.mlir && diff %t.1.mlir %t.2.mlir
// The generic form is accepted as input and prints back to the same custom text.
// RUN: mesh-opt %s --mlir-print-op-generic | mesh-opt | FileCheck %s

// CHECK: mesh.mesh @mesh0(shape = 2x2x4)
mesh.mesh @mesh0(shape = 2x2x4)
// CHECK: mesh.mesh @mesh1(shape = 4x?)
mesh.mesh @mesh1(shape = 4x?)
// CHECK: mesh.mesh @mesh2(shape = ?x4)
mesh.mesh @mesh2(shape = ?x4)
// CHECK: mesh.mesh @mesh3(shape = ?x?)
mesh.mesh @mesh3(shape = ?x?)
// CHECK: mesh.mesh @mesh4(shape = 3)
mesh.mesh @mesh4(shape = 3)
// CHECK: mesh.mesh @mesh1d_4(shape = 4)
mesh.mesh @mesh1d_4(shape = 4)
// CHECK: mesh.mesh @mesh2x4(shape = 2x4)
mesh.mesh @mesh2x4(shape = 2x4)
// CHECK: mesh.mesh @mesh4x4(shape = 4x4) {tag = "extra"}
mesh.mesh @mesh4x4(shape = 4x4) {tag = "extra"}

// CHECK-LABEL: func.func @queries
func.func @queries() -> (index, index, index) {
  // CHECK-NEXT: %[[S:.*]]:3 = mesh.mesh_shape @mesh0 : index, index, index
  %s:3 = mesh.mesh_shape @mesh0 : index, index, index
  // CHECK-NEXT: %{{.*}}:2 = mesh.mesh_shape @mesh0 axes = [2, 0] : index, index
  %t:2 = mesh.mesh_shape @mesh0 axes = [2, 0] : index, index
  // CHECK-NEXT: %{{.*}} = mesh.process_linear_index on @mesh0 : index
  %idx = mesh.process_linear_index on @mesh0 : index
  // CHECK-NEXT: %{{.*}}:3 = mesh.process_multi_index on @mesh0 : index, index, index
  %m:3 = mesh.process_multi_index on @mesh0 : index, index, index
  // CHECK-NEXT: %{{.*}}:2 = mesh.process_multi_index on @mesh0 axes = [2, 0] : index, index
  %n:2 = mesh.process_multi_index on @mesh0 axes = [2, 0] : index, index
  // CHECK-NEXT: %{{.*}} = mesh.process_multi_index on @mesh1 axes = [1] : index
  %d = mesh.process_multi_index on @mesh1 axes = [1] : index
  return %s#0, %idx, %d : index, index, index
}

// CHECK-LABEL: func.func @shardings
func.func @shardings(%arg0: tensor<4x8xf32>, %h: i64) -> tensor<4x8xf32> {
  // CHECK-NEXT: %[[R:.*]] = mesh.sharding @mesh0 split_axes = {{\[\[\]\]}} : !mesh.sharding
  %sharding0 = mesh.sharding @mesh0 split_axes = [[]] : !mesh.sharding
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0]] : !mesh.sharding
  %sharding1 = mesh.sharding @mesh0 split_axes = [[0]] : !mesh.sharding
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0], []] partial = sum[1] : !mesh.sharding
  %sharding2 = mesh.sharding @mesh0 split_axes = [[0], []] partial = sum[1] : !mesh.sharding
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0]] partial = max[1] : !mesh.sharding
  %sharding3 = mesh.sharding @mesh0 split_axes = [[0]] partial = max[1] : !mesh.sharding
  // The spec's examples leave out the (fixed) result type; it is printed.
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0]] partial = min[1, 2] : !mesh.sharding
  %sharding3b = mesh.sharding @mesh0 split_axes = [[0]] partial = min[1, 2]
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0]] halo_sizes = [1, 2] : !mesh.sharding
  %halo_sharding = mesh.sharding @mesh0 split_axes = [[0]] halo_sizes = [1, 2]
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}0], [1]] halo_sizes = [1, %{{.*}}, 0, 3] : !mesh.sharding
  %dyn_halo = mesh.sharding @mesh0 split_axes = [[0], [1]] halo_sizes = [1, %h, 0, 3] : !mesh.sharding
  // CHECK-NEXT: mesh.sharding @mesh1d_4 split_axes = {{\[\[}}], [0]] sharded_dims_offsets = [0, 2, 5, 9, 14] : !mesh.sharding
  %sharding4 = mesh.sharding @mesh1d_4 split_axes = [[], [0]] sharded_dims_offsets = [0, 2, 5, 9, 14]
  // CHECK-NEXT: mesh.sharding @mesh1d_4 split_axes = {{\[\[}}0]] sharded_dims_offsets = [0, %{{.*}}, 2, 3, 4] : !mesh.sharding
  %sharding5 = mesh.sharding @mesh1d_4 split_axes = [[0]] sharded_dims_offsets = [0, %h, 2, 3, 4] : !mesh.sharding
  // CHECK-NEXT: mesh.sharding @mesh0 split_axes = {{\[\[}}2, 0], [1]] {user.note = 1 : i32} : !mesh.sharding
  %sharding6 = mesh.sharding @mesh0 split_axes = [[2, 0], [1]] {user.note = 1 : i32} : !mesh.sharding
  // CHECK-NEXT: %[[A:.*]] = mesh.shard %arg0 to %{{.*}} : tensor<4x8xf32>
  %sharded0 = mesh.shard %arg0 to %sharding3 : tensor<4x8xf32>
  // CHECK-NEXT: mesh.shard %[[A]] to %{{.*}} annotate_for_users : tensor<4x8xf32>
  %sharded1 = mesh.shard %sharded0 to %halo_sharding annotate_for_users : tensor<4x8xf32>
  return %sharded1 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @sharding_values
// CHECK-SAME: (%{{.*}}: !mesh.sharding, %{{.*}}: index) -> (index, index)
func.func @sharding_values(%s: !mesh.sharding, %dev: index) -> (index, index) {
  // CHECK-NEXT: %{{.*}}:2 = mesh.shard_shape 8x16 %{{.*}} %{{.*}} : index, index
  %0:2 = mesh.shard_shape 8x16 %s %dev : index, index
  return %0#0, %0#1 : index, index
}

// CHECK-LABEL: func.func @all_gather
func.func @all_gather(%arg0: tensor<2x2xi8>, %arg1: tensor<3x4xf32>) -> tensor<2x4xi8> {
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh2x4 mesh_axes = [0] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x4xi8>
  %0 = mesh.all_gather %arg0 on @mesh2x4 mesh_axes = [0] gather_axis = 1
    : tensor<2x2xi8> -> tensor<2x4xi8>
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh2x4 mesh_axes = [1, 0] gather_axis = 0 : tensor<3x4xf32> -> tensor<24x4xf32>
  %1 = mesh.all_gather %arg1 on @mesh2x4 mesh_axes = [1, 0] gather_axis = 0 : tensor<3x4xf32> -> tensor<24x4xf32>
  // Without mesh_axes the group is a single device.
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh2x4 gather_axis = 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  %2 = mesh.all_gather %arg1 on @mesh2x4 gather_axis = 0 : tensor<3x4xf32> -> tensor<3x4xf32>
  // Dynamic mesh dimension: any result size.
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh1 mesh_axes = [1] gather_axis = 0 : tensor<3x4xf32> -> tensor<?x4xf32>
  %3 = mesh.all_gather %arg1 on @mesh1 mesh_axes = [1] gather_axis = 0 : tensor<3x4xf32> -> tensor<?x4xf32>
  return %0 : tensor<2x4xi8>
}

// CHECK-LABEL: func.func @all_reduce
func.func @all_reduce(%arg0: tensor<3x4xf32>) -> tensor<3x4xf64> {
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [1, 0] reduction = <max> : tensor<3x4xf32> -> tensor<3x4xf64>
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [1, 0] reduction = <max>
    : tensor<3x4xf32> -> tensor<3x4xf64>
  // The bare spelling of the reduction kind is accepted too.
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [2] reduction = <bitwise_xor> : tensor<3x4xf32> -> tensor<3x4xf32>
  %1 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [2] reduction = bitwise_xor : tensor<3x4xf32> -> tensor<3x4xf32>
  // sum is the default and is not printed.
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] : tensor<3x4xf32> -> tensor<3x4xf32>
  %2 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <sum> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <average> : tensor<3x4xf32> -> tensor<3x4xf32>
  %3 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <average> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <product> : tensor<3x4xf32> -> tensor<3x4xf32>
  %4 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <product> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <min> : tensor<3x4xf32> -> tensor<3x4xf32>
  %5 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <min> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <bitwise_and> : tensor<3x4xf32> -> tensor<3x4xf32>
  %6 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <bitwise_and> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <bitwise_or> : tensor<3x4xf32> -> tensor<3x4xf32>
  %7 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <bitwise_or> : tensor<3x4xf32> -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.all_reduce %{{.*}} on @mesh0 mesh_axes = [0] reduction = <generic> : tensor<3x4xf32> -> tensor<3x4xf32>
  %8 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <generic> : tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf64>
}

// CHECK-LABEL: func.func @all_slice
func.func @all_slice(%arg0: tensor<2x4xi8>) -> tensor<2x2xi8> {
  // CHECK-NEXT: mesh.all_slice %{{.*}} on @mesh2x4 mesh_axes = [0] slice_axis = 1 : tensor<2x4xi8> -> tensor<2x2xi8>
  %0 = mesh.all_slice %arg0 on @mesh2x4 mesh_axes = [0] slice_axis = 1
    : tensor<2x4xi8> -> tensor<2x2xi8>
  return %0 : tensor<2x2xi8>
}

// CHECK-LABEL: func.func @all_to_all
func.func @all_to_all(%arg0: tensor<3x2xi8>, %arg1: tensor<3x6xi8>) -> tensor<3x2xi8> {
  // CHECK-NEXT: mesh.all_to_all %{{.*}} on @mesh4 mesh_axes = [0] split_axis = 0 concat_axis = 0 : tensor<3x2xi8> -> tensor<3x2xi8>
  %0 = mesh.all_to_all %arg0 on @mesh4 mesh_axes = [0]
    split_axis = 0 concat_axis = 0
    : tensor<3x2xi8> -> tensor<3x2xi8>
  // CHECK-NEXT: mesh.all_to_all %{{.*}} on @mesh4 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<3x6xi8> -> tensor<9x2xi8>
  %1 = mesh.all_to_all %arg1 on @mesh4 mesh_axes = [0] split_axis = 1 concat_axis = 0 : tensor<3x6xi8> -> tensor<9x2xi8>
  return %0 : tensor<3x2xi8>
}

// CHECK-LABEL: func.func @rooted
func.func @rooted(%arg0: tensor<2xi8>, %arg1: tensor<2x2xi8>, %arg2: tensor<3x4xf32>, %i: index) -> tensor<2xi8> {
  // CHECK-NEXT: mesh.broadcast %{{.*}} on @mesh2x4 mesh_axes = [0] root = [0] : (tensor<2xi8>) -> tensor<2xi8>
  %0 = mesh.broadcast %arg0 on @mesh2x4
    mesh_axes = [0]
    root = [0]
    : (tensor<2xi8>) -> tensor<2xi8>
  // CHECK-NEXT: mesh.broadcast %{{.*}} on @mesh2x4 mesh_axes = [1, 0] root = [%{{.*}}, 1] : (tensor<2xi8>, index) -> tensor<2xi8>
  %1 = mesh.broadcast %arg0 on @mesh2x4 mesh_axes = [1, 0] root = [%i, 1] : (tensor<2xi8>, index) -> tensor<2xi8>
  // CHECK-NEXT: mesh.gather %{{.*}} on @mesh2x4 mesh_axes = [1] gather_axis = 1 root = [1] : (tensor<2x2xi8>) -> tensor<2x8xi8>
  %2 = mesh.gather %arg1 on @mesh2x4 mesh_axes = [1]
    gather_axis = 1 root = [1]
    : (tensor<2x2xi8>) -> tensor<2x8xi8>
  // CHECK-NEXT: mesh.reduce %{{.*}} on @mesh4x4 mesh_axes = [1, 0] reduction = <max> root = [2, 3] : (tensor<3x4xf32>) -> tensor<3x4xf64>
  %3 = mesh.reduce %arg2 on @mesh4x4 mesh_axes = [1, 0]
    reduction = <max> root = [2, 3]
    : (tensor<3x4xf32>) -> tensor<3x4xf64>
  // CHECK-NEXT: mesh.reduce %{{.*}} on @mesh4x4 mesh_axes = [0] root = [%{{.*}}] : (tensor<3x4xf32>, index) -> tensor<3x4xf32>
  %4 = mesh.reduce %arg2 on @mesh4x4 mesh_axes = [0] root = [%i] : (tensor<3x4xf32>, index) -> tensor<3x4xf32>
  // CHECK-NEXT: mesh.reduce_scatter %{{.*}} on @mesh4x4 mesh_axes = [1] reduction = <max> scatter_axis = 1 : tensor<3x4xf32> -> tensor<3x1xf64>
  %5 = mesh.reduce_scatter %arg2 on @mesh4x4 mesh_axes = [1]
    reduction = <max> scatter_axis = 1
    : tensor<3x4xf32> -> tensor<3x1xf64>
  // CHECK-NEXT: mesh.reduce_scatter %{{.*}} on @mesh2x4 mesh_axes = [0] scatter_axis = 1 : tensor<3x4xf32> -> tensor<3x2xf32>
  %6 = mesh.reduce_scatter %arg2 on @mesh2x4 mesh_axes = [0] scatter_axis = 1 : tensor<3x4xf32> -> tensor<3x2xf32>
  // CHECK-NEXT: mesh.scatter %{{.*}} on @mesh2x4 mesh_axes = [0] scatter_axis = 0 root = [1] : (tensor<2x2xi8>) -> tensor<1x2xi8>
  %7 = mesh.scatter %arg1 on @mesh2x4 mesh_axes = [0]
    scatter_axis = 0
    root = [1]
    : (tensor<2x2xi8>) -> tensor<1x2xi8>
  // CHECK-NEXT: mesh.scatter %{{.*}} on @mesh2x4 mesh_axes = [0] scatter_axis = 0 root = [%{{.*}}] : (tensor<2x2xi8>, index) -> tensor<1x2xi8>
  %8 = mesh.scatter %arg1 on @mesh2x4 mesh_axes = [0] scatter_axis = 0 root = [%i] : (tensor<2x2xi8>, index) -> tensor<1x2xi8>
  return %0 : tensor<2xi8>
}

// send and recv are not pure: they survive without uses.
// CHECK-LABEL: func.func @point_to_point
func.func @point_to_point(%arg0: tensor<2xi8>, %i: index) {
  // CHECK-NEXT: mesh.send %{{.*}} on @mesh2x4 mesh_axes = [1] destination = [3] : (tensor<2xi8>) -> tensor<2xi8>
  %0 = mesh.send %arg0 on @mesh2x4 mesh_axes = [1] destination = [3] : (tensor<2xi8>) -> tensor<2xi8>
  // CHECK-NEXT: mesh.send %{{.*}} on @mesh2x4 mesh_axes = [1] destination = [%{{.*}}] : (tensor<2xi8>, index) -> tensor<2xi8>
  %1 = mesh.send %arg0 on @mesh2x4 mesh_axes = [1] destination = [%i] : (tensor<2xi8>, index) -> tensor<2xi8>
  // CHECK-NEXT: mesh.recv %{{.*}} on @mesh2x4 mesh_axes = [1] source = [0] : (tensor<2xi8>) -> tensor<2xi8>
  %2 = mesh.recv %arg0 on @mesh2x4 mesh_axes = [1] source = [0] : (tensor<2xi8>) -> tensor<2xi8>
  // CHECK-NEXT: mesh.recv %{{.*}} on @mesh2x4 mesh_axes = [1] : (tensor<2xi8>) -> tensor<2xi8>
  %3 = mesh.recv %arg0 on @mesh2x4 mesh_axes = [1] : (tensor<2xi8>) -> tensor<2xi8>
  // CHECK-NEXT: mesh.recv %{{.*}} on @mesh2x4 mesh_axes = [0, 1] source = [%{{.*}}, 2] : (tensor<2xi8>, index) -> tensor<2xi8>
  %4 = mesh.recv %arg0 on @mesh2x4 mesh_axes = [0, 1] source = [%i, 2] : (tensor<2xi8>, index) -> tensor<2xi8>
  return
}

// CHECK-LABEL: func.func @shift
func.func @shift(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // CHECK-NEXT: mesh.shift %{{.*}} on @mesh2x4 mesh_axes = [1] shift_axis = 1 offset = 2 rotate : tensor<2xi8> -> tensor<2xi8>
  %0 = mesh.shift %arg0 on @mesh2x4 mesh_axes = [1]
    shift_axis = 1 offset = 2 rotate
    : tensor<2xi8> -> tensor<2xi8>
  // CHECK-NEXT: mesh.shift %{{.*}} on @mesh2x4 mesh_axes = [0, 1] shift_axis = 0 offset = -1 : tensor<2xi8> -> tensor<2xi8>
  %1 = mesh.shift %arg0 on @mesh2x4 mesh_axes = [0, 1] shift_axis = 0 offset = -1 : tensor<2xi8> -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// CHECK-LABEL: func.func @update_halo
func.func @update_halo(%src: tensor<6x4xf32>, %dst: tensor<8x4xf32>, %m: memref<6x4xf32>, %h: i64) -> tensor<8x4xf32> {
  // CHECK-NEXT: mesh.update_halo %{{.*}} into %{{.*}} on @mesh2x4 split_axes = {{\[\[}}0]] destination_halo_sizes = [1, 1] : tensor<6x4xf32> -> tensor<8x4xf32>
  %0 = mesh.update_halo %src into %dst on @mesh2x4 split_axes = [[0]]
    destination_halo_sizes = [1, 1] : tensor<6x4xf32> -> tensor<8x4xf32>
  // CHECK-NEXT: mesh.update_halo %{{.*}} into %{{.*}} on @mesh2x4 split_axes = {{\[\[}}0]] source_halo_sizes = [0, %{{.*}}] destination_halo_sizes = [1, 1] : tensor<6x4xf32> -> tensor<8x4xf32>
  %1 = mesh.update_halo %src into %dst on @mesh2x4 split_axes = [[0]]
    source_halo_sizes = [0, %h]
    destination_halo_sizes = [1, 1] : tensor<6x4xf32> -> tensor<8x4xf32>
  // CHECK-NEXT: mesh.update_halo %{{.*}} into %{{.*}} on @mesh2x4 split_axes = {{\[\[}}], [1]] : memref<6x4xf32> -> memref<6x4xf32>
  %2 = mesh.update_halo %m into %m on @mesh2x4 split_axes = [[], [1]] : memref<6x4xf32> -> memref<6x4xf32>
  return %0 : tensor<8x4xf32>
}

// The generic form is accepted as input and printed in the custom syntax.
// CHECK-LABEL: func.func @generic_input
func.func @generic_input(%arg0: tensor<2x2xi8>) -> tensor<2x4xi8> {
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh2x4 mesh_axes = [0] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x4xi8>
  %0 = "mesh.all_gather"(%arg0) {mesh = @mesh2x4, mesh_axes = array<i16: 0>, gather_axis = 1 : index} : (tensor<2x2xi8>) -> tensor<2x4xi8>
  // CHECK-NEXT: mesh.sharding @mesh2x4 split_axes = {{\[\[}}0]] partial = max[1] : !mesh.sharding
  %1 = "mesh.sharding"() {mesh = @mesh2x4, split_axes = #mesh.axisarray<[array<i16: 0>]>, partial_axes = array<i16: 1>, partial_type = #mesh.partial<"max">, operandSegmentSizes = array<i32: 0, 0>} : () -> !mesh.sharding
  return %0 : tensor<2x4xi8>
}

// Comments between the pieces of an op and odd spacing are fine.
// CHECK-LABEL: func.func @layout
func.func @layout(%arg0: tensor<2x2xi8>) -> tensor<2x4xi8> {
  // CHECK-NEXT: mesh.all_gather %{{.*}} on @mesh2x4 mesh_axes = [0] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x4xi8>
  %0 = mesh.all_gather %arg0   on   @mesh2x4 // the mesh
         mesh_axes=[0]  // its axis 0
         gather_axis=1 :tensor<2x2xi8>->tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

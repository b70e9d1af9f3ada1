// One case per verifier rule and syntax error of the mesh dialect.
// RUN: mesh-opt %s --split-input-file --verify-diagnostics

mesh.mesh @mesh0(shape = 2x4)
func.func @missing_keyword(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{expected 'gather_axis'}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] : tensor<2x2xi8> -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @missing_on(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{expected 'on'}}
  %0 = mesh.all_gather %arg0 @mesh0 gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @unknown_reduction(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unknown reduction kind 'median'}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <median> : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @axes_not_integers(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected integer}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [x] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @empty_split_axes() {
  // expected-error@+1 {{expected at least one sub-array}}
  %0 = mesh.sharding @mesh0 split_axes = [] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @operand_type_count(%arg0: tensor<2xi8>, %i: index) -> tensor<2xi8> {
  // expected-error@+1 {{expected 2 operand types, found 1}}
  %0 = mesh.broadcast %arg0 on @mesh0 mesh_axes = [0] root = [%i] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @undefined_value() -> tensor<2xi8> {
  // expected-error@+1 {{use of undeclared SSA value name}}
  %0 = mesh.shift %nothing on @mesh0 mesh_axes = [1] shift_axis = 1 offset = 1 : tensor<2xi8> -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @missing_type(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{expected type}}
  %0 = mesh.shift %arg0 on @mesh0 mesh_axes = [1] shift_axis = 1 offset = 1 : -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

// expected-error@+1 {{expected symbol reference}}
mesh.mesh mesh9(shape = 2)

// -----

// expected-error@+1 {{rank of mesh is expected to be a positive integer}}
mesh.mesh @empty(shape = )

// -----

// expected-error@+1 {{dimension size -3 of mesh is negative}}
"mesh.mesh"() {sym_name = "neg", shape = array<i64: 2, -3>} : () -> ()

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @unknown_mesh(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{symbol '@nowhere' does not name a 'mesh.mesh' op}}
  %0 = mesh.all_reduce %arg0 on @nowhere mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func private @not_a_mesh_target()
func.func @not_a_mesh(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{symbol '@not_a_mesh_target' does not name a 'mesh.mesh' op}}
  %0 = mesh.all_reduce %arg0 on @not_a_mesh_target mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @linear_index_unknown_mesh() -> index {
  // expected-error@+1 {{does not name a 'mesh.mesh' op}}
  %0 = mesh.process_linear_index on @mesh7 : index
  return %0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @axis_out_of_range(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{mesh_axes contains axis 2, out of range for mesh of rank 2}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [2] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @negative_axis(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{mesh_axes contains axis -1}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [-1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @duplicate_axis(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{mesh_axes contains axis 1 more than once}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [1, 1] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @mesh_shape_axis(%arg0: tensor<4xf32>) -> index {
  // expected-error@+1 {{axes contains axis 5, out of range for mesh of rank 2}}
  %0 = mesh.mesh_shape @mesh0 axes = [5] : index
  return %0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @multi_index_duplicate() -> index {
  // expected-error@+1 {{axes contains axis 0 more than once}}
  %0:2 = mesh.process_multi_index on @mesh0 axes = [0, 0] : index, index
  return %0#0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @multi_index_count() -> index {
  // expected-error@+1 {{has 1 results, expected 2 (one per axis of 2 axes)}}
  %0 = mesh.process_multi_index on @mesh0 axes = [0, 1] : index
  return %0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @multi_index_rank() -> index {
  // expected-error@+1 {{has 3 results, expected 2 (one per axis of a mesh of rank 2)}}
  %0:3 = mesh.process_multi_index on @mesh0 : index, index, index
  return %0#0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @mesh_shape_count() -> index {
  // expected-error@+1 {{has 1 results, expected 2}}
  %0 = mesh.mesh_shape @mesh0 : index
  return %0 : index
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @split_axis_range() {
  // expected-error@+1 {{split_axes uses mesh axis 3 (tensor dimension 1), out of range for mesh of rank 2}}
  %0 = mesh.sharding @mesh0 split_axes = [[0], [3]] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @split_axis_twice() {
  // expected-error@+1 {{mesh axis 0 is used more than once in split_axes}}
  %0 = mesh.sharding @mesh0 split_axes = [[0], [1, 0]] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @split_axis_twice_same_dim() {
  // expected-error@+1 {{mesh axis 1 is used more than once in split_axes}}
  %0 = mesh.sharding @mesh0 split_axes = [[1, 1]] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @partial_axis_range() {
  // expected-error@+1 {{partial_axes contains axis 4, out of range for mesh of rank 2}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] partial = sum[4] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @partial_axis_twice() {
  // expected-error@+1 {{partial_axes contains axis 1 more than once}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] partial = sum[1, 1] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @partial_and_split() {
  // expected-error@+1 {{mesh axis 0 is both a split axis and a partial axis}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] partial = sum[0] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @partial_generic() {
  // expected-error@+1 {{reduction kind 'generic' is not allowed in a sharding}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] partial = generic[1] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_and_offsets() {
  // expected-error@+1 {{halo_sizes and sharded_dims_offsets are mutually exclusive}}
  %0 = "mesh.sharding"() {mesh = @mesh0, split_axes = #mesh.axisarray<[array<i16: 0>]>, static_halo_sizes = array<i64: 1, 1>, static_sharded_dims_offsets = array<i64: 0, 1, 2>, operandSegmentSizes = array<i32: 0, 0>} : () -> !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_count() {
  // expected-error@+1 {{halo_sizes has 2 entries, expected 4 (2 per split tensor dimension)}}
  %0 = mesh.sharding @mesh0 split_axes = [[0], [1]] halo_sizes = [1, 2] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_negative() {
  // expected-error@+1 {{halo size -1 is negative}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] halo_sizes = [-1, 2] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @offsets_count() {
  // expected-error@+1 {{sharded_dims_offsets has 4 entries, expected 5 (shards + 1 per split tensor dimension)}}
  %0 = mesh.sharding @mesh0 split_axes = [[], [1]] sharded_dims_offsets = [0, 2, 5, 9] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @offsets_decreasing() {
  // expected-error@+1 {{sharded_dims_offsets of tensor dimension 0 are not non-decreasing}}
  %0 = mesh.sharding @mesh0 split_axes = [[0]] sharded_dims_offsets = [0, 5, 3] : !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @dynamic_entries(%h: i64) {
  // expected-error@+1 {{'static_halo_sizes' has 1 dynamic entries but 0 'dynamic_halo_sizes' operands}}
  %0 = "mesh.sharding"() {mesh = @mesh0, split_axes = #mesh.axisarray<[array<i16: 0>]>, static_halo_sizes = array<i64: 1, -9223372036854775808>, operandSegmentSizes = array<i32: 0, 0>} : () -> !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_not_i64(%h: i32) {
  // expected-error@+1 {{operand 'dynamic_halo_sizes' must be i64, got i32}}
  %0 = "mesh.sharding"(%h) {mesh = @mesh0, split_axes = #mesh.axisarray<[array<i16: 0>]>, static_halo_sizes = array<i64: 1, -9223372036854775808>, operandSegmentSizes = array<i32: 0, 1>} : (i32) -> !mesh.sharding
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shard_type(%arg0: tensor<4x8xf32>) {
  %s = mesh.sharding @mesh0 split_axes = [[0]] : !mesh.sharding
  // expected-error@+1 {{type of 'result' (tensor<4x8xf16>) differs from type of 'src' (tensor<4x8xf32>)}}
  %0 = "mesh.shard"(%arg0, %s) : (tensor<4x8xf32>, !mesh.sharding) -> tensor<4x8xf16>
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shard_rank(%arg0: tensor<4xf32>) {
  %s = mesh.sharding @mesh0 split_axes = [[0], [1]] : !mesh.sharding
  // expected-error@+1 {{sharding splits 2 tensor dimensions, but the tensor has rank 1}}
  %0 = mesh.shard %arg0 to %s : tensor<4xf32>
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shard_shape_count(%s: !mesh.sharding, %d: index) {
  // expected-error@+1 {{has 1 results, expected 2 (one per dimension of the shape)}}
  %0 = mesh.shard_shape 8x16 %s %d : index
  return
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_axis_range(%arg0: tensor<2x2xi8>) -> tensor<2x2xi8> {
  // expected-error@+1 {{gather_axis 2 is out of range for a tensor of rank 2}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 2 : tensor<2x2xi8> -> tensor<2x2xi8>
  return %0 : tensor<2x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_size(%arg0: tensor<2x2xi8>) -> tensor<2x4xi8> {
  // expected-error@+1 {{result dimension 1 has size 4, expected 8 (2 x group size 4)}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_group_two_axes(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{result dimension 1 has size 8, expected 16 (2 x group size 8)}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [0, 1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_element_type(%arg0: tensor<2x2xi8>) -> tensor<2x8xi16> {
  // expected-error@+1 {{result element type i16 differs from input element type i8}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi16>
  return %0 : tensor<2x8xi16>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_rank(%arg0: tensor<2x2xi8>) -> tensor<16xi8> {
  // expected-error@+1 {{result rank 1 differs from input rank 2}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 0 : tensor<2x2xi8> -> tensor<16xi8>
  return %0 : tensor<16xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_other_dim(%arg0: tensor<2x2xi8>) -> tensor<3x8xi8> {
  // expected-error@+1 {{result dimension 0 has size 3, expected 2 (the input's)}}
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<3x8xi8>
  return %0 : tensor<3x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_rank0(%arg0: tensor<i8>) -> tensor<i8> {
  // expected-error@+1 {{operand 'input' must have rank > 0}}
  %0 = mesh.all_gather %arg0 on @mesh0 gather_axis = 0 : tensor<i8> -> tensor<i8>
  return %0 : tensor<i8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @reduce_shape(%arg0: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{result shape 8 differs from input shape 4}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @reduce_kind_attr(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute 'reduction' has unknown reduction kind 'median'}}
  %0 = "mesh.all_reduce"(%arg0) {mesh = @mesh0, mesh_axes = array<i16: 0>, reduction = #mesh.partial<"median">} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @axes_attr_kind(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{attribute 'mesh_axes' is not a valid axes attribute}}
  %0 = "mesh.all_reduce"(%arg0) {mesh = @mesh0, mesh_axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @slice_divisible(%arg0: tensor<2x6xi8>) -> tensor<2x1xi8> {
  // expected-error@+1 {{input dimension 1 of size 6 is not divisible by the group size 4}}
  %0 = mesh.all_slice %arg0 on @mesh0 mesh_axes = [1] slice_axis = 1 : tensor<2x6xi8> -> tensor<2x1xi8>
  return %0 : tensor<2x1xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @slice_size(%arg0: tensor<2x8xi8>) -> tensor<2x4xi8> {
  // expected-error@+1 {{result dimension 1 has size 4, expected 2 (8 / group size 4)}}
  %0 = mesh.all_slice %arg0 on @mesh0 mesh_axes = [1] slice_axis = 1 : tensor<2x8xi8> -> tensor<2x4xi8>
  return %0 : tensor<2x4xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @slice_axis_index_type(%arg0: tensor<2x8xi8>) -> tensor<2x2xi8> {
  // expected-error@+1 {{attribute 'slice_axis' is not a valid index attribute}}
  %0 = "mesh.all_slice"(%arg0) {mesh = @mesh0, mesh_axes = array<i16: 1>, slice_axis = 1 : i64} : (tensor<2x8xi8>) -> tensor<2x2xi8>
  return %0 : tensor<2x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @a2a_divisible(%arg0: tensor<3x2xi8>) -> tensor<12x1xi8> {
  // expected-error@+1 {{input dimension 1 of size 2 is not divisible by the group size 4}}
  %0 = mesh.all_to_all %arg0 on @mesh0 mesh_axes = [1] split_axis = 1 concat_axis = 0 : tensor<3x2xi8> -> tensor<12x1xi8>
  return %0 : tensor<12x1xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @a2a_concat(%arg0: tensor<3x8xi8>) -> tensor<3x2xi8> {
  // expected-error@+1 {{result dimension 0 has size 3, expected 12 (3 x group size 4)}}
  %0 = mesh.all_to_all %arg0 on @mesh0 mesh_axes = [1] split_axis = 1 concat_axis = 0 : tensor<3x8xi8> -> tensor<3x2xi8>
  return %0 : tensor<3x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @a2a_axis_range(%arg0: tensor<3x8xi8>) -> tensor<3x8xi8> {
  // expected-error@+1 {{concat_axis 2 is out of range for a tensor of rank 2}}
  %0 = mesh.all_to_all %arg0 on @mesh0 mesh_axes = [1] split_axis = 1 concat_axis = 2 : tensor<3x8xi8> -> tensor<3x8xi8>
  return %0 : tensor<3x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @root_length(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{root has 2 coordinates, expected 1 (one per mesh axis in mesh_axes)}}
  %0 = mesh.broadcast %arg0 on @mesh0 mesh_axes = [0] root = [0, 1] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @root_range(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{root coordinate 2 is out of range for mesh axis 0 of size 2}}
  %0 = mesh.broadcast %arg0 on @mesh0 mesh_axes = [0] root = [2] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @broadcast_type(%arg0: tensor<2xi8>) -> tensor<3xi8> {
  // expected-error@+1 {{type of 'result' (tensor<3xi8>) differs from type of 'input' (tensor<2xi8>)}}
  %0 = mesh.broadcast %arg0 on @mesh0 mesh_axes = [0] root = [0] : (tensor<2xi8>) -> tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_root_size(%arg0: tensor<2x2xi8>) -> tensor<2x2xi8> {
  // expected-error@+1 {{result dimension 1 has size 2, expected 8 (2 x group size 4)}}
  %0 = mesh.gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 root = [1] : (tensor<2x2xi8>) -> tensor<2x2xi8>
  return %0 : tensor<2x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @gather_root_range(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  // expected-error@+1 {{root coordinate 4 is out of range for mesh axis 1 of size 4}}
  %0 = mesh.gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 root = [4] : (tensor<2x2xi8>) -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @reduce_root_shape(%arg0: tensor<3x4xf32>) -> tensor<4x3xf32> {
  // expected-error@+1 {{result shape 4x3 differs from input shape 3x4}}
  %0 = mesh.reduce %arg0 on @mesh0 mesh_axes = [1, 0] root = [2, 1] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @reduce_root_negative(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{root coordinate -1 is out of range for mesh axis 0 of size 2}}
  %0 = mesh.reduce %arg0 on @mesh0 mesh_axes = [0] root = [-1] : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x2)
// The example of spec 001 scatters 3 rows over a group of 2: rejected.
func.func @spec_reduce_scatter(%arg0: tensor<3x4xf32>) -> tensor<1x4xf64> {
  // expected-error@+1 {{input dimension 0 of size 3 is not divisible by the group size 2}}
  %0 = mesh.reduce_scatter %arg0 on @mesh0 mesh_axes = [0] reduction = <max> scatter_axis = 0 : tensor<3x4xf32> -> tensor<1x4xf64>
  return %0 : tensor<1x4xf64>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @reduce_scatter_size(%arg0: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{result dimension 0 has size 4, expected 2 (8 / group size 4)}}
  %0 = mesh.reduce_scatter %arg0 on @mesh0 mesh_axes = [1] scatter_axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @scatter_divisible(%arg0: tensor<3x2xi8>) -> tensor<1x2xi8> {
  // expected-error@+1 {{input dimension 0 of size 3 is not divisible by the group size 2}}
  %0 = mesh.scatter %arg0 on @mesh0 mesh_axes = [0] scatter_axis = 0 root = [1] : (tensor<3x2xi8>) -> tensor<1x2xi8>
  return %0 : tensor<1x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @scatter_root(%arg0: tensor<2x2xi8>) -> tensor<1x2xi8> {
  // expected-error@+1 {{root coordinate 3 is out of range for mesh axis 0 of size 2}}
  %0 = mesh.scatter %arg0 on @mesh0 mesh_axes = [0] scatter_axis = 0 root = [3] : (tensor<2x2xi8>) -> tensor<1x2xi8>
  return %0 : tensor<1x2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @send_destination(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{destination has 0 coordinates, expected 1}}
  %0 = mesh.send %arg0 on @mesh0 mesh_axes = [1] destination = [] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @send_type(%arg0: tensor<2xi8>) -> tensor<2xi16> {
  // expected-error@+1 {{type of 'result' (tensor<2xi16>) differs from type of 'input' (tensor<2xi8>)}}
  %0 = mesh.send %arg0 on @mesh0 mesh_axes = [1] destination = [1] : (tensor<2xi8>) -> tensor<2xi16>
  return %0 : tensor<2xi16>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @recv_source(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{source coordinate 9 is out of range for mesh axis 1 of size 4}}
  %0 = mesh.recv %arg0 on @mesh0 mesh_axes = [1] source = [9] : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shift_axis(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{shift_axis 0 is not one of mesh_axes [1]}}
  %0 = mesh.shift %arg0 on @mesh0 mesh_axes = [1] shift_axis = 0 offset = 1 : tensor<2xi8> -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shift_type(%arg0: tensor<2xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{type of 'result' (tensor<4xi8>) differs from type of 'input' (tensor<2xi8>)}}
  %0 = mesh.shift %arg0 on @mesh0 mesh_axes = [1] shift_axis = 1 offset = 1 : tensor<2xi8> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @shift_offset_type(%arg0: tensor<2xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{attribute 'offset' is not a valid i64 attribute}}
  %0 = "mesh.shift"(%arg0) {mesh = @mesh0, mesh_axes = array<i16: 1>, shift_axis = 1 : index, offset = 1 : index} : (tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_update_count(%src: tensor<6x4xf32>, %dst: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{destination_halo_sizes has 4 entries, expected 2 (2 per split tensor dimension)}}
  %0 = mesh.update_halo %src into %dst on @mesh0 split_axes = [[0]] destination_halo_sizes = [1, 1, 1, 1] : tensor<6x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_update_result(%src: tensor<6x4xf32>, %dst: tensor<8x4xf32>) -> tensor<6x4xf32> {
  // expected-error@+1 {{type of 'result' (tensor<6x4xf32>) differs from type of 'destination' (tensor<8x4xf32>)}}
  %0 = "mesh.update_halo"(%src, %dst) {mesh = @mesh0, split_axes = #mesh.axisarray<[array<i16: 0>]>, operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<6x4xf32>, tensor<8x4xf32>) -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

mesh.mesh @mesh0(shape = 2x4)
func.func @halo_update_axes(%src: tensor<6x4xf32>, %dst: tensor<6x4xf32>) -> tensor<6x4xf32> {
  // expected-error@+1 {{mesh axis 1 is used more than once in split_axes}}
  %0 = mesh.update_halo %src into %dst on @mesh0 split_axes = [[1], [1]] : tensor<6x4xf32> -> tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

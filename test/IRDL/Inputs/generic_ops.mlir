"mesh.mesh"() {sym_name = "mesh0", shape = array<i64: 2, 4>} : () -> ()
func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  %0 = "mesh.all_gather"(%arg0) {mesh = @mesh0, mesh_axes = array<i16: 1>, gather_axis = 1 : index} : (tensor<2x2xi8>) -> tensor<2x8xi8>
  %1 = "mesh.sharding"() {mesh = @mesh0, split_axes = #mesh.axisarray<[array<i16: 0>]>, operandSegmentSizes = array<i32: 0, 0>} : () -> !mesh.sharding_type
  return %0 : tensor<2x8xi8>
}

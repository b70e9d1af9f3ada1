mesh.mesh @mesh0(shape = 2x4)
func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

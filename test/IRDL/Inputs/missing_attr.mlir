func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  %0 = "mesh.all_gather"(%arg0) {mesh = @mesh0} : (tensor<2x2xi8>) -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

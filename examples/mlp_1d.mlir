// Spec 000's end-to-end example: the MLP 1D weight-stationary layout of
// arXiv 2211.05102, figure 2(a), on a 1-D mesh of 2 devices.  Only the input,
// the output and the partial result of the second matmul are annotated;
// `mesh-opt examples/mlp_1d.mlir --mesh-sharding-propagation` completes the
// rest (W_in split on its columns, W_out on its rows).
mesh.mesh @mesh0(shape = 2)

func.func @mlp(%x: tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], [0]]>},
               %w_in: tensor<8x32xf32>, %w_out: tensor<32x8xf32>)
    -> (tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], [0]]>}) {
  %h = stablehlo.dot_general %x, %w_in, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x32xf32>) -> tensor<2x4x32xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<2x4x32xf32>
  %r = stablehlo.maximum %h, %zero : tensor<2x4x32xf32>
  %y = stablehlo.dot_general %r, %w_out, contracting_dims = [2] x [0] : (tensor<2x4x32xf32>, tensor<32x8xf32>) -> tensor<2x4x8xf32>
  %s = mesh.sharding @mesh0 split_axes = [[]] partial = sum[0] : !mesh.sharding
  %p = mesh.shard %y to %s : tensor<2x4x8xf32>
  return %p : tensor<2x4x8xf32>
}

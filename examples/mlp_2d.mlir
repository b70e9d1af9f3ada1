// The 2D weight-stationary MLP of arXiv 2211.05102, figure 2(b), on a
// 2x2x2 mesh whose axes are the paper's x, y and z.  The weights stay where
// they are: W_in is E_x F_yz and W_out is F_yz E_x.  The activations move:
//   BLE_xyz --all_gather(yz)--> BLE_x --W_in--> BLF_yz (partial over x)
//   --reduce_scatter(x)--> BLF_yzx --gelu stand-in (relu)--> --all_gather(x)-->
//   BLF_yz --W_out--> BLE_x (partial over yz) --reduce_scatter(yz)--> BLE_xyz
//
//   mesh-opt examples/mlp_2d.mlir --mesh-sharding-propagation \
//     --mesh-spmdization --mesh-fold-collectives
mesh.mesh @mesh(shape = 2x2x2)

func.func @mlp(%x: tensor<2x4x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [], [0, 1, 2]]>},
               %w_in: tensor<16x32xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1, 2]]>},
               %w_out: tensor<32x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1, 2], [0]]>})
    -> (tensor<2x4x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [], [0, 1, 2]]>}) {
  // W_in contracts E, split over x: a partial sum over x, scattered over x
  %h = stablehlo.dot_general %x, %w_in, contracting_dims = [2] x [0] : (tensor<2x4x16xf32>, tensor<16x32xf32>) -> tensor<2x4x32xf32>
  %partial_x = mesh.sharding @mesh split_axes = [[], [], [1, 2]] partial = sum[0] : !mesh.sharding
  %h_p = mesh.shard %h to %partial_x : tensor<2x4x32xf32>
  %f_yzx = mesh.sharding @mesh split_axes = [[], [], [1, 2, 0]] : !mesh.sharding
  %h_s = mesh.shard %h_p to %f_yzx annotate_for_users : tensor<2x4x32xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<2x4x32xf32>
  %r = stablehlo.maximum %h_s, %zero : tensor<2x4x32xf32>
  // W_out contracts F, split over yz: a partial sum over yz, scattered over yz
  %y = stablehlo.dot_general %r, %w_out, contracting_dims = [2] x [0] : (tensor<2x4x32xf32>, tensor<32x16xf32>) -> tensor<2x4x16xf32>
  %partial_yz = mesh.sharding @mesh split_axes = [[], [], [0]] partial = sum[1, 2] : !mesh.sharding
  %y_p = mesh.shard %y to %partial_yz : tensor<2x4x16xf32>
  return %y_p : tensor<2x4x16xf32>
}

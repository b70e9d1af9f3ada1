// A training step with data parallelism and fully sharded weights (FSDP /
// ZeRO-3) on a 2x2 mesh: the batch is split over both mesh axes (four
// data-parallel devices), the weight's rows over mesh axis 1 only, so each
// pair of devices along axis 1 holds one whole copy of W between them.
// One step of a linear layer under a squared loss:
//   y = x W;  dy = 2 (y - t);  dW = x^T dy;  W' = W - lr dW
// The collectives: the weight is gathered over axis 1 for the forward
// matmul; the gradient, a partial sum over all four devices, is
// reduce-scattered over both axes (each device sums a quarter of dW); the
// update runs on that quarter, and one all_gather over axis 0 rebuilds W's
// sharding.  mesh-fold-collectives moves that gather below the update
// (ZeRO's sharded optimizer step).
//
//   mesh-opt examples/dp_fsdp.mlir --mesh-sharding-propagation \
//     --mesh-spmdization --mesh-fold-collectives
mesh.mesh @mesh(shape = 2x2)

func.func @train_step(
    %x: tensor<8x4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0, 1]]>},
    %t: tensor<8x6xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0, 1]]>},
    %w: tensor<4x6xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>})
    -> (tensor<4x6xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) {
  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %diff = stablehlo.subtract %y, %t : tensor<8x6xf32>
  %two = stablehlo.constant dense<2.000000e+00> : tensor<8x6xf32>
  %dy = stablehlo.multiply %diff, %two : tensor<8x6xf32>
  // the batch is contracted: a partial sum over both axes, resolved into W's sharding
  %dw = stablehlo.dot_general %x, %dy, contracting_dims = [0] x [0] : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %partial = mesh.sharding @mesh split_axes = [[]] partial = sum[0, 1] : !mesh.sharding
  %dw_p = mesh.shard %dw to %partial : tensor<4x6xf32>
  %w_sharding = mesh.sharding @mesh split_axes = [[1]] : !mesh.sharding
  %dw_s = mesh.shard %dw_p to %w_sharding annotate_for_users : tensor<4x6xf32>
  %lr = stablehlo.constant dense<1.000000e-01> : tensor<4x6xf32>
  %step = stablehlo.multiply %dw_s, %lr : tensor<4x6xf32>
  %w_new = stablehlo.subtract %w, %step : tensor<4x6xf32>
  return %w_new : tensor<4x6xf32>
}

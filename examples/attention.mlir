// A Megatron-style self-attention block on a 2x2 mesh: the batch is split
// over mesh axis 0 (data parallel), the heads over mesh axis 1 (tensor
// parallel).  Q, K, V, the scores and the softmax stay local to a device's
// heads; the output projection contracts the heads, so its result is a
// partial sum over axis 1, and the one collective of the block is the
// all_reduce over axis 1 that Megatron calls "g".
//
//   mesh-opt examples/attention.mlir --mesh-sharding-propagation \
//     --mesh-spmdization --mesh-fold-collectives
mesh.mesh @mesh(shape = 2x2)

func.func @attention(
    %x: tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>},
    %wq: tensor<8x4x2xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>},
    %wk: tensor<8x4x2xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>},
    %wv: tensor<8x4x2xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>},
    %wo: tensor<4x2x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>})
    -> (tensor<2x4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}) {
  // projections: [batch, seq, head, head_dim]
  %q = stablehlo.dot_general %x, %wq, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x4x2xf32>) -> tensor<2x4x4x2xf32>
  %k = stablehlo.dot_general %x, %wk, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x4x2xf32>) -> tensor<2x4x4x2xf32>
  %v = stablehlo.dot_general %x, %wv, contracting_dims = [2] x [0] : (tensor<2x4x8xf32>, tensor<8x4x2xf32>) -> tensor<2x4x4x2xf32>
  // scores: [batch, head, query, key]
  %s = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x4x4x2xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x4x4xf32>
  // softmax over the keys
  %e = stablehlo.exponential %s : tensor<2x4x4x4xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3] : (tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : (tensor<2x4x4xf32>) -> tensor<2x4x4x4xf32>
  %p = stablehlo.divide %e, %b : tensor<2x4x4x4xf32>
  // weighted values: [batch, head, query, head_dim]
  %a = stablehlo.dot_general %p, %v, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<2x4x4x4xf32>, tensor<2x4x4x2xf32>) -> tensor<2x4x4x2xf32>
  // output projection: contracts heads and head_dim
  %o = stablehlo.dot_general %a, %wo, contracting_dims = [1, 3] x [0, 1] : (tensor<2x4x4x2xf32>, tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

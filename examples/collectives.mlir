// The examples of spec 001 in one module: a mesh, a sharding annotation and
// every collective.  Try:
//   mesh-opt examples/collectives.mlir
//   mesh-opt examples/collectives.mlir --canonicalize   (unused pure collectives go)
//   mesh-opt examples/collectives.mlir --mlir-print-op-generic
mesh.mesh @mesh0(shape = 2x2)
mesh.mesh @mesh3(shape = 3)
mesh.mesh @mesh2x4(shape = 2x4)

func.func @annotate(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %sharding = mesh.sharding @mesh0 split_axes = [[0]] partial = sum[1] : !mesh.sharding
  %0 = mesh.shard %arg0 to %sharding : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

func.func @collectives(%x: tensor<2x2xi8>, %y: tensor<3x2xi8>, %z: tensor<2xi8>, %w: tensor<4x4xf32>)
    -> (tensor<2x4xi8>, tensor<3x2xi8>, tensor<2xi8>, tensor<2x4xf64>) {
  %gathered = mesh.all_gather %x on @mesh0 mesh_axes = [1] gather_axis = 1
    : tensor<2x2xi8> -> tensor<2x4xi8>
  %sliced = mesh.all_slice %gathered on @mesh0 mesh_axes = [1] slice_axis = 1
    : tensor<2x4xi8> -> tensor<2x2xi8>
  %exchanged = mesh.all_to_all %y on @mesh3 mesh_axes = [0]
    split_axis = 0 concat_axis = 0
    : tensor<3x2xi8> -> tensor<3x2xi8>
  %broadcast = mesh.broadcast %z on @mesh0 mesh_axes = [0] root = [0]
    : (tensor<2xi8>) -> tensor<2xi8>
  %reduced = mesh.reduce_scatter %w on @mesh0 mesh_axes = [1]
    reduction = <max> scatter_axis = 0
    : tensor<4x4xf32> -> tensor<2x4xf64>
  %rotated = mesh.shift %z on @mesh2x4 mesh_axes = [1] shift_axis = 1 offset = 2 rotate
    : tensor<2xi8> -> tensor<2xi8>
  return %gathered, %exchanged, %rotated, %reduced : tensor<2x4xi8>, tensor<3x2xi8>, tensor<2xi8>, tensor<2x4xf64>
}

// mesh-spmdization of each op family, on hand-annotated IR (input and output
// shardings only, no propagation): every op runs on its local block and only
// the collectives its rule asks for are inserted.
// RUN: mesh-opt %s --mesh-spmdization | FileCheck %s
// RUN: mesh-opt %s --mesh-spmdization --canonicalize | FileCheck --check-prefix=CANON %s

mesh.mesh @mesh(shape = 2x4)

// Elementwise ops of every dialect keep the split: no collective at all; a
// splat constant is made at the local size.
// CHECK-LABEL: func.func @elementwise(%arg0: tensor<4x4xf32>
// CHECK-NOT: = mesh.
// CHECK: %[[A:.*]] = arith.addf %arg0, %arg1 : tensor<4x4xf32>
// CHECK: %[[E:.*]] = math.exp %[[A]] : tensor<4x4xf32>
// CHECK: %[[M:.*]] = tosa.maximum %[[E]], %arg0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<4x4xf32>
// CHECK: stablehlo.multiply %[[M]], %[[C]] : tensor<4x4xf32>
// CHECK-NOT: = mesh.
// CHECK: return
func.func @elementwise(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>},
                       %b: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>})
    -> (tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) {
  %0 = arith.addf %a, %b : tensor<8x16xf32>
  %1 = math.exp %0 : tensor<8x16xf32>
  %2 = tosa.maximum %1, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = arith.constant dense<2.0> : tensor<8x16xf32>
  %3 = stablehlo.multiply %2, %c : tensor<8x16xf32>
  return %3 : tensor<8x16xf32>
}

// A split contraction loop: the matmul leaves a partial sum over mesh axis 1,
// the init is kept by one device of each group, and an all_reduce resolves it.
// CHECK-LABEL: func.func @contraction(%arg0: tensor<4x4xf32>
// CHECK-SAME: %arg1: tensor<4x4xf32>
// CHECK: %[[I:.*]]:2 = mesh.process_multi_index on @mesh : index, index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I]]#1, %c0
// CHECK: %[[INIT:.*]] = arith.select %[[FIRST]]
// CHECK: %[[LOCAL_INIT:.*]] = mesh.all_slice %[[INIT]] on @mesh mesh_axes = [0] slice_axis = 0 : tensor<8x4xf32> -> tensor<4x4xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%arg0, %arg1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[LOCAL_INIT]] : tensor<4x4xf32>)
// CHECK: %[[SUM:.*]] = mesh.all_reduce %[[MM]] on @mesh mesh_axes = [1] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK: return %[[SUM]]
func.func @contraction(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>},
                       %b: tensor<16x4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>})
    -> (tensor<8x4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}) {
  %e = tensor.empty() : tensor<8x4xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%f : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %m : tensor<8x4xf32>
}

// A split max-reduction: the partial maxima go straight to the split output
// with one reduce_scatter of kind max.
// CHECK-LABEL: func.func @reduction(%arg0: tensor<4x4xf32>
// CHECK-SAME: -> (tensor<1xf32>
// CHECK: %[[R:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.maximum across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: mesh.reduce_scatter %[[R]] on @mesh mesh_axes = [1] reduction = <max> scatter_axis = 0 : tensor<4xf32> -> tensor<1xf32>
func.func @reduction(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>})
    -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0, 1]]>}) {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = stablehlo.reduce(%a init: %init) applies stablehlo.maximum across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// Transpose and broadcast follow their indexing maps: [[0], [1]] in is
// [[1], [0]] out, with no communication.
// CHECK-LABEL: func.func @transpose_broadcast
// CHECK-NOT: = mesh.
// CHECK: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 1] : (tensor<4x4xf32>) -> tensor<4x4x4xf32>
// CHECK-NOT: = mesh.
// CHECK: return
func.func @transpose_broadcast(%a: tensor<8x16xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>})
    -> (tensor<16x8x4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1], [0]]>}) {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %b = stablehlo.broadcast_in_dim %t, dims = [0, 1] : (tensor<16x8xf32>) -> tensor<16x8x4xf32>
  return %b : tensor<16x8x4xf32>
}

// A splat constant is made at the local size; a dense one is made whole and
// each device takes its columns.
// CHECK-LABEL: func.func @constants(%arg0: tensor<4x2xf32>
// CHECK: %[[DENSE:.*]] = arith.constant dense<{{.*}}> : tensor<4x8xf32>
// CHECK: %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<4x2xf32>
// CHECK: %[[X:.*]] = stablehlo.add %arg0, %[[ONE]] : tensor<4x2xf32>
// CHECK: %[[COLS:.*]] = mesh.all_slice %[[DENSE]] on @mesh mesh_axes = [1] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x2xf32>
// CHECK: stablehlo.add %[[X]], %[[COLS]] : tensor<4x2xf32>
func.func @constants(%a: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>})
    -> (tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[], [1]]>}) {
  %splat = stablehlo.constant dense<1.0> : tensor<4x8xf32>
  %dense = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<4x8xf32>
  %0 = stablehlo.add %a, %splat : tensor<4x8xf32>
  %1 = stablehlo.add %0, %dense : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// An op without a sharding rule (stablehlo.reshape) runs on the whole tensor.
// CHECK-LABEL: func.func @no_rule(%arg0: tensor<2x2xf32>
// CHECK: %[[G:.*]] = mesh.all_gather %arg0 on @mesh mesh_axes = [0] gather_axis = 0 : tensor<2x2xf32> -> tensor<4x2xf32>
// CHECK: %[[W:.*]] = mesh.all_gather %[[G]] on @mesh mesh_axes = [1] gather_axis = 1 : tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK: stablehlo.reshape %[[W]] : (tensor<4x8xf32>) -> tensor<32xf32>

// Canonicalization folds the process index comparison chains but keeps the collectives.
// CANON-LABEL: func.func @contraction
// CANON: linalg.matmul
// CANON: mesh.all_reduce
func.func @no_rule(%a: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [1]]>}) -> tensor<32xf32> {
  %r = stablehlo.reshape %a : (tensor<4x8xf32>) -> tensor<32xf32>
  return %r : tensor<32xf32>
}

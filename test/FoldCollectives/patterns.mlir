// RUN: mesh-opt %s --mesh-fold-collectives --split-input-file | FileCheck %s
// One function per pattern; test/python/test_fold_collectives.py runs the
// same functions in the simulator before and after the pass.

mesh.mesh @mesh0(shape = 2x2)

// CHECK-LABEL: func.func @all_reduce_folder
// CHECK-NEXT: %[[R:.*]] = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0, 1] reduction = <max> :
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_folder(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [0] reduction = max : tensor<4xf32> -> tensor<4xf32>
  %1 = mesh.all_reduce %0 on @mesh0 mesh_axes = [1] reduction = max : tensor<4xf32> -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Different kinds, or an axis reduced twice: not folded.
// CHECK-LABEL: func.func @all_reduce_folder_no
// CHECK-NEXT: mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] reduction = <max>
// CHECK-NEXT: mesh.all_reduce %{{.*}} mesh_axes = [1] :
// CHECK-NEXT: mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] :
// CHECK-NEXT: mesh.all_reduce %{{.*}} mesh_axes = [0] :
func.func @all_reduce_folder_no(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [0] reduction = max : tensor<4xf32> -> tensor<4xf32>
  %1 = mesh.all_reduce %0 on @mesh0 mesh_axes = [1] : tensor<4xf32> -> tensor<4xf32>
  %2 = mesh.all_reduce %x on @mesh0 mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %3 = mesh.all_reduce %2 on @mesh0 mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @all_reduce_reassociate
// CHECK-NEXT: %[[A:.*]] = arith.subf %arg0, %arg1 : tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = mesh.all_reduce %[[A]] on @mesh0 mesh_axes = [1, 0] :
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_reassociate(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [1, 0] : tensor<4xf32> -> tensor<4xf32>
  %1 = mesh.all_reduce %y on @mesh0 mesh_axes = [1, 0] : tensor<4xf32> -> tensor<4xf32>
  %2 = arith.subf %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @all_reduce_reassociate_max_linalg
// CHECK: %[[M:.*]] = linalg.max ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: %[[R:.*]] = mesh.all_reduce %[[M]] on @mesh0 mesh_axes = [0] reduction = <max> :
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_reassociate_max_linalg(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [0] reduction = max : tensor<4xf32> -> tensor<4xf32>
  %1 = mesh.all_reduce %y on @mesh0 mesh_axes = [0] reduction = max : tensor<4xf32> -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %2 = linalg.max ins(%0, %1 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// A sum does not commute with max: not reassociated.
// CHECK-LABEL: func.func @all_reduce_reassociate_no
// CHECK-NEXT: mesh.all_reduce
// CHECK-NEXT: mesh.all_reduce
// CHECK-NEXT: arith.maximumf
func.func @all_reduce_reassociate_no(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %1 = mesh.all_reduce %y on @mesh0 mesh_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %2 = arith.maximumf %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @reduce_scatter_reassociate
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %arg0, %arg1 : tensor<4x6xf32>
// CHECK-NEXT: %[[R:.*]] = mesh.reduce_scatter %[[A]] on @mesh0 mesh_axes = [1] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_scatter_reassociate(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<2x6xf32> {
  %0 = mesh.reduce_scatter %x on @mesh0 mesh_axes = [1] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
  %1 = mesh.reduce_scatter %y on @mesh0 mesh_axes = [1] scatter_axis = 0 : tensor<4x6xf32> -> tensor<2x6xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x6xf32>
  return %2 : tensor<2x6xf32>
}

// CHECK-LABEL: func.func @reduce_scatter_reassociate_linalg
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK-NEXT: %[[A:.*]] = linalg.add ins(%arg0, %arg1 : tensor<4x6xf32>, tensor<4x6xf32>) outs(%[[E]] : tensor<4x6xf32>)
// CHECK-NEXT: %[[R:.*]] = mesh.reduce_scatter %[[A]] on @mesh0 mesh_axes = [0] scatter_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_scatter_reassociate_linalg(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x3xf32> {
  %0 = mesh.reduce_scatter %x on @mesh0 mesh_axes = [0] scatter_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
  %1 = mesh.reduce_scatter %y on @mesh0 mesh_axes = [0] scatter_axis = 1 : tensor<4x6xf32> -> tensor<4x3xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %2 = linalg.add ins(%0, %1 : tensor<4x3xf32>, tensor<4x3xf32>) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %2 : tensor<4x3xf32>
}

// The gather moves below the exp and the add: the add's other operand, the
// same on every device, is sliced (no data moves), the splat is made at the
// local size.
// CHECK-LABEL: func.func @all_gather_move_down
// CHECK-DAG: %[[C:.*]] = arith.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK-DAG: %[[S:.*]] = mesh.all_slice %arg1 on @mesh0 mesh_axes = [0] slice_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-DAG: %[[E:.*]] = math.exp %arg0 : tensor<2x3xf32>
// CHECK: %[[A:.*]] = arith.addf %[[E]], %[[S]] : tensor<2x3xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[C]] : tensor<2x3xf32>
// CHECK-NEXT: %[[G:.*]] = mesh.all_gather %[[M]] on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.collapse_shape %[[G]]
func.func @all_gather_move_down(%x: tensor<2x3xf32>, %w: tensor<4x3xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[]]>})
    -> tensor<12xf32> {
  %g = mesh.all_gather %x on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  %e = math.exp %g : tensor<4x3xf32>
  %a = arith.addf %e, %w : tensor<4x3xf32>
  %c = arith.constant dense<2.0> : tensor<4x3xf32>
  %m = arith.mulf %a, %c : tensor<4x3xf32>
  %r = tensor.collapse_shape %m [[0, 1]] : tensor<4x3xf32> into tensor<12xf32>
  return %r : tensor<12xf32>
}

// Two gathers of the same group meet: one gather after the op.
// CHECK-LABEL: func.func @all_gather_move_down_two
// CHECK-NEXT: %[[A:.*]] = stablehlo.multiply %arg0, %arg1 : tensor<3x2xf32>
// CHECK-NEXT: %[[G:.*]] = mesh.all_gather %[[A]] on @mesh0 mesh_axes = [1, 0] gather_axis = 1 : tensor<3x2xf32> -> tensor<3x8xf32>
// CHECK-NEXT: return %[[G]]
func.func @all_gather_move_down_two(%x: tensor<3x2xf32>, %y: tensor<3x2xf32>) -> tensor<3x8xf32> {
  %0 = mesh.all_gather %x on @mesh0 mesh_axes = [1, 0] gather_axis = 1 : tensor<3x2xf32> -> tensor<3x8xf32>
  %1 = mesh.all_gather %y on @mesh0 mesh_axes = [1, 0] gather_axis = 1 : tensor<3x2xf32> -> tensor<3x8xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<3x8xf32>
  return %2 : tensor<3x8xf32>
}

// A gather used twice stays where it is; so does one whose user has an
// operand that may differ between devices.
// CHECK-LABEL: func.func @all_gather_move_down_no
// CHECK-NEXT: mesh.all_gather
// CHECK-NEXT: math.exp
// CHECK-NEXT: mesh.all_gather
// CHECK-NEXT: arith.addf
func.func @all_gather_move_down_no(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>)
    -> (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %g = mesh.all_gather %x on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  %e = math.exp %g : tensor<4x3xf32>
  %h = mesh.all_gather %x on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  %a = arith.addf %h, %y : tensor<4x3xf32>
  return %e, %g, %a : tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// CHECK-LABEL: func.func @all_reduce_then_all_slice
// CHECK-NEXT: %[[R:.*]] = mesh.reduce_scatter %arg0 on @mesh0 mesh_axes = [0, 1] reduction = <min> scatter_axis = 1 : tensor<2x8xf32> -> tensor<2x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @all_reduce_then_all_slice(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [1, 0] reduction = min : tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = mesh.all_slice %0 on @mesh0 mesh_axes = [0, 1] slice_axis = 1 : tensor<2x8xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// Sliced over part of the reduced axes: the rest stays an all_reduce.
// CHECK-LABEL: func.func @all_reduce_then_all_slice_part
// CHECK-NEXT: %[[R:.*]] = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0] : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT: %[[S:.*]] = mesh.reduce_scatter %[[R]] on @mesh0 mesh_axes = [1] scatter_axis = 0 : tensor<2x8xf32> -> tensor<1x8xf32>
// CHECK-NEXT: return %[[S]]
func.func @all_reduce_then_all_slice_part(%x: tensor<2x8xf32>) -> tensor<1x8xf32> {
  %0 = mesh.all_reduce %x on @mesh0 mesh_axes = [0, 1] : tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = mesh.all_slice %0 on @mesh0 mesh_axes = [1] slice_axis = 0 : tensor<2x8xf32> -> tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @slice_of_gather
// CHECK-NEXT: return %arg0
func.func @slice_of_gather(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mesh.all_gather %x on @mesh0 mesh_axes = [1, 0] gather_axis = 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  %1 = mesh.all_slice %0 on @mesh0 mesh_axes = [1, 0] slice_axis = 0 : tensor<8x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Another axis order picks another block: not cancelled.
// CHECK-LABEL: func.func @slice_of_gather_no
// CHECK-NEXT: mesh.all_gather
// CHECK-NEXT: mesh.all_slice
func.func @slice_of_gather_no(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mesh.all_gather %x on @mesh0 mesh_axes = [1, 0] gather_axis = 0 : tensor<2x3xf32> -> tensor<8x3xf32>
  %1 = mesh.all_slice %0 on @mesh0 mesh_axes = [0, 1] slice_axis = 0 : tensor<8x3xf32> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// The gather of a slice of a value replicated over the group is the value.
// CHECK-LABEL: func.func @gather_of_slice
// CHECK-NEXT: %[[R:.*]] = mesh.all_reduce %arg0
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[R]]
// CHECK-NEXT: return %[[N]], %arg1
func.func @gather_of_slice(%x: tensor<4x3xf32>, %w: tensor<4x3xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [], []]>})
    -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r = mesh.all_reduce %x on @mesh0 mesh_axes = [0, 1] : tensor<4x3xf32> -> tensor<4x3xf32>
  %n = arith.negf %r : tensor<4x3xf32>
  %0 = mesh.all_slice %n on @mesh0 mesh_axes = [1] slice_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
  %1 = mesh.all_gather %0 on @mesh0 mesh_axes = [1] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  %2 = mesh.all_slice %w on @mesh0 mesh_axes = [0] slice_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
  %3 = mesh.all_gather %2 on @mesh0 mesh_axes = [0] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  return %1, %3 : tensor<4x3xf32>, tensor<4x3xf32>
}

// %x may differ between devices: the gather is kept.
// CHECK-LABEL: func.func @gather_of_slice_no
// CHECK-NEXT: mesh.all_slice
// CHECK-NEXT: mesh.all_gather
func.func @gather_of_slice_no(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %0 = mesh.all_slice %x on @mesh0 mesh_axes = [1] slice_axis = 0 : tensor<4x3xf32> -> tensor<2x3xf32>
  %1 = mesh.all_gather %0 on @mesh0 mesh_axes = [1] gather_axis = 0 : tensor<2x3xf32> -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

mesh.mesh @mesh1(shape = 1x3x1)

// CHECK-LABEL: func.func @trivial_axes
// CHECK-NEXT: %[[G:.*]] = mesh.all_gather %arg0 on @mesh1 mesh_axes = [1] gather_axis = 0 : tensor<2xf32> -> tensor<6xf32>
// CHECK-NEXT: return %[[G]], %arg0
func.func @trivial_axes(%x: tensor<2xf32>) -> (tensor<6xf32>, tensor<2xf32>) {
  %0 = mesh.all_gather %x on @mesh1 mesh_axes = [2, 1, 0] gather_axis = 0 : tensor<2xf32> -> tensor<6xf32>
  %1 = mesh.all_reduce %x on @mesh1 mesh_axes = [0, 2] : tensor<2xf32> -> tensor<2xf32>
  %2 = mesh.all_slice %1 on @mesh1 mesh_axes = [] slice_axis = 0 : tensor<2xf32> -> tensor<2xf32>
  return %0, %2 : tensor<6xf32>, tensor<2xf32>
}

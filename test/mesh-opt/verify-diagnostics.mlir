// --verify-diagnostics reports diagnostics that were not expected and
// expectations that were not met, and then fails.
// RUN: not mesh-opt %s --split-input-file --verify-diagnostics 2>&1 | FileCheck %s

mesh.mesh @mesh0(shape = 2x4)
func.func @wrong_message(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{this is not the message}}
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [3] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-DAG: verify-diagnostics.mlir:8:8: error: unexpected error: 'mesh.all_reduce' op mesh_axes contains axis 3
// CHECK-DAG: verify-diagnostics.mlir:7: error: expected error "this is not the message" was not produced

// -----

mesh.mesh @mesh0(shape = 2x4)
// expected-error@below {{never happens}}
mesh.mesh @mesh1(shape = 2)
// CHECK-DAG: verify-diagnostics.mlir:17: error: expected error "never happens" was not produced

// -----

// Designators @above and @-N work too.
mesh.mesh @mesh0(shape = 2x4)
func.func @designators(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [7] : tensor<4xf32> -> tensor<4xf32>
  // expected-error@above {{mesh_axes contains axis 7}}
  %1 = mesh.all_reduce %arg0 on @mesh0 mesh_axes = [0, 0] : tensor<4xf32> -> tensor<4xf32>

  // expected-error@-2 {{contains axis 0 more than once}}
  return %0 : tensor<4xf32>
}
// CHECK-NOT: designators

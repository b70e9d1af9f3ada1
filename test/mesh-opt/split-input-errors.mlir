// An error in one chunk does not stop the others, and its line is the file's.
// RUN: not mesh-opt %s --split-input-file 2>%t.err | FileCheck %s
// RUN: FileCheck --check-prefix=ERR %s < %t.err

// CHECK: mesh.mesh @ok(shape = 2)
mesh.mesh @ok(shape = 2)

// -----

mesh.mesh @bad(shape = 2)
func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // ERR: split-input-errors.mlir:[[# @LINE + 1]]:8: error: 'mesh.all_reduce' op mesh_axes contains axis 3
  %0 = mesh.all_reduce %arg0 on @bad mesh_axes = [3] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK: mesh.mesh @also_ok(shape = 3)
mesh.mesh @also_ok(shape = 3)

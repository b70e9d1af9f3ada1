// MLIR's own parse errors inside a mesh op point at the right column of the source.
// RUN: not mesh-opt %s 2>&1 | FileCheck %s

mesh.mesh @mesh0(shape = 2x4)
func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x8xi8> {
  // CHECK: mlir-error-location.mlir:[[# @LINE + 1]]:24: error: use of undeclared SSA value name
  %0 = mesh.all_gather %undefined on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>
  return %0 : tensor<2x8xi8>
}

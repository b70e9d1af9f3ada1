// A verifier error points at the op in the user's file (custom syntax spanning lines).
// RUN: not mesh-opt %s 2>&1 | FileCheck %s

mesh.mesh @mesh0(shape = 2x4)
func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x4xi8> {
  // CHECK: verifier-error.mlir:[[# @LINE + 1]]:8: error: 'mesh.all_gather' op result dimension 1 has size 4, expected 8 (2 x group size 4)
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1]
         gather_axis = 1 : tensor<2x2xi8> -> tensor<2x4xi8>
  // An error of MLIR's own parser after a rewritten op is located too.
  return %0 : tensor<2x4xi8>
}
// CHECK-NOT: Traceback

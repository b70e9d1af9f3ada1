// Upstream passes run by flag or in --pass-pipeline; unknown passes are errors.
// RUN: mesh-opt %s --canonicalize | FileCheck %s
// RUN: mesh-opt %s --pass-pipeline="builtin.module(canonicalize, cse)" | FileCheck %s
// RUN: mesh-opt %s --pass-pipeline="builtin.module(func.func(canonicalize))" | FileCheck %s
// RUN: not mesh-opt %s --pass-pipeline="builtin.module(no-such-pass)" 2>&1 | FileCheck --check-prefix=UNKNOWN %s
// RUN: not mesh-opt %s --no-such-flag 2>&1 | FileCheck --check-prefix=FLAG %s
// RUN: not mesh-opt %s -z 2>&1 | FileCheck --check-prefix=SHORT %s

// UNKNOWN: mesh-opt: error: 'no-such-pass': 'no-such-pass' does not refer to a registered pass or pass pipeline
// FLAG: mesh-opt: error: 'no-such-flag': 'no-such-flag' does not refer to a registered pass or pass pipeline
// SHORT: mesh-opt: error: unknown command line argument '-z'

mesh.mesh @mesh0(shape = 2x4)
// Collectives are pure: an unused one is removed; send is not pure and stays.
// CHECK-LABEL: func.func @f
func.func @f(%arg0: tensor<2x2xi8>) -> tensor<2x2xi8> {
  // CHECK-NOT: mesh.all_gather
  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>
  // CHECK: mesh.send %arg0 on @mesh0 mesh_axes = [1] destination = [1]
  %1 = mesh.send %arg0 on @mesh0 mesh_axes = [1] destination = [1] : (tensor<2x2xi8>) -> tensor<2x2xi8>
  // CHECK-NEXT: return %arg0
  return %arg0 : tensor<2x2xi8>
}

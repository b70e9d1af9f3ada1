// Input from stdin, with and without '-'.
// RUN: mesh-opt < %S/Inputs/good.mlir | FileCheck %s
// RUN: mesh-opt - < %S/Inputs/good.mlir | FileCheck %s
// CHECK: mesh.mesh @mesh0(shape = 2x4)
// CHECK: mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1 : tensor<2x2xi8> -> tensor<2x8xi8>

// RUN: mesh-opt %s --mesh-comm-report | FileCheck %s
// RUN: mesh-opt %s --mesh-comm-report=json | FileCheck %s --check-prefix=JSON
// Ring model, per device; a group of n devices, a local operand of S bytes.

mesh.mesh @mesh0(shape = 2x4)

func.func @f(%x: tensor<4x8xf32>, %i: tensor<16xi8>) -> tensor<4x8xf32> {
  // S = 128, n = 4: (n-1) S = 384 each way
  %g = mesh.all_gather %x on @mesh0 mesh_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  // S = 512, n = 8: 2 (n-1)/n S = 896
  %r = mesh.all_reduce %g on @mesh0 mesh_axes = [0, 1] : tensor<16x8xf32> -> tensor<16x8xf32>
  // S = 512, n = 2: (n-1)/n S = 256
  %s = mesh.reduce_scatter %r on @mesh0 mesh_axes = [0] scatter_axis = 0 : tensor<16x8xf32> -> tensor<8x8xf32>
  // moves nothing
  %l = mesh.all_slice %s on @mesh0 mesh_axes = [1] slice_axis = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
  // S = 16 (i8), n = 4: (n-1)/n S = 12
  %a = mesh.all_to_all %i on @mesh0 mesh_axes = [1] split_axis = 0 concat_axis = 0 : tensor<16xi8> -> tensor<16xi8>
  // a group of one device moves nothing
  %e = mesh.all_reduce %x on @mesh0 : tensor<4x8xf32> -> tensor<4x8xf32>
  // the root receives every other block: S = 128, n = 2
  %b = mesh.gather %x on @mesh0 mesh_axes = [0] gather_axis = 0 root = [0] : (tensor<4x8xf32>) -> tensor<8x8xf32>
  return %e : tensor<4x8xf32>
}

// CHECK:  function location op mesh axes group sent B received B
// CHECK-NEXT: --------
// CHECK-NEXT: @f {{.*}}comm-report.mlir:9:8 all_gather @mesh0 [1] 4 384 384
// CHECK-NEXT: @f {{.*}}comm-report.mlir:11:8 all_reduce @mesh0 [0, 1] 8 896 896
// CHECK-NEXT: @f {{.*}}comm-report.mlir:13:8 reduce_scatter @mesh0 [0] 2 256 256
// CHECK-NEXT: @f {{.*}}comm-report.mlir:15:8 all_slice @mesh0 [1] 4 0 0
// CHECK-NEXT: @f {{.*}}comm-report.mlir:17:8 all_to_all @mesh0 [1] 4 12 12
// CHECK-NEXT: @f {{.*}}comm-report.mlir:19:8 all_reduce @mesh0 [] 1 0 0
// CHECK-NEXT: @f {{.*}}comm-report.mlir:21:8 gather @mesh0 [0] 2 128 128
// CHECK-NEXT: --------
// CHECK-NEXT: total 7 ops 1676 1676

// JSON:      "collectives": [
// JSON:        "op": "all_gather",
// JSON:        "group_size": 4,
// JSON-NEXT:   "sent": 384.0,
// JSON-NEXT:   "received": 384.0
// JSON:      "total": {
// JSON-NEXT:   "sent": 1676.0,
// JSON-NEXT:   "received": 1676.0,
// JSON-NEXT:   "count": 7

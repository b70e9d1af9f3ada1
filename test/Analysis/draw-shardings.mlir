// RUN: mesh-opt %s --mesh-draw-shardings | FileCheck %s
// RUN: rm -rf %t && mesh-opt %s --mesh-draw-png=%t | FileCheck %s --check-prefix=PNG
// RUN: ls %t | FileCheck %s --check-prefix=FILES

mesh.mesh @mesh0(shape = 2x3)

func.func @f(%x: tensor<2x6xf32> {mesh.sharding = #mesh.sharding<@mesh0, [[], [0, 1]]>}) -> tensor<2x6xf32> {
  %s = mesh.sharding @mesh0 split_axes = [[0]] partial = sum[1] : !mesh.sharding
  %y = mesh.shard %x to %s : tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// CHECK:      // @f argument #0
// CHECK-NEXT: tensor<2x6> sharded #mesh.sharding<@mesh0, {{\[\[\], \[0, 1\]\]}}> on @mesh0 (2x3)
// CHECK:      +----+----+----+ mesh axis 0 |
// CHECK-NEXT: | 11 | 12 | 13 | |
// CHECK-NEXT: | 21 | 22 | 23 | |
// CHECK-NEXT: +----+----+----+ |
// CHECK-NEXT: | 14 | 15 | 16 | |
// CHECK-NEXT: | 24 | 25 | 26 | |
// CHECK-NEXT: +----+----+----+ ↓
// CHECK:      // @f mesh.shard at {{.*}}draw-shardings.mlir:9:8
// CHECK:      | 11 12 13 14 15 16 | 11 12 13 14 15 16 | 11 12 13 14 15 16 | |
// CHECK-NEXT: | partial sum       | partial sum       | partial sum       | |
// CHECK:      | 21 22 23 24 25 26 | 21 22 23 24 25 26 | 21 22 23 24 25 26 | |

// PNG: (PNG: {{.*}}sharding-0.png)
// PNG: (PNG: {{.*}}sharding-1.png)
// FILES: sharding-0.png
// FILES-NEXT: sharding-1.png

// A syntax error in a mesh op: located diagnostic with the source line, exit 1, no traceback.
// RUN: not mesh-opt %S/Inputs/bad_syntax.mlir 2>&1 | FileCheck %s

// CHECK: bad_syntax.mlir:3:56: error: expected 'gather_axis', found 'gather_axes'
// CHECK-NEXT: {{^}}  %0 = mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axes = 1
// CHECK-NEXT: {{^}}                                                       ^
// CHECK-NOT: Traceback

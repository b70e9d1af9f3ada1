// -o is written on success and left untouched on failure.
// RUN: echo "previous contents" > %t.out
// RUN: not mesh-opt %S/Inputs/bad_syntax.mlir -o %t.out
// RUN: FileCheck --check-prefix=KEEP %s < %t.out
// KEEP: previous contents

// RUN: rm -f %t.new
// RUN: not mesh-opt %S/Inputs/bad_syntax.mlir -o %t.new
// RUN: not test -e %t.new

// RUN: mesh-opt %S/Inputs/good.mlir -o %t.out
// RUN: FileCheck --check-prefix=NEW %s < %t.out
// NEW: mesh.all_gather %arg0 on @mesh0 mesh_axes = [1] gather_axis = 1
// NEW-NOT: previous contents

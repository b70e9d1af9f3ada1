// Each chunk is processed on its own; outputs are joined by the marker and
// diagnostics keep the line numbers of the whole file.
// RUN: mesh-opt %s --split-input-file | FileCheck %s
// A bare flag never takes the next argument as its value, like mlir-opt:
// RUN: mesh-opt --split-input-file %s | FileCheck %s
// RUN: mesh-opt --mesh-sharding-propagation --split-input-file %s | FileCheck %s
// RUN: mesh-opt %s --split-input-file --pass-pipeline="builtin.module(canonicalize)" -o /dev/null 2>&1 | FileCheck --check-prefix=NONE --allow-empty %s
// NONE-NOT: error

// CHECK: mesh.mesh @first(shape = 2)
// CHECK: // -----
// CHECK: mesh.mesh @second(shape = 4)
mesh.mesh @first(shape = 2)

// -----

mesh.mesh @second(shape = 4)

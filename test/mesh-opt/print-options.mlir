// Printing options, listings and version.
// RUN: mesh-opt %S/Inputs/good.mlir --mlir-print-op-generic | FileCheck --check-prefix=GENERIC %s
// GENERIC: "mesh.mesh"() {shape = array<i64: 2, 4>, sym_name = "mesh0"} : () -> ()
// GENERIC: "mesh.all_gather"(%arg0) {gather_axis = 1 : index, mesh = @mesh0, mesh_axes = array<i16: 1>} : (tensor<2x2xi8>) -> tensor<2x8xi8>

// RUN: mesh-opt %S/Inputs/good.mlir --mlir-print-debuginfo | FileCheck --check-prefix=DEBUG %s
// DEBUG: mesh.all_gather {{.*}} loc(

// RUN: mesh-opt %S/Inputs/good.mlir --canonicalize --cse --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck --check-prefix=AFTER %s
// AFTER: // -----// IR Dump After canonicalize //----- //
// AFTER: mesh.all_gather %arg0 on @mesh0
// AFTER: // -----// IR Dump After cse //----- //

// RUN: mesh-opt %S/Inputs/good.mlir --cse --mlir-timing 2>&1 >/dev/null | FileCheck --check-prefix=TIMING %s
// TIMING: Execution time report
// TIMING: Parser
// TIMING: cse
// TIMING: Total

// RUN: mesh-opt --list-passes | FileCheck --check-prefix=PASSES %s
// PASSES: mesh passes

// RUN: mesh-opt --list-ops | FileCheck --check-prefix=OPS %s
// OPS: mesh.all_gather
// OPS-NEXT: %1 = mesh.all_gather %0 on @mesh0 mesh_axes = [1] gather_axis = 1
// OPS: mesh.update_halo

// RUN: mesh-opt --version | FileCheck --check-prefix=VERSION %s
// VERSION: mesh-opt (mlir-mesh {{[0-9]+\.[0-9]+\.[0-9]+}})

// RUN: not mesh-opt %S/Inputs/does-not-exist.mlir 2>&1 | FileCheck --check-prefix=MISSING %s
// MISSING: mesh-opt: error: could not open input file '{{.*}}does-not-exist.mlir'

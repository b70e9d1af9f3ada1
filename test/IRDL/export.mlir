// The dialect exported as IRDL loads into a fresh context and defines the ops.
// RUN: mesh-opt --emit-irdl > %t.irdl.mlir
// RUN: FileCheck --check-prefix=IRDL %s < %t.irdl.mlir
// RUN: %python %S/Inputs/load_irdl.py %t.irdl.mlir %S/Inputs/generic_ops.mlir | FileCheck %s
// The IRDL constraints are enforced there too (required attributes here).
// RUN: not %python %S/Inputs/load_irdl.py %t.irdl.mlir %S/Inputs/missing_attr.mlir 2>&1 | FileCheck --check-prefix=MISSING %s

// IRDL: irdl.dialect @mesh {
// IRDL-DAG: irdl.type @sharding_type
// IRDL-DAG: irdl.attribute @partial
// IRDL-DAG: irdl.attribute @axisarray
// IRDL-DAG: irdl.operation @all_gather {
// IRDL-DAG: irdl.operation @update_halo {
// IRDL-DAG: irdl.operation @mesh {

// CHECK: "mesh.mesh"() {shape = array<i64: 2, 4>, sym_name = "mesh0"} : () -> ()
// CHECK: "mesh.all_gather"(%arg0) {gather_axis = 1 : index, mesh = @mesh0, mesh_axes = array<i16: 1>}
// CHECK: "mesh.sharding"() {{.*}} : () -> !mesh.sharding_type

// MISSING: attribute "gather_axis" is expected but not provided

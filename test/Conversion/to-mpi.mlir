// mesh-opt output goes on to upstream passes in the same pipeline: the MLP
// is propagated, spmdized and folded by mlir-mesh, converted to shard, then
// lowered by upstream's convert-shard-to-mpi.
// RUN: mesh-opt %S/../../examples/mlp_1d.mlir --mesh-sharding-propagation --mesh-spmdization --mesh-fold-collectives --convert-mesh-to-shard --convert-shard-to-mpi | FileCheck %s
// RUN: mesh-opt %S/../../examples/mlp_1d.mlir --pass-pipeline="builtin.module(mesh-sharding-propagation, mesh-spmdization, convert-mesh-to-shard, convert-shard-to-mpi)" | FileCheck %s

// CHECK-LABEL: func.func @mlp
// CHECK: mpi.allgather
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.dot_general
// CHECK: mpi.reduce_scatter_block({{.*}}, MPI_SUM
// CHECK-NOT: shard.all
// CHECK-NOT: shard.reduce

// The `traversal` option orders the sweeps.  The input is split on axis 0 and
// the output wanted on axis 1: forward sweeps carry the input's sharding
// down the chain first, backward sweeps carry the output's up, so the
// reshard lands at the end or at the start of the chain.
// RUN: mesh-opt %s --mesh-sharding-propagation=traversal=forward | FileCheck %s --check-prefix=FWD
// RUN: mesh-opt %s --mesh-sharding-propagation=traversal=forward-backward | FileCheck %s --check-prefix=FWD
// RUN: mesh-opt %s --mesh-sharding-propagation=traversal=backward | FileCheck %s --check-prefix=BWD
// RUN: mesh-opt %s --mesh-sharding-propagation=traversal=backward-forward | FileCheck %s --check-prefix=BWD
// RUN: mesh-opt %s --mesh-sharding-propagation | FileCheck %s --check-prefix=BWD
// RUN: mesh-opt %s --pass-pipeline="builtin.module(mesh-sharding-propagation{traversal=forward})" | FileCheck %s --check-prefix=FWD
// RUN: not mesh-opt %s --mesh-sharding-propagation=traversal=sideways 2>&1 | FileCheck %s --check-prefix=BAD

mesh.mesh @mesh(shape = 2x2)

// FWD: %[[A0:.*]] = mesh.sharding @mesh split_axes = {{\[\[0\]\]}}
// FWD: %[[A1:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
// FWD: %[[X:.*]] = math.exp
// FWD-NEXT: mesh.shard %[[X]] to %[[A0]] :
// FWD: %[[Y:.*]] = math.sin
// FWD-NEXT: mesh.shard %[[Y]] to %[[A1]] :

// BWD: %[[A1:.*]] = mesh.sharding @mesh split_axes = {{\[\[1\]\]}}
// BWD: %[[X:.*]] = math.exp
// BWD-NEXT: mesh.shard %[[X]] to %[[A1]] :
// BWD: %[[Y:.*]] = math.sin
// BWD-NEXT: mesh.shard %[[Y]] to %[[A1]] :

// BAD: error: unknown traversal 'sideways'; expected one of backward, forward, backward-forward, forward-backward
func.func @chain(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}) -> (tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) {
  %0 = math.exp %a : tensor<8xf32>
  %1 = math.sin %0 : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// RUN: mesh-opt %s --split-input-file --verify-diagnostics --mesh-sharding-propagation

mesh.mesh @mesh(shape = 2x2)

// Two members with different explicit shardings: an error naming both.
// expected-error @+2 {{conflicting sharding annotations: the input sharding of argument #0 of @conflict #mesh.sharding<@mesh, [[0]]> in sharding group 3 conflicts with the input sharding of argument #1 of @conflict #mesh.sharding<@mesh, [[1]]>}}
// expected-error @+1 {{conflicting sharding annotations: the input sharding of argument #1 of @conflict #mesh.sharding<@mesh, [[1]]> in sharding group 3 conflicts with the input sharding of argument #0 of @conflict #mesh.sharding<@mesh, [[0]]>}}
func.func @conflict(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}, %b: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) {
  mesh.sharding_group %a id = 3 : tensor<8xf32>
  mesh.sharding_group %b id = 3 : tensor<8xf32>
  return
}

// -----

mesh.mesh @mesh(shape = 2x2)

func.func @ranks(%a: tensor<8xf32>, %b: tensor<8x8xf32>) {
  mesh.sharding_group %a id = 1 : tensor<8xf32>
  // expected-error @+1 {{sharding group 1 mixes tensors of rank 1 and 2}}
  mesh.sharding_group %b id = 1 : tensor<8x8xf32>
  return
}

// -----

func.func @negative_id(%a: tensor<8xf32>) {
  // expected-error @+1 {{sharding group id -1 is negative}}
  mesh.sharding_group %a id = -1 : tensor<8xf32>
  return
}

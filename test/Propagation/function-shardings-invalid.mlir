// The `mesh.sharding` attributes of functions are checked when the module is
// read, with the rules of `mesh.sharding`.
// RUN: mesh-opt %s --split-input-file --verify-diagnostics

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{invalid sharding of argument #0: split axes of dimension 0 use mesh axis 2, out of range for mesh @mesh of rank 2}}
func.func @axis_out_of_range(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[2]]>}) {
  return
}

// -----

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{invalid sharding of result #0: mesh axis 0 is used more than once}}
func.func @axis_twice(%a: tensor<8x8xf32>) -> (tensor<8x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0], [0]]>}) {
  return %a : tensor<8x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{invalid sharding of argument #0: refers to @nowhere, which is not a mesh.mesh of this module}}
func.func @unknown_mesh(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@nowhere, [[0]]>}) {
  return
}

// -----

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{invalid sharding of argument #0: halo_sizes has 1 entries, expected 2}}
func.func @halos(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]], halo_sizes = [1]>}) {
  return
}

// -----

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{invalid sharding of argument #0: mesh axis 1 is used more than once}}
func.func @partial_and_split(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]], partial = sum[1]>}) {
  return
}

// -----

mesh.mesh @mesh(shape = 2x2)
// expected-error @+1 {{'mesh.sharding' of argument #0 must be a #mesh.sharding attribute}}
func.func @not_a_sharding(%a: tensor<8xf32> {mesh.sharding = 3 : i64}) {
  return
}

// -----

// expected-error @+2 {{unknown #mesh.sharding field 'halo'}}
mesh.mesh @mesh(shape = 2x2)
func.func @bad_field(%a: tensor<8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]], halo = [1, 1]>}) {
  return
}

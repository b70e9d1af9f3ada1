// Conflicting required annotations are errors at both annotations; a mesh
// mismatch between the operands of an op is an error at the op.
// RUN: mesh-opt %s --split-input-file --verify-diagnostics --mesh-sharding-propagation

mesh.mesh @mesh(shape = 2x2)

func.func @two_result_annotations(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s0 = mesh.sharding @mesh split_axes = [[0]] : !mesh.sharding
  %s1 = mesh.sharding @mesh split_axes = [[1]] : !mesh.sharding
  // expected-error @+1 {{conflicting sharding annotations: the result annotation #mesh.sharding<@mesh, [[0]]> of the same value conflicts with the result annotation #mesh.sharding<@mesh, [[1]]> at}}
  %0 = mesh.shard %a to %s0 : tensor<4x8xf32>
  // expected-error @+1 {{conflicting sharding annotations: the result annotation #mesh.sharding<@mesh, [[1]]> of the same value conflicts with the result annotation #mesh.sharding<@mesh, [[0]]> at}}
  %1 = mesh.shard %a to %s1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// The operand annotation and the result annotation of one elementwise op
// cannot both hold.
func.func @operand_and_result(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s0 = mesh.sharding @mesh split_axes = [[0]] : !mesh.sharding
  %s1 = mesh.sharding @mesh split_axes = [[], [0]] : !mesh.sharding
  // expected-error @+1 {{conflicting sharding annotations: the operand annotation #mesh.sharding<@mesh, [[0]]> at 'math.exp' conflicts with the result annotation}}
  %0 = mesh.shard %a to %s0 annotate_for_users : tensor<4x8xf32>
  %1 = math.exp %0 : tensor<4x8xf32>
  // expected-error @+1 {{conflicting sharding annotations: the result annotation #mesh.sharding<@mesh, [[], [0]]> at 'math.exp' conflicts with the operand annotation}}
  %2 = mesh.shard %1 to %s1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

func.func @two_operand_annotations(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s0 = mesh.sharding @mesh split_axes = [[0]] : !mesh.sharding
  %s1 = mesh.sharding @mesh split_axes = [[1]] : !mesh.sharding
  // expected-error @+1 {{the operand annotation #mesh.sharding<@mesh, [[0]]> of the same operand conflicts with}}
  %0 = mesh.shard %a to %s0 annotate_for_users : tensor<4x8xf32>
  // expected-error @+1 {{the operand annotation #mesh.sharding<@mesh, [[1]]> of the same operand conflicts with}}
  %1 = mesh.shard %0 to %s1 annotate_for_users : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

func.func @result_after_operand(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s0 = mesh.sharding @mesh split_axes = [[0]] : !mesh.sharding
  %0 = mesh.shard %a to %s0 annotate_for_users : tensor<4x8xf32>
  // expected-error @+1 {{a result annotation of a value that is annotated for its users}}
  %1 = mesh.shard %0 to %s0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// An input sharding and a result annotation of the same argument.
// expected-error @+1 {{the input sharding of argument #0 of @arg_attr_and_shard #mesh.sharding<@mesh, [[1]]> of the same value conflicts with the result annotation #mesh.sharding<@mesh, [[0]]>}}
func.func @arg_attr_and_shard(%a: tensor<4x8xf32> {mesh.sharding = #mesh.sharding<@mesh, [[1]]>}) -> tensor<4x8xf32> {
  %s0 = mesh.sharding @mesh split_axes = [[0]] : !mesh.sharding
  // expected-error @+1 {{the result annotation #mesh.sharding<@mesh, [[0]]> of the same value conflicts with the input sharding of argument #0}}
  %0 = mesh.shard %a to %s0 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)
mesh.mesh @other(shape = 4)

func.func @mesh_mismatch(%a: tensor<4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>},
                         %b: tensor<4xf32> {mesh.sharding = #mesh.sharding<@other, [[0]]>}) -> tensor<4xf32> {
  // expected-error @+1 {{operands and results of 'arith.addf' are sharded on different meshes (@mesh, @other)}}
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// expected-error @+1 {{invalid sharding of argument #0: refers to @nowhere, which is not a mesh.mesh of this module}}
func.func @unknown_mesh(%a: tensor<4xf32> {mesh.sharding = #mesh.sharding<@nowhere, [[0]]>}) -> tensor<4xf32> {
  %0 = math.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

mesh.mesh @mesh(shape = 2x2)

// An op without a sharding rule is replicated, with a warning.
func.func @no_rule(%a: tensor<4xf32> {mesh.sharding = #mesh.sharding<@mesh, [[0]]>}, %f: f32, %i: index) -> tensor<4xf32> {
  // expected-warning @+1 {{no sharding rule for 'tensor.insert': its operands and results are replicated}}
  %0 = tensor.insert %f into %a[%i] : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// What cannot be partitioned is a located error, never a crash.
// RUN: mesh-opt %s --split-input-file --verify-diagnostics --mesh-spmdization

mesh.mesh @m(shape = 2)

// expected-error@+1 {{cannot partition dimension 0 of tensor<?x8xf32>: its size is dynamic}}
func.func @dynamic(%a: tensor<?x8xf32> {mesh.sharding = #mesh.sharding<@m, [[0]]>}) -> tensor<?x8xf32> {
  return %a : tensor<?x8xf32>
}

// -----

mesh.mesh @m(shape = 2)

func.func @already_local(%a: tensor<8xf32>) -> tensor<8xf32> {
  %s = mesh.sharding @m split_axes = [[0]] : !mesh.sharding
  %b = mesh.shard %a to %s : tensor<8xf32>
  // expected-error@+1 {{'mesh.all_reduce' is already a per-device op; mesh-spmdization takes the global program}}
  %c = mesh.all_reduce %b on @m mesh_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

mesh.mesh @a(shape = 2)
mesh.mesh @b(shape = 2)

func.func @two_meshes(%x: tensor<8xf32> {mesh.sharding = #mesh.sharding<@a, [[0]]>}) -> tensor<8xf32> {
  %s = mesh.sharding @b split_axes = [[0]] : !mesh.sharding
  // expected-error@+1 {{cannot reshard between meshes @a and @b}}
  %y = mesh.shard %x to %s annotate_for_users : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

mesh.mesh @m(shape = 2)

func.func @dynamic_reshard(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = mesh.sharding @m split_axes = [[0]] : !mesh.sharding
  // expected-error@+1 {{cannot partition dimension 0 of tensor<?xf32>: its size is dynamic}}
  %y = mesh.shard %x to %s : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

mesh.mesh @m(shape = 2)

// expected-error@+1 {{invalid sharding of argument #0: refers to @nowhere, which is not a mesh.mesh of this module}}
func.func @unknown_mesh(%x: tensor<8xf32> {mesh.sharding = #mesh.sharding<@nowhere, [[0]]>}) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// RUN: tfrt-opt %s -verify-diagnostics -tfrt-entry-abi

// expected-error @below {{entry function needs static tensor types, got 'tensor<?xf32>'}}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

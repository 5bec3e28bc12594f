// RUN: tfrt-opt %s -verify-diagnostics -tfrt-lower-checks

// Outlined parallel bodies and other helpers have no run context.
func.func private @helper(%b: i1) {
  // expected-error @below {{run-time check outside the model's entry function}}
  cf.assert %b, "unreachable"
  return
}

// RUN: tfrt-opt %s -tfrt-lower-graph-to-linalg -split-input-file -verify-diagnostics

// Ops that cannot be lowered fail the pass with an error at the op (whose
// location names the model node).

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @below {{relu with dynamic or unranked shapes is not supported (run tfrt-specialize-shapes)}}
  // expected-error @below {{failed to legalize operation 'graph.relu'}}
  %0 = graph.relu %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @below {{softmax with dynamic or unranked shapes is not supported}}
  // expected-error @below {{failed to legalize operation 'graph.softmax'}}
  %0 = graph.softmax %x {axis = 1 : i64} : (tensor<*xf32>) -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// A slice whose starts are only known at run time has a dynamic result.
func.func @slice_runtime_starts(%x: tensor<10xf32>, %s: tensor<1xi64>) -> tensor<?xf32> {
  %e = graph.constant dense<[7]> : tensor<1xi64>
  %a = graph.constant dense<[0]> : tensor<1xi64>
  %t = graph.constant dense<[1]> : tensor<1xi64>
  // expected-error @below {{slice with dynamic or unranked shapes is not supported}}
  // expected-error @below {{failed to legalize operation 'graph.slice'}}
  %0 = graph.slice %x, %s, %e, %a, %t : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @sigmoid_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{sigmoid on element type i32 is not supported}}
  // expected-error @below {{failed to legalize operation 'graph.sigmoid'}}
  %0 = graph.sigmoid %x : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @neg_unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  // expected-error @below {{neg on element type ui8 is not supported}}
  // expected-error @below {{failed to legalize operation 'graph.neg'}}
  %0 = graph.neg %x : (tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @gemm_int_alpha(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<2x4xi32> {
  // expected-error @below {{integer gemm with alpha or beta other than 1 is not supported}}
  // expected-error @below {{failed to legalize operation 'graph.gemm'}}
  %0 = graph.gemm %a, %b {alpha = 2.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

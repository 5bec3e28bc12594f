// RUN: tfrt-opt %s -split-input-file -verify-diagnostics -tfrt-check-indices

func.func @gather(%x: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %i = graph.constant dense<[0, 3]> : tensor<2xi64>
  // expected-error @below {{Gather: constant index 3 (element 1 of the indices) is outside [-3, 3)}}
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

func.func @gather_nd(%x: tensor<3x4xf32>) -> tensor<2xf32> {
  %i = graph.constant dense<[[2, 3], [1, -5]]> : tensor<2x2xi64>
  // expected-error @below {{GatherND: constant index -5 (element 3 of the indices) is outside the data dimensions [3, 4] (component k must lie in [-d_k, d_k))}}
  %g = graph.gather_nd %x, %i {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x2xi64>) -> tensor<2xf32>
  return %g : tensor<2xf32>
}

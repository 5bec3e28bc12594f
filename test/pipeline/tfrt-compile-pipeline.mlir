// RUN: tfrt-opt %s -split-input-file -tfrt-compile-pipeline="name=m input-shapes=x=2x4 compile-to=graph" | FileCheck %s --check-prefix=GRAPH
// RUN: tfrt-opt %s -split-input-file -tfrt-compile-pipeline="name=m input-shapes=x=2x4 compile-to=bufferized" | FileCheck %s --check-prefix=BUF
// RUN: tfrt-opt %s -split-input-file -tfrt-compile-pipeline="name=m input-shapes=x=2x4" | FileCheck %s --check-prefix=LLVM

// The whole pipeline as tfrt-compile runs it, stopped after each phase.

// GRAPH-LABEL: func.func @main
// GRAPH-SAME: tensor<2x4xf32>
// GRAPH: graph.relu

// After bufferization the entry reads and writes caller buffers and its
// temporaries live in the workspace argument.
// BUF-LABEL: func.func @m_compute
// BUF-SAME: memref<2x4xf32> {graph.name = "x", tfrt.io = "input"}
// BUF-SAME: memref<2x4xf32> {graph.name = "y", tfrt.io = "output"}
// BUF-SAME: {tfrt.io = "workspace"}
// BUF-SAME: tfrt.workspace_size = {{[0-9]+}} : i64
// BUF-NOT: memref.alloc

// The LLVM dialect form takes bare pointers.
// LLVM-LABEL: llvm.func @m_compute
// LLVM-SAME: !llvm.ptr
// LLVM-NOT: malloc
// LLVM-NOT: free
func.func @main(%x: tensor<?x4xf32> {graph.name = "x"}) -> (tensor<?x4xf32> {graph.name = "y"}) {
  %e = graph.exp %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %t = graph.transpose %e {perm = array<i64: 1, 0>} : (tensor<?x4xf32>) -> tensor<4x?xf32>
  %u = graph.transpose %t {perm = array<i64: 1, 0>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
  %r = graph.relu %u : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

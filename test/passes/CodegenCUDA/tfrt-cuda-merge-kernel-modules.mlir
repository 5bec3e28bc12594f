// RUN: tfrt-opt %s --tfrt-cuda-merge-kernel-modules | FileCheck %s

// Two outlined kernels with the same function name end up in the first
// module, named after their old modules; the launches follow.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func @k::@k blocks
// CHECK: gpu.launch_func @k::@k_0 blocks
// CHECK: gpu.module @k {
// CHECK-DAG: gpu.func @k(%{{.*}}: memref<4xf32>) kernel
// CHECK-DAG: gpu.func @k_0(%{{.*}}: memref<4xf32>) kernel
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @f(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @k_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @k {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @k_0 {
    gpu.func @f_kernel(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
}

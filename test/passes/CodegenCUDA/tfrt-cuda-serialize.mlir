// The NVVM kernel module becomes a gpu.binary holding a fat binary (magic
// 0xBA55ED50) with an sm_80 and an sm_90 cubin and the sm_90 PTX; the dumped
// cubin is an NVIDIA CUDA ELF for sm_90 and the PTX assembles with ptxas.
// REQUIRES: cuda-toolkit
// RUN: rm -rf %t && mkdir -p %t
// RUN: tfrt-opt %s --tfrt-cuda-serialize="chips=sm_80,sm_90 cuda-path=%cuda_path dump-dir=%t" | FileCheck %s
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: llvm-readelf -h %t/kernels.sm_90.cubin | FileCheck %s --check-prefix=ELF
// RUN: %python %S/../../tools/Inputs/cuda_elf.py %t/kernels.sm_90.cubin | FileCheck %s --check-prefix=SM
// RUN: %cuda_path/bin/ptxas -arch=sm_90 %t/kernels.sm_90.ptx -o %t/check.cubin
// RUN: not tfrt-opt %s --tfrt-cuda-serialize="chips=sm_90 cuda-path=%t/nowhere" 2>&1 | FileCheck %s --check-prefix=NOTOOL
// RUN: not tfrt-opt %s --tfrt-cuda-serialize="chips=gfx90a cuda-path=%cuda_path" 2>&1 | FileCheck %s --check-prefix=CHIP

// CHECK: module attributes {gpu.container_module, tfrt.cuda.archs = "sm_80,sm_90"}
// CHECK: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, "P\EDU\BA
// CHECK-NOT: gpu.module
// FILES: kernels.fatbin
// FILES: kernels.sm_80.cubin
// FILES: kernels.sm_80.ptx
// FILES: kernels.sm_90.cubin
// FILES: kernels.sm_90.ptx
// ELF: Machine: NVIDIA CUDA architecture
// SM: sm_90
// NOTOOL: error: CUDA toolkit: '{{.*}}nowhere/bin/ptxas' not found
// CHIP: malformed chip 'gfx90a'

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @scale(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %tid = nvvm.read.ptx.sreg.tid.x : i32
      %gep = llvm.getelementptr %p[%tid] : (!llvm.ptr, i32) -> !llvm.ptr, f32
      %v = llvm.load %gep : !llvm.ptr -> f32
      %e = llvm.call @__nv_expf(%v) : (f32) -> f32
      llvm.store %e, %gep : f32, !llvm.ptr
      llvm.return
    }
    llvm.func @__nv_expf(f32) -> f32
  }
}

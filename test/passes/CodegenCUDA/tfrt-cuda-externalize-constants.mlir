// RUN: tfrt-opt %s --allow-unregistered-dialect --tfrt-cuda-externalize-constants | FileCheck %s
// RUN: not tfrt-opt %s --allow-unregistered-dialect --tfrt-cuda-externalize-constants=alignment=3 2>&1 | FileCheck %s --check-prefix=ALIGN

// Constants read by the entry become views of the workspace argument behind
// the planned scratch bytes (100 -> weights at 256); the packed bytes live in
// @tfrt_weights and the originals are gone.
// CHECK-NOT: @__constant_
// CHECK: memref.global constant @tfrt_weights : memref<272xi8> = dense<"0x0000803F000000400000404000008040{{0+}}07000000000000000700000000000000"> {alignment = 256 : i64}
// CHECK-LABEL: func.func @m_compute
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<528xi8> {tfrt.io = "workspace"}
// CHECK-SAME: tfrt.cuda.device_workspace_size = 528 : i64
// CHECK-SAME: tfrt.cuda.weights_offset = 256 : i64
// CHECK-SAME: tfrt.cuda.weights_size = 272 : i64
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: memref.view %[[WS]][%[[C256]]][] : memref<528xi8> to memref<4xf32>
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: memref.view %[[WS]][%[[C512]]][] : memref<528xi8> to memref<2xi64>
// A constant used twice is stored once.
// CHECK: memref.view %[[WS]][%c256{{.*}}][] : memref<528xi8> to memref<4xf32>
// ALIGN: alignment must be a power of two

memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @__constant_2xi64 : memref<2xi64> = dense<7>
func.func @m_compute(%out: memref<4xf32> {tfrt.io = "output"}, %ws: memref<100xi8> {tfrt.io = "workspace"})
    attributes {tfrt.workspace_size = 100 : i64} {
  %a = memref.get_global @__constant_4xf32 : memref<4xf32>
  %b = memref.get_global @__constant_2xi64 : memref<2xi64>
  %c = memref.get_global @__constant_4xf32 : memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.copy %c, %out : memref<4xf32> to memref<4xf32>
  "test.use"(%b) : (memref<2xi64>) -> ()
  return
}

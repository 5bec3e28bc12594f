// RUN: tfrt-opt %s -tfrt-async-schedule | FileCheck %s

// Two branches listed one after the other come out interleaved by level:
// a1, b1 (level 1), a2, b2 (level 2), then their sum.
// CHECK-LABEL: func.func @branches
// CHECK: %[[A1:.*]] = math.tanh %[[X:.*]] : tensor<8xf32>
// CHECK-NEXT: %[[B1:.*]] = math.exp %[[X]] : tensor<8xf32>
// CHECK-NEXT: %[[A2:.*]] = math.tanh %[[A1]] : tensor<8xf32>
// CHECK-NEXT: %[[B2:.*]] = math.exp %[[B1]] : tensor<8xf32>
// CHECK-NEXT: arith.addf %[[A2]], %[[B2]] : tensor<8xf32>
func.func @branches(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a1 = math.tanh %x : tensor<8xf32>
  %a2 = math.tanh %a1 : tensor<8xf32>
  %b1 = math.exp %x : tensor<8xf32>
  %b2 = math.exp %b1 : tensor<8xf32>
  %s = arith.addf %a2, %b2 : tensor<8xf32>
  return %s : tensor<8xf32>
}

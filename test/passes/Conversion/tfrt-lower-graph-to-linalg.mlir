// RUN: tfrt-opt %s -tfrt-lower-graph-to-linalg -split-input-file | FileCheck %s

// Constants become arith.constant (dense and dense_resource).

// CHECK-LABEL: func.func @constant
// CHECK: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant() -> tensor<2xf32> {
  %0 = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @constant_resource
// CHECK: %[[C:.*]] = arith.constant dense_resource<blob> : tensor<2xf32>
// CHECK: return %[[C]]
func.func @constant_resource() -> tensor<2xf32> {
  %0 = graph.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// A graph.shape that reaches the lowering is a constant of the static shape.

// CHECK-LABEL: func.func @shape
// CHECK: %[[C:.*]] = arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK: return %[[C]]
func.func @shape(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = graph.shape %x {start = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Only the dimensions read must be static.

// CHECK-LABEL: func.func @shape_partial
// CHECK: %[[C:.*]] = arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK: return %[[C]]
func.func @shape_partial(%x: tensor<?x3x4xf32>) -> tensor<2xi64> {
  %0 = graph.shape %x {start = -2 : i64} : (tensor<?x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Binary ops: one generic; missing leading dims are dropped from the map.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @add_bcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @add_bcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = graph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Unit dims that stretch read index 0.

// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sub_unit_dims
// CHECK: linalg.generic {indexing_maps = [#[[COL]], #[[ROW]], #[[ID]]]
// CHECK: arith.subf
func.func @sub_unit_dims(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>) -> tensor<4x5xf32> {
  %0 = graph.sub %a, %b : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @mul_scalar
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<3xi32>, tensor<i32>)
// CHECK: arith.muli
func.func @mul_scalar(%a: tensor<3xi32>, %b: tensor<i32>) -> tensor<3xi32> {
  %0 = graph.mul %a, %b : (tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// ONNX integer Div truncates toward zero. The divisors that trap on x86
// are replaced by 1 and their results selected: x / 0 = 0, x / -1 = 0 - x
// (the smallest value stays itself).

// CHECK-LABEL: func.func @div_int
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[YZ:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i64
// CHECK: %[[M1:.*]] = arith.constant -1 : i64
// CHECK: %[[YM1:.*]] = arith.cmpi eq, %[[Y]], %[[M1]] : i64
// CHECK: %[[SPECIAL:.*]] = arith.ori %[[YZ]], %[[YM1]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[SPECIAL]], %[[ONE]], %[[Y]] : i64
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[SAFE]] : i64
// CHECK: %[[NEG:.*]] = arith.subi %[[ZERO]], %[[X]] : i64
// CHECK: %[[Q1:.*]] = arith.select %[[YM1]], %[[NEG]], %[[Q]] : i64
// CHECK: arith.select %[[YZ]], %[[ZERO]], %[[Q1]] : i64
func.func @div_int(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %0 = graph.div %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Unsigned types become signless (signature included, argument attributes
// kept) and pick the unsigned arith ops.

// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%[[A:.*]]: tensor<3xi8> {graph.name = "a"}) -> tensor<3xi8>
// CHECK: %[[C:.*]] = arith.constant dense<[1, 2, -1]> : tensor<3xi8>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[C]] : tensor<3xi8>, tensor<3xi8>)
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: return %[[R]] : tensor<3xi8>
func.func @unsigned(%a: tensor<3xui8> {graph.name = "a"}) -> tensor<3xui8> {
  %c = graph.constant dense<[1, 2, 255]> : tensor<3xui8>
  %0 = graph.div %a, %c : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}

// -----

// Pow keeps the base type: an integer exponent of a float base is converted.

// CHECK-LABEL: func.func @pow_float_int
// CHECK: ^bb0(%[[X:.*]]: f32, %[[E:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[EF:.*]] = arith.sitofp %[[E]] : i64 to f32
// CHECK: %[[P:.*]] = math.powf %[[X]], %[[EF]] : f32
// CHECK: linalg.yield %[[P]]
func.func @pow_float_int(%a: tensor<3xf32>, %b: tensor<3xi64>) -> tensor<3xf32> {
  %0 = graph.pow %a, %b : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// An integer base computes in f64 and converts back.

// CHECK-LABEL: func.func @pow_int_float
// CHECK: ^bb0(%[[X:.*]]: i32, %[[E:.*]]: f32, %{{.*}}: i32):
// CHECK-DAG: %[[XF:.*]] = arith.sitofp %[[X]] : i32 to f64
// CHECK-DAG: %[[EF:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK: %[[P:.*]] = math.powf %[[XF]], %[[EF]] : f64
// CHECK: %[[R:.*]] = arith.fptosi %[[P]] : f64 to i32
// CHECK: linalg.yield %[[R]] : i32
func.func @pow_int_float(%a: tensor<3xi32>, %b: tensor<3xf32>) -> tensor<3xi32> {
  %0 = graph.pow %a, %b : (tensor<3xi32>, tensor<3xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Unary ops: one generic each; identity disappears.

// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[IN]], %[[Z]] fastmath<nsz> : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK: return %[[R]]
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary_chain
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: arith.negf
// CHECK: %[[LAST:.*]] = linalg.generic
// CHECK: math.absf
// CHECK-NOT: linalg.generic
// CHECK: return %[[LAST]]
func.func @unary_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.tanh %0 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = graph.exp %1 : (tensor<4xf32>) -> tensor<4xf32>
  %3 = graph.log %2 : (tensor<4xf32>) -> tensor<4xf32>
  %4 = graph.sqrt %3 : (tensor<4xf32>) -> tensor<4xf32>
  %5 = graph.neg %4 : (tensor<4xf32>) -> tensor<4xf32>
  %6 = graph.abs %5 : (tensor<4xf32>) -> tensor<4xf32>
  %7 = graph.identity %6 : (tensor<4xf32>) -> tensor<4xf32>
  return %7 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @neg_abs_int
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[Z]], %[[X]] : i32
// CHECK: ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[N:.*]] = arith.subi %{{.*}}, %[[Y]] : i32
// CHECK: arith.maxsi %[[Y]], %[[N]] : i32
func.func @neg_abs_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = graph.neg %x : (tensor<4xi32>) -> tensor<4xi32>
  %1 = graph.abs %0 : (tensor<4xi32>) -> tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @hard
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[A:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[AX:.*]] = arith.mulf %[[A]], %[[X]] : f32
// CHECK: %[[B:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[V:.*]] = arith.addf %[[AX]], %[[B]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[MIN:.*]] = arith.minimumf %[[V]], %[[ONE]] fastmath<nsz> : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.maximumf %[[MIN]], %[[ZERO]] fastmath<nsz> : f32
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.constant 0.166666672 : f32
// CHECK: %[[HS:.*]] = arith.maximumf
// CHECK: %[[R:.*]] = arith.mulf %[[Y]], %[[HS]] : f32
// CHECK: linalg.yield %[[R]]
func.func @hard(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.hard_sigmoid %x {alpha = 2.500000e-01 : f32, beta = 5.000000e-01 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = graph.hard_swish %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Clip bounds are 0-D or one-element tensors read as scalars.

// CHECK-LABEL: func.func @clip
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[LO:.*]]: tensor<f32>, %[[HI:.*]]: tensor<1xf32>)
// CHECK: %[[L:.*]] = tensor.extract %[[LO]][] : tensor<f32>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[H:.*]] = tensor.extract %[[HI]][%[[C0]]] : tensor<1xf32>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[M:.*]] = arith.maximumf %[[IN]], %[[L]] fastmath<nsz> : f32
// CHECK: %[[R:.*]] = arith.minimumf %[[M]], %[[H]] fastmath<nsz> : f32
// CHECK: linalg.yield %[[R]]
func.func @clip(%x: tensor<4xf32>, %lo: tensor<f32>, %hi: tensor<1xf32>) -> tensor<4xf32> {
  %0 = graph.clip %x, %lo, %hi : (tensor<4xf32>, tensor<f32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @clip_unsigned
// CHECK-SAME: tensor<4xi8>
// CHECK: arith.maxui
// CHECK: arith.minui
func.func @clip_unsigned(%x: tensor<4xui8>, %lo: tensor<ui8>, %hi: tensor<ui8>) -> tensor<4xui8> {
  %0 = graph.clip %x, %lo, %hi : (tensor<4xui8>, tensor<ui8>, tensor<ui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Cast: float -> int truncates (narrow targets through i32, so out-of-range
// values wrap), unsigned sources zero-extend, to bool is x != 0, float ->
// bf16 truncates the f32 bits (NaN stays NaN).

// CHECK-LABEL: func.func @cast
// CHECK-SAME: -> (tensor<4xi32>, tensor<4xi16>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>, tensor<4xf32>, tensor<4xbf16>)
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[W:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %[[W]] : i32 to i16
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: ^bb0(%[[F:.*]]: f32, %{{.*}}: bf16):
// CHECK: %[[BITS:.*]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: %[[HI:.*]] = arith.shrui %[[BITS]], %{{.*}} : i32
// CHECK: %[[HI16:.*]] = arith.trunci %[[HI]] : i32 to i16
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[F]], %[[F]] : f32
// CHECK: %[[QNAN:.*]] = arith.constant 32704 : i16
// CHECK: %[[SEL:.*]] = arith.select %[[NAN]], %[[QNAN]], %[[HI16]] : i16
// CHECK: arith.bitcast %[[SEL]] : i16 to bf16
func.func @cast(%x: tensor<4xf32>, %u: tensor<4xui8>, %i: tensor<4xi64>, %h: tensor<4xf16>)
    -> (tensor<4xi32>, tensor<4xui16>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>, tensor<4xf32>, tensor<4xbf16>) {
  %0 = graph.cast %x {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = graph.cast %x {to = ui16} : (tensor<4xf32>) -> tensor<4xui16>
  %2 = graph.cast %x {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %3 = graph.cast %u {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %4 = graph.cast %i {to = i8} : (tensor<4xi64>) -> tensor<4xi8>
  %5 = graph.cast %h {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %6 = graph.cast %x {to = bf16} : (tensor<4xf32>) -> tensor<4xbf16>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xui16>, tensor<4xi1>, tensor<4xf32>, tensor<4xi8>, tensor<4xf32>, tensor<4xbf16>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %[[B:.*]]: f32, %[[M:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[XM:.*]] = arith.subf %[[X]], %[[M]] : f32
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[VE:.*]] = arith.addf %[[V]], %[[EPS]] : f32
// CHECK: %[[SD:.*]] = math.sqrt %[[VE]] : f32
// CHECK: %[[N:.*]] = arith.divf %[[XM]], %[[SD]] : f32
// CHECK: %[[NS:.*]] = arith.mulf %[[N]], %[[S]] : f32
// CHECK: %[[R:.*]] = arith.addf %[[NS]], %[[B]] : f32
// CHECK: linalg.yield %[[R]]
func.func @batch_norm(%x: tensor<1x2x3x3xf32>, %s: tensor<2xf32>, %b: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %0 = graph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x4xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[F]] : tensor<2x4xf32>)
// CHECK: return %[[R]]
func.func @matmul_2d(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<2x4x5xf32>)
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%[[F]] : tensor<2x3x5xf32>)
// CHECK: return %[[R]]
func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Broadcast batch dims: loops (b0, b1, m, n, k).

// CHECK-DAG: #[[LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_bcast
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[LHS]], #[[RHS]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[F]] : tensor<2x3x3x5xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[O:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[O]], %[[P]] : f32
// CHECK: linalg.yield %[[S]]
func.func @matmul_bcast(%a: tensor<2x1x3x4xf32>, %b: tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32> {
  %0 = graph.matmul %a, %b : (tensor<2x1x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x3x5xf32>
  return %0 : tensor<2x3x3x5xf32>
}

// -----

// 1-D operands: no m (lhs) / n (rhs) loop; vector . vector is 0-D.

// CHECK-DAG: #[[K3:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[B3:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[O3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[K1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[S1:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @matmul_vec
// CHECK: linalg.generic {indexing_maps = [#[[K3]], #[[B3]], #[[O3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: linalg.generic {indexing_maps = [#[[K1]], #[[K1]], #[[S1]]], iterator_types = ["reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
func.func @matmul_vec(%a: tensor<4xf32>, %b: tensor<2x4x3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %0 = graph.matmul %a, %b : (tensor<4xf32>, tensor<2x4x3xf32>) -> tensor<2x3xf32>
  %1 = graph.matmul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %0, %1 : tensor<2x3xf32>, tensor<f32>
}

// -----

// Gemm with alpha = 1: the init holds beta * C broadcast to [M, N]; the
// transposes are in the maps.

// CHECK-DAG: #[[CB:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: tensor<3x2xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<4xf32>)
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[CB]], #[[ID]]], {{.*}} ins(%[[C]] : tensor<4xf32>)
// CHECK: %[[BETA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: arith.mulf %[[BETA]], %{{.*}} : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[AT]], #[[BT]], #[[O]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<3x2xf32>, tensor<4x3xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: return %[[R]]
func.func @gemm(%a: tensor<3x2xf32>, %b: tensor<4x3xf32>, %c: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 2.0 : f32, trans_a = true, trans_b = true} : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Gemm with alpha != 1: alpha * acc + beta * C in a final generic.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @gemm_alpha
// CHECK-SAME: %[[C:[^:]*]]: tensor<2x1xf32>
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} outs(%[[F]] : tensor<2x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], {{.*}} ins(%[[ACC]], %[[C]] : tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[CV:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[AL:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[AX:.*]] = arith.mulf %[[AL]], %[[X]] : f32
// CHECK: arith.addf %[[AX]], %[[CV]] : f32
func.func @gemm_alpha(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x1xf32>) -> tensor<2x4xf32> {
  %0 = graph.gemm %a, %b, %c {alpha = 5.000000e-01 : f32, beta = 1.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// beta = 0 ignores C.

// CHECK-LABEL: func.func @gemm_beta0
// CHECK-SAME: %[[C:[^:]*]]: tensor<2x4xf32>
// CHECK-NOT: %[[C]]
// CHECK: return
func.func @gemm_beta0(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = graph.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 0.0 : f32, trans_a = false, trans_b = false} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Conv: zero pad (end pads only as far as the windows reach), the bias
// broadcast into the init, one contraction generic.

// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[IN:.*]]: tensor<1x3x8x8xf32>, %[[WT:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[IN]] low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: tensor.yield %[[Z]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x9x9xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [#[[BIAS]], #{{.*}}], {{.*}} ins(%[[B]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[WT]] : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @conv2d(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Grouped conv: channels split into [G, C/G] by expand_shape, loops
// (n, g, m, o, c, k), the result collapsed back.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d3 + d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv_grouped
// CHECK-SAME: (%[[IN:.*]]: tensor<1x4x5xf32>, %[[WT:.*]]: tensor<6x2x3xf32>)
// CHECK-DAG: %[[XE:.*]] = tensor.expand_shape %[[IN]] {{\[}}[0], [1, 2], [3]] output_shape [1, 2, 2, 5] : tensor<1x4x5xf32> into tensor<1x2x2x5xf32>
// CHECK-DAG: %[[WE:.*]] = tensor.expand_shape %[[WT]] {{\[}}[0, 1], [2], [3]] output_shape [2, 3, 2, 3] : tensor<6x2x3xf32> into tensor<2x3x2x3xf32>
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x2x3x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[XE]], %[[WE]] : tensor<1x2x2x5xf32>, tensor<2x3x2x3xf32>) outs(%[[F]] : tensor<1x2x3x3xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2], [3]] : tensor<1x2x3x3xf32> into tensor<1x6x3xf32>
// CHECK: return %[[C]]
func.func @conv_grouped(%x: tensor<1x4x5xf32>, %w: tensor<6x2x3xf32>) -> tensor<1x6x3xf32> {
  %0 = graph.conv %x, %w {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, group = 2 : i64} : (tensor<1x4x5xf32>, tensor<6x2x3xf32>) -> tensor<1x6x3xf32>
  return %0 : tensor<1x6x3xf32>
}

// -----

// Max pool with ceil_mode: -inf padding at the end so the last window fits,
// a kernel-shaped window operand.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.*}} : tensor<1x1x3x3xf32>)
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]] : f32
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[K]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[P]], %[[WIN]] : tensor<1x1x6x6xf32>, tensor<2x2xf32>) outs(%[[INIT]] : tensor<1x1x3x3xf32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32, %[[ACC:.*]]: f32):
// CHECK: arith.maximumf %[[V]], %[[ACC]] : f32
func.func @max_pool(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = graph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Average pool without count_include_pad: the per-position divisor counts
// the real input elements of each window.

// CHECK-DAG: #[[SP:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @average_pool
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1] high[0, 0, 1]
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<1x1x6xf32>, tensor<3xf32>)
// CHECK: arith.addf
// CHECK: %[[DIV:.*]] = arith.constant dense<[2.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[SP]], #{{.*}}], {{.*}} ins(%[[SUM]], %[[DIV]] : tensor<1x1x4xf32>, tensor<4xf32>)
// CHECK: arith.divf
func.func @average_pool(%x: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// With count_include_pad every window here counts 3: a scalar divisor.

// CHECK-LABEL: func.func @average_pool_include_pad
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: %[[DIV:.*]] = arith.constant 3.000000e+00 : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x1x4xf32>)
// CHECK: arith.divf %{{.*}}, %[[DIV]] : f32
func.func @average_pool_include_pad(%x: tensor<1x1x4xf32>) -> tensor<1x1x4xf32> {
  %0 = graph.average_pool %x {kernel_shape = array<i64: 3>, strides = array<i64: 1>, pads = array<i64: 1, 1>, dilations = array<i64: 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
  return %0 : tensor<1x1x4xf32>
}

// -----

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @global_average_pool
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<1x4xf32>
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[NC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} {{.*}} outs(%[[F]] : tensor<1x4xf32>)
// CHECK: %[[N:.*]] = arith.constant 6.400000e+01 : f32
// CHECK: linalg.generic {indexing_maps = [#[[NC]], #[[ID]]], {{.*}} ins(%[[SUM]] : tensor<1x4xf32>) outs(%{{.*}} : tensor<1x4x1x1xf32>)
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
func.func @global_average_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %0 = graph.global_average_pool %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

// Softmax: max, exp(x - max), sum, one division per row, product.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[RED:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MI:.*]] = linalg.fill ins(%[[NINF]] : f32) {{.*}} -> tensor<2xf32>
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x5xf32>) outs(%[[MI]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], {{.*}} ins(%[[X]], %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]]], iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<2x5xf32>)
// CHECK: arith.addf
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[INV:.*]] = linalg.generic {indexing_maps = [#[[ROW]], #[[ROW]]], iterator_types = ["parallel"]} ins(%[[SUM]] : tensor<2xf32>)
// CHECK: arith.divf %[[ONE]],
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[RED]], #[[ID]]], {{.*}} ins(%[[EXP]], %[[INV]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.softmax %x {axis = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Reshape-likes: one collapse_shape or expand_shape when it suffices, else
// through 1-D.

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %s = graph.constant dense<[4, 6]> : tensor<2xi64>
  %0 = graph.reshape %x, %s {allowzero = false} : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @flatten
// CHECK: %[[R:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: return %[[R]]
func.func @flatten(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = graph.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_unsqueeze
// CHECK: %[[S:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x3x1xf32> into tensor<3x1xf32>
// CHECK: %[[U:.*]] = tensor.expand_shape %[[S]] {{\[}}[0], [1, 2]] output_shape [3, 1, 1] : tensor<3x1xf32> into tensor<3x1x1xf32>
// CHECK: return %[[U]]
func.func @squeeze_unsqueeze(%x: tensor<1x3x1xf32>) -> tensor<3x1x1xf32> {
  %a = graph.constant dense<[0]> : tensor<1xi64>
  %0 = graph.squeeze %x, %a : (tensor<1x3x1xf32>, tensor<1xi64>) -> tensor<3x1xf32>
  %b = graph.constant dense<[2]> : tensor<1xi64>
  %1 = graph.unsqueeze %0, %b : (tensor<3x1xf32>, tensor<1xi64>) -> tensor<3x1x1xf32>
  return %1 : tensor<3x1x1xf32>
}

// -----

// CHECK-LABEL: func.func @squeeze_to_scalar
// CHECK: %[[R:.*]] = tensor.collapse_shape %{{.*}} [] : tensor<1x1xf32> into tensor<f32>
// CHECK: return %[[R]]
func.func @squeeze_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %0 = graph.squeeze %x : (tensor<1x1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = graph.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<1x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<3x4xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[B]] into %[[I0]][2, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<3x4xf32>
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<2x4xf32>, %b: tensor<1x4xf32>) -> tensor<3x4xf32> {
  %0 = graph.concat %a, %b {axis = -2 : i64} : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<10x4xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][1, 0] [3, 4] [2, 1] : tensor<10x4xf32> to tensor<3x4xf32>
// CHECK: return %[[S]]
func.func @slice(%x: tensor<10x4xf32>) -> tensor<3x4xf32> {
  %s = graph.constant dense<[1]> : tensor<1xi64>
  %e = graph.constant dense<[7]> : tensor<1xi64>
  %a = graph.constant dense<[0]> : tensor<1xi64>
  %t = graph.constant dense<[2]> : tensor<1xi64>
  %0 = graph.slice %x, %s, %e, %a, %t : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A negative step reads start + i * step (x[-2:0:-2] of 10 elements: 8, 6, 4, 2).

// CHECK-DAG: #[[REV:.*]] = affine_map<(d0) -> (d0 * -2 + 8)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @slice_neg_step
// CHECK-SAME: (%[[X:.*]]: tensor<10xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[REV]], #[[ID]]], iterator_types = ["parallel"]} ins(%[[X]] : tensor<10xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: return %[[R]]
func.func @slice_neg_step(%x: tensor<10xf32>) -> tensor<4xf32> {
  %s = graph.constant dense<[-2]> : tensor<1xi64>
  %e = graph.constant dense<[0]> : tensor<1xi64>
  %a = graph.constant dense<[0]> : tensor<1xi64>
  %t = graph.constant dense<[-2]> : tensor<1xi64>
  %0 = graph.slice %x, %s, %e, %a, %t : (tensor<10xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Gather: negative indices wrap, then clamp into [0, dim - 1].

// CHECK-DAG: #[[IDX:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[D:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[IDX]], #{{.*}}], {{.*}} ins(%[[I]] : tensor<2xi64>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[K:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[K]], %[[Z]] : index
// CHECK: %[[DIM:.*]] = arith.constant 5 : index
// CHECK: %[[W:.*]] = arith.addi %[[K]], %[[DIM]] : index
// CHECK: %[[S:.*]] = arith.select %[[NEG]], %[[W]], %[[K]] : index
// CHECK: %[[LO:.*]] = arith.maxsi %[[S]], %[[Z]] : index
// CHECK: %[[LAST:.*]] = arith.constant 4 : index
// CHECK: %[[C:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[V:.*]] = tensor.extract %[[D]][%[[C]], %[[J]]] : tensor<5x3xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<5x3xf32>, %i: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A result without elements is just a tensor.empty.

// CHECK-LABEL: func.func @empty_result
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[E]]
func.func @empty_result(%a: tensor<0x3xf32>, %b: tensor<3xf32>) -> tensor<0x3xf32> {
  %0 = graph.add %a, %b : (tensor<0x3xf32>, tensor<3xf32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}

// -----

// Reductions: a reduction generic into the kept dims, a finishing generic
// (mean divides by the count), expand_shape for keepdims.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: arith.constant 3.000000e+00
// CHECK: arith.divf
// CHECK: tensor.expand_shape %[[M]] {{\[\[}}0, 1]] output_shape [2, 1]
func.func @reduce_mean(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// Log-sum-exp without overflow: m + log(sum(exp(x - m))), m the maximum, or
// 0 where the maximum is not finite.

// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[SHIFT:.*]] = linalg.generic {{.*}} ins(%[[MAX]] : tensor<2xf32>)
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %[[SHIFT]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SHIFT]], %[[SUM]] : tensor<2xf32>, tensor<2xf32>)
// CHECK: math.log
// CHECK: arith.addf
func.func @reduce_log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = graph.reduce_log_sum_exp %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Arg max: one generic with a (value, index) pair of outputs. A NaN counts
// as the largest value (numpy's arg max): the first NaN wins unless the best
// is one already; with select_last_index every later NaN does.

// CHECK-LABEL: func.func @arg_max
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: ^bb0(%[[V:.*]]: f32, %[[BEST:.*]]: f32, %{{.*}}: i64):
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[BEST]] : f32
// CHECK: %[[VNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK: %[[BNAN:.*]] = arith.cmpf uno, %[[BEST]], %[[BEST]] : f32
// CHECK: %[[NOTB:.*]] = arith.xori %[[BNAN]], %true : i1
// CHECK: %[[NEW:.*]] = arith.andi %[[VNAN]], %[[NOTB]] : i1
// CHECK: arith.ori %[[GT]], %[[NEW]] : i1
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, i64
// CHECK: return %[[R]]#1
// CHECK-LABEL: func.func @arg_min_last
// CHECK: %[[LE:.*]] = arith.cmpf ole
// CHECK: %[[VNAN2:.*]] = arith.cmpf uno
// CHECK-NOT: arith.xori
// CHECK: arith.ori %[[LE]], %[[VNAN2]] : i1
func.func @arg_max(%a: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = graph.arg_max %a {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
func.func @arg_min_last(%a: tensor<2x3xf32>) -> tensor<2xi64> {
  %0 = graph.arg_min %a {axis = 1 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Resize: source indices (and weights) are constant tables computed at
// compile time; nearest reads through tensor.extract, linear adds a tap loop.
// A nearest resize that repeats each element an integer number of times
// reads its input operand at (o floordiv factor) instead, without tables.

// CHECK-DAG: #[[REPEAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 3)>
// CHECK-LABEL: func.func @resize_nearest_repeat
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic {indexing_maps = [#[[REPEAT]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x1x2x2xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
func.func @resize_nearest_repeat(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 3.0>, roi = array<f64>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                        exclude_outside = false, extrapolation_value = 0.0 : f32}
      : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// Along H (scale 2) a repetition, along W (scale 1.5: outputs 0, 1, 2 read
// 0, 0, 1) not: the table form for the whole resize.
// CHECK-LABEL: func.func @resize_nearest
// CHECK-DAG: %[[W:.*]] = arith.constant dense<[0, 0, 1]> : tensor<3xi64>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: tensor.extract %arg0
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32> {
  %0 = graph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 1.5>, roi = array<f64>,
                        mode = "nearest", coordinate_transformation_mode = "asymmetric",
                        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                        exclude_outside = false, extrapolation_value = 0.0 : f32}
      : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32>
  return %0 : tensor<1x1x4x3xf32>
}

// CHECK-LABEL: func.func @resize_linear
// CHECK-DAG: arith.constant dense<{{\[\[}}0, 0], [0, 1], [0, 1], [1, 2], [1, 2], [2, 3], [2, 3], [3, 3]]> : tensor<8x2xi64>
// CHECK-DAG: arith.constant dense<{{\[\[}}2.500000e-01, 7.500000e-01], [7.500000e-01, 2.500000e-01]{{.*}} : tensor<8x2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: tensor.extract %arg0
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @resize_linear(%x: tensor<1x4xf32>) -> tensor<1x8xf32> {
  %0 = graph.resize %x {scales = array<f64: 1.0, 2.0>, roi = array<f64>,
                        mode = "linear", coordinate_transformation_mode = "half_pixel",
                        nearest_mode = "floor", cubic_coeff_a = -7.5e-01 : f32,
                        exclude_outside = false, extrapolation_value = 0.0 : f32}
      : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// ConvTranspose: the input is scattered with the stride into zeros, then a
// convolution generic reads the window flipped.

// CHECK-DAG: #[[Z:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d2 - d4 + 1)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d3, d1, d4)>
// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[I:.*]] = tensor.insert_slice %arg0 into %{{.*}}[0, 0, 1] [1, 4, 8] [1, 1, 2] : tensor<1x4x8xf32> into tensor<1x4x17xf32>
// CHECK: linalg.generic {indexing_maps = [#[[Z]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[I]], %arg1
func.func @conv_transpose(%x: tensor<1x4x8xf32>, %w: tensor<4x2x2xf32>) -> tensor<1x2x16xf32> {
  %0 = graph.conv_transpose %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>,
                                    dilations = array<i64: 1>, output_padding = array<i64: 0>,
                                    group = 1 : i64}
      : (tensor<1x4x8xf32>, tensor<4x2x2xf32>) -> tensor<1x2x16xf32>
  return %0 : tensor<1x2x16xf32>
}

// -----

// Comparisons produce i1; math ops are one generic with the math op.

// CHECK-LABEL: func.func @less
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xi1>)
// CHECK: arith.cmpf olt
// CHECK-LABEL: func.func @sin
// CHECK: math.sin
func.func @less(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  %0 = graph.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
func.func @sin(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = graph.sin %a : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Pad (edge): a generic over the result clamping the source indices.

// CHECK-LABEL: func.func @pad_edge
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x5xf32>)
// CHECK: arith.minsi
// CHECK: arith.maxsi
// CHECK: tensor.extract %arg0
func.func @pad_edge(%a: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %v = graph.constant dense<0.0> : tensor<f32>
  %0 = graph.pad %a, %v {mode = "edge", pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Wrap: the index minus the begin pad, modulo what the crops leave (here
// one of 3 columns cropped at the end: period 2), shifted past the cropped
// start (none); dimensions without pads are not wrapped.

// CHECK-LABEL: func.func @pad_wrap
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xf32>)
// CHECK-NOT: arith.remsi
// CHECK: arith.maxsi
// CHECK: %[[M:.*]] = arith.remsi %{{.*}}, %c2{{.*}} : index
// CHECK-NEXT: arith.cmpi slt, %[[M]], %c0
// CHECK: tensor.extract %arg0
func.func @pad_wrap(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %v = graph.constant dense<0.0> : tensor<f32>
  %0 = graph.pad %a, %v {mode = "wrap", pads = array<i64: 0, 2, 0, -1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// TopK: element ranks along the axis (a counting reduction), then a
// two-output generic picking the element of rank j for output position j.
// NaN orders above every number and NaNs are equal (w precedes v when
// (w > v or w is NaN) and v is not NaN), so the ranks are a permutation.

// CHECK-LABEL: func.func @top_k
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg0 : {{.*}}) outs(%{{.*}} : tensor<3x4xi64>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[W:.*]]: f32, %{{.*}}: i64):
// CHECK-DAG: %[[WN:.*]] = arith.cmpf uno, %[[W]], %[[W]] : f32
// CHECK-DAG: %[[VN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-DAG: %[[GT:.*]] = arith.cmpf ugt, %[[W]], %[[V]] : f32
// CHECK-DAG: %[[NVN:.*]] = arith.xori %[[VN]], %{{.*}} : i1
// CHECK-DAG: arith.andi %[[GT]], %[[NVN]] : i1
// CHECK-DAG: %[[EQ:.*]] = arith.cmpf oeq, %[[W]], %[[V]] : f32
// CHECK-DAG: %[[BOTH:.*]] = arith.andi %[[WN]], %[[VN]] : i1
// CHECK-DAG: arith.ori %[[EQ]], %[[BOTH]] : i1
// CHECK: %[[T:.*]]:2 = linalg.generic {{.*}} ins(%arg0, %[[R]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK: return %[[T]]#0, %[[T]]#1
func.func @top_k(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = graph.top_k %x {axis = -1 : i64, k = 2 : i64, largest = true} : (tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// ScatterND: a reduction over the updates into a copy of the input; a
// shape-only operand gives the update loop its range.

// CHECK-LABEL: func.func @scatter_nd
// CHECK: %[[RANGE:.*]] = tensor.empty() : tensor<4xi8>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[RANGE]] : tensor<4xi8>) outs(%arg0 : tensor<8xf32>)
// CHECK: tensor.extract %arg1
// CHECK: tensor.extract %arg2
// CHECK: arith.addf
func.func @scatter_nd(%x: tensor<8xf32>, %i: tensor<4x1xi64>, %u: tensor<4xf32>) -> tensor<8xf32> {
  %0 = graph.scatter_nd %x, %i, %u {reduction = "add"} : (tensor<8xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Trilu: k is read at run time.

// CHECK-LABEL: func.func @trilu
// CHECK: %[[K:.*]] = tensor.extract %arg1[] : tensor<i64>
// CHECK: %[[KI:.*]] = arith.index_cast %[[K]]
// CHECK: linalg.generic
// CHECK: arith.cmpi sge, %{{.*}}, %[[KI]] : index
func.func @trilu(%x: tensor<3x4xf32>, %k: tensor<i64>) -> tensor<3x4xf32> {
  %0 = graph.trilu %x, %k {upper = true} : (tensor<3x4xf32>, tensor<i64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Depthwise conv (group == C == M): the named depthwise op on the padded
// input, the weight collapsed to [C, KH, KW], the bias broadcast as init.
// Stride 2 pads one more column at the end (whole stride groups per lane).

// CHECK-LABEL: func.func @conv_depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 0, 1]
// CHECK: } : tensor<1x4x8x8xf32> to tensor<1x4x9x10xf32>
// CHECK: %[[WC:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
// CHECK: %[[I:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<4xf32>)
// CHECK: %[[R:.*]] = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[WC]] : tensor<1x4x9x10xf32>, tensor<4x3x3xf32>) outs(%[[I]] : tensor<1x4x4x4xf32>)
// CHECK: return %[[R]]
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = graph.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// N-D x 2-D f32 matmul: one linalg.matmul over the collapsed rows; 70
// columns are split into 64 (the vectorized tile's multiple of 32) and 6,
// each product writing its slice of one zero init.

// CHECK-LABEL: func.func @matmul_rows
// CHECK-SAME: (%[[A:.*]]: tensor<1x8x16xf32>, %[[B:.*]]: tensor<16x70xf32>)
// CHECK: %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<1x8x16xf32> into tensor<8x16xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<8x70xf32>
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[B]][0, 0] [16, 64] [1, 1]
// CHECK: %[[C0:.*]] = tensor.extract_slice %[[Z]][0, 0] [8, 64] [1, 1]
// CHECK: %[[M0:.*]] = linalg.matmul ins(%[[A2]], %[[B0]] : tensor<8x16xf32>, tensor<16x64xf32>) outs(%[[C0]] : tensor<8x64xf32>)
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[M0]] into %[[Z]][0, 0] [8, 64] [1, 1]
// CHECK: %[[B1:.*]] = tensor.extract_slice %[[B]][0, 64] [16, 6] [1, 1]
// CHECK: %[[C1:.*]] = tensor.extract_slice %[[R0]][0, 64] [8, 6] [1, 1]
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[A2]], %[[B1]] : tensor<8x16xf32>, tensor<16x6xf32>) outs(%[[C1]] : tensor<8x6xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[M1]] into %[[R0]][0, 64] [8, 6] [1, 1]
// CHECK: %[[E:.*]] = tensor.expand_shape %[[R1]] {{\[}}[0, 1], [2]] output_shape [1, 8, 70]
// CHECK: return %[[E]]
func.func @matmul_rows(%a: tensor<1x8x16xf32>, %b: tensor<16x70xf32>) -> tensor<1x8x70xf32> {
  %0 = graph.matmul %a, %b : (tensor<1x8x16xf32>, tensor<16x70xf32>) -> tensor<1x8x70xf32>
  return %0 : tensor<1x8x70xf32>
}

// -----

// Transposed conv whose kernel equals its stride: every input pixel writes
// its own 2x2 output block, one contraction over the input channels into the
// output viewed as [N, M, IH, KH, IW, KW] (no zero-upsampled input).

// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2, d5)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d3, d6)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
// CHECK-LABEL: func.func @conv_transpose_blocks
// CHECK-SAME: (%[[IN:.*]]: tensor<1x8x4x4xf32>, %[[WT:.*]]: tensor<8x3x2x2xf32>, %[[BI:.*]]: tensor<3xf32>)
// CHECK: %[[I:.*]] = linalg.generic {indexing_maps = [#[[B]], {{.*}}]{{.*}} ins(%[[BI]] : tensor<3xf32>) outs(%{{.*}} : tensor<1x3x4x2x4x2xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IN]], %[[WT]] : tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>) outs(%[[I]] : tensor<1x3x4x2x4x2xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x3x4x2x4x2xf32> into tensor<1x3x8x8xf32>
// CHECK: return %[[C]]
func.func @conv_transpose_blocks(%x: tensor<1x8x4x4xf32>, %w: tensor<8x3x2x2xf32>, %b: tensor<3xf32>) -> tensor<1x3x8x8xf32> {
  %0 = graph.conv_transpose %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x8x4x4xf32>, tensor<8x3x2x2xf32>, tensor<3xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

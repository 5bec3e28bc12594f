// RUN: tfrt-opt %s -tfrt-lower-vectors | FileCheck %s

// One register-tile step: the contraction of an 8x1 column and a 1x32 row
// becomes eight FMAs of a broadcast A element with the B row; transfers are
// rank 1.
// CHECK-LABEL: func.func @tile
// CHECK-NOT: vector.contract
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT: vector.contract
func.func @tile(%a: memref<8x64xf32>, %b: memref<64x32xf32>, %acc: vector<8x32xf32>, %k: index) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %k], %z {in_bounds = [true, true]} : memref<8x64xf32>, vector<8x1xf32>
  %vb = vector.transfer_read %b[%k, %c0], %z {in_bounds = [true, true]} : memref<64x32xf32>, vector<1x32xf32>
  %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                        iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
       %va, %vb, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  return %r : vector<8x32xf32>
}

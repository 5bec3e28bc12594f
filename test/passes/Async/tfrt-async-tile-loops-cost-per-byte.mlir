// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=30000 min-chunk-cost=8192 max-chunks=8" | FileCheck %s --check-prefix=OPS
// RUN: tfrt-opt %s -split-input-file -tfrt-async-tile-loops="min-cost=30000 min-chunk-cost=8192 max-chunks=8 cost-per-byte=1" | FileCheck %s --check-prefix=BYTES

// A fill does one operation per element (16384) but writes 65536 bytes:
// counted in operations it stays sequential, counted in bytes it splits
// into 65536 / 8192 = 8 chunks.
// OPS-LABEL: func.func @fill
// OPS-NOT: scf.forall
// OPS: linalg.fill
// BYTES-LABEL: func.func @fill
// BYTES: scf.forall (%[[I:.*]]) = (0) to (64) step (8)
// BYTES: linalg.fill {{.*}} -> tensor<8x256xf32>
func.func @fill(%v: f32) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %r = linalg.fill ins(%v : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// An elementwise add reads two operands and writes one: 3 x 16384 x 4
// bytes, 196608, against 16384 operations; split into the most chunks.
// OPS-LABEL: func.func @add
// OPS-NOT: scf.forall
// BYTES-LABEL: func.func @add
// BYTES: scf.forall (%{{.*}}) = (0) to (64) step (8)
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<64x256xf32>, tensor<64x256xf32>) outs(%e : tensor<64x256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// Small ops stay sequential either way: 4 x 8 elements.
// BYTES-LABEL: func.func @small
// BYTES-NOT: scf.forall
func.func @small(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

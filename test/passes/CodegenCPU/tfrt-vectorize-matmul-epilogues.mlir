// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul -canonicalize -cse | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="epilogues=0" -canonicalize -cse | FileCheck %s --check-prefix=OFF
// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-matmul="remarks=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// A 1x1 conv (the matmul of tfrt-vectorize-conv on the collapsed output,
// seeded with its bias) followed by a hard-swish: 32-column register tiles
// lie within one output row (W = 32), so each tile goes through the
// activation in registers and is written straight into the activation's
// [1, M, H, W] destination at (0, row, col / W, col % W). No pass over the
// output is left. The division by 6 becomes a multiplication by 1/6, and
// the vector ops may contract into FMAs.
// CHECK: #[[TILE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @image
// CHECK-DAG: %[[SIX:.*]] = arith.constant dense<6.000000e+00> : vector<8x32xf32>
// CHECK-DAG: %[[SIXTH:.*]] = arith.constant dense<0.166666672> : vector<8x32xf32>
// CHECK-DAG: %[[THREE:.*]] = arith.constant dense<3.000000e+00> : vector<8x32xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x32x32x32xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[E]]) -> (tensor<1x32x32x32xf32>)
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: vector.contract
// CHECK: %[[H:.*]] = arith.divui %[[COL:.*]], %c32
// CHECK: %[[W:.*]] = arith.remui %[[COL]], %c32
// CHECK: %[[A:.*]] = arith.addf %[[ACC]], %[[THREE]] fastmath<contract> : vector<8x32xf32>
// CHECK: arith.maximumf %[[A]]
// CHECK: arith.minimumf %{{.*}}, %[[SIX]]
// CHECK: arith.mulf %[[ACC]]
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[SIXTH]] fastmath<contract> : vector<8x32xf32>
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %{{.*}}, %[[H]], %[[W]]] {in_bounds = [true, true], permutation_map = #[[TILE]]} : vector<8x32xf32>, tensor<1x32x32x32xf32>
// CHECK-NOT: linalg.generic
// OFF-LABEL: func.func @image
// OFF: vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<32x1024xf32>
// OFF: linalg.generic
#bcast = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @image(%x: tensor<16x1024xf32>, %w: tensor<32x16xf32>, %bias: tensor<32xf32>) -> tensor<1x32x32x32xf32> {
  %e = tensor.empty() : tensor<1x32x32x32xf32>
  %b = linalg.generic {indexing_maps = [#bcast, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x32x32xf32>
  %c = tensor.collapse_shape %b [[0, 1], [2, 3]] : tensor<1x32x32x32xf32> into tensor<32x1024xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x16xf32>, tensor<16x1024xf32>) outs(%c : tensor<32x1024xf32>) -> tensor<32x1024xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 32, 32] : tensor<32x1024xf32> into tensor<1x32x32x32xf32>
  %e2 = tensor.empty() : tensor<1x32x32x32xf32>
  %three = arith.constant 3.0 : f32
  %six = arith.constant 6.0 : f32
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex : tensor<1x32x32x32xf32>) outs(%e2 : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %three : f32
    %lo = arith.maximumf %a, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    %p = arith.mulf %in, %hi : f32
    %d = arith.divf %p, %six : f32
    linalg.yield %d : f32
  } -> tensor<1x32x32x32xf32>
  return %r : tensor<1x32x32x32xf32>
}

// -----

// A 2-D product scaled per row by a run-time [M, 1] tensor, shifted by a
// rank-0 tensor and put through a sigmoid-like body with a constant of its
// own: the per-row values are read with a broadcast along the columns, the
// rank-0 one is extracted once and splat.
// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @rows
// CHECK: %[[S:.*]] = tensor.extract %arg3[] : tensor<f32>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: %[[R:.*]] = vector.transfer_read %arg2[%[[M:.*]], %c0], %{{.*}} {in_bounds = [true, true], permutation_map = #[[ROW]]} : tensor<64x1xf32>, vector<8x32xf32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[S]] : f32 to vector<8x32xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[ACC]], %[[R]] fastmath<contract> : vector<8x32xf32>
// CHECK: %[[Q:.*]] = arith.addf %[[P]], %[[SPLAT]] fastmath<contract> : vector<8x32xf32>
// CHECK: math.exp
// CHECK: arith.divf %[[Q]], %{{.*}} fastmath<contract> : vector<8x32xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[M]], %{{.*}}] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<64x128xf32>
// CHECK-NOT: linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0, 0)>
#scalar2 = affine_map<(d0, d1) -> ()>
func.func @rows(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %r: tensor<64x1xf32>, %s: tensor<f32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row2, #scalar2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %r, %s : tensor<64x128xf32>, tensor<64x1xf32>, tensor<f32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%in: f32, %rv: f32, %sv: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    %p = arith.mulf %in, %rv : f32
    %q = arith.addf %p, %sv : f32
    %n = arith.negf %q : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %one : f32
    %g = arith.divf %q, %d : f32
    linalg.yield %g : f32
  } -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// W = 40 is not a multiple of the 32-column tile, which then spans two
// output rows: the destination (a fresh tensor) and the residual input of
// the output's shape are contiguous planes, so both are viewed as [M, H*W]
// and the tiles are addressed like the product's.
// CHECK-LABEL: func.func @collapsed
// CHECK-DAG: %[[RES:.*]] = tensor.collapse_shape %arg2 {{\[}}[0, 1], [2, 3]] : tensor<1x16x40x40xf32> into tensor<16x1600xf32>
// CHECK-DAG: %[[DEST:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<1x16x40x40xf32> into tensor<16x1600xf32>
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: %[[X:.*]] = vector.transfer_read %[[RES]][%[[M:.*]], %[[N:.*]]], %{{.*}} {in_bounds = [true, true]} : tensor<16x1600xf32>, vector<8x32xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<contract> : vector<8x32xf32>
// CHECK: %[[Y:.*]] = arith.maximumf %[[SUM]]
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%[[M]], %[[N]]] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<16x1600xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 40, 40] : tensor<16x1600xf32> into tensor<1x16x40x40xf32>
// CHECK-NOT: linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @collapsed(%x: tensor<8x1600xf32>, %w: tensor<16x8xf32>, %res: tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x40x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  %c = tensor.collapse_shape %f [[0, 1], [2, 3]] : tensor<1x16x40x40xf32> into tensor<16x1600xf32>
  %m = linalg.matmul ins(%w, %x : tensor<16x8xf32>, tensor<8x1600xf32>) outs(%c : tensor<16x1600xf32>) -> tensor<16x1600xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 40, 40] : tensor<16x1600xf32> into tensor<1x16x40x40xf32>
  %e2 = tensor.empty() : tensor<1x16x40x40xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %res : tensor<1x16x40x40xf32>, tensor<1x16x40x40xf32>) outs(%e2 : tensor<1x16x40x40xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    %y = arith.maximumf %s, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x16x40x40xf32>
  return %r : tensor<1x16x40x40xf32>
}

// -----

// The destination is the interior of a padded tensor (its rows are 42
// floats apart), and W = 40 is not a multiple of the tile: a tile starts at
// a column that is a multiple of 8, and those starting at 16, 24 or 32 pass
// the end of their row. An scf.index_switch on the start column writes
// them in two row pieces (static slices of the tile); the others are
// written whole. With an input of the output's shape as well, the consumer
// stays apart (it would need the same pieces), and so does a consumer that
// reads its init.
// CHECK: #[[TILE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-LABEL: func.func @padded_interior
// CHECK: %[[INT:.*]] = tensor.extract_slice %{{.*}}[0, 0, 1, 1] [1, 16, 40, 40] [1, 1, 1, 1] : tensor<1x16x42x42xf32> to tensor<1x16x40x40xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INT]]) -> (tensor<1x16x40x40xf32>)
// CHECK: %[[H:.*]] = arith.divui %[[COL:.*]], %c40
// CHECK: %[[W:.*]] = arith.remui %[[COL]], %c40
// CHECK: %[[Y:.*]] = arith.maximumf
// CHECK: scf.index_switch %[[W]] -> tensor<1x16x40x40xf32>
// CHECK: case 16 {
// CHECK: %[[P0:.*]] = vector.extract_strided_slice %[[Y]] {offsets = [0, 0], sizes = [8, 24], strides = [1, 1]}
// CHECK: %[[T0:.*]] = vector.transfer_write %[[P0]], %{{.*}}[%c0, %{{.*}}, %[[H]], %c16] {in_bounds = [true, true], permutation_map = #[[TILE]]} : vector<8x24xf32>
// CHECK: %[[P1:.*]] = vector.extract_strided_slice %[[Y]] {offsets = [0, 24], sizes = [8, 8], strides = [1, 1]}
// CHECK: %[[H1:.*]] = arith.addi %[[H]], %c1
// CHECK: vector.transfer_write %[[P1]], %[[T0]][%c0, %{{.*}}, %[[H1]], %c0] {{.*}} : vector<8x8xf32>
// CHECK: case 24 {
// CHECK: case 32 {
// CHECK: default {
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %{{.*}}, %[[H]], %[[W]]] {{.*}} : vector<8x32xf32>
// CHECK-NOT: linalg.generic
// CHECK-LABEL: func.func @padded_with_input
// CHECK: vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<16x1600xf32>
// CHECK: linalg.generic
// CHECK-LABEL: func.func @reads_init
// CHECK: vector.transfer_write %{{.*}} : vector<8x32xf32>, tensor<16x1024xf32>
// CHECK: linalg.generic
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded_interior(%x: tensor<8x1600xf32>, %w: tensor<16x8xf32>) -> tensor<1x16x42x42xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x40x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  %c = tensor.collapse_shape %f [[0, 1], [2, 3]] : tensor<1x16x40x40xf32> into tensor<16x1600xf32>
  %m = linalg.matmul ins(%w, %x : tensor<16x8xf32>, tensor<8x1600xf32>) outs(%c : tensor<16x1600xf32>) -> tensor<16x1600xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 40, 40] : tensor<16x1600xf32> into tensor<1x16x40x40xf32>
  %padded = tensor.empty() : tensor<1x16x42x42xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%padded : tensor<1x16x42x42xf32>) -> tensor<1x16x42x42xf32>
  %interior = tensor.extract_slice %pf[0, 0, 1, 1] [1, 16, 40, 40] [1, 1, 1, 1] : tensor<1x16x42x42xf32> to tensor<1x16x40x40xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex : tensor<1x16x40x40xf32>) outs(%interior : tensor<1x16x40x40xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x16x40x40xf32>
  %i = tensor.insert_slice %r into %pf[0, 0, 1, 1] [1, 16, 40, 40] [1, 1, 1, 1] : tensor<1x16x40x40xf32> into tensor<1x16x42x42xf32>
  return %i : tensor<1x16x42x42xf32>
}

func.func @padded_with_input(%x: tensor<8x1600xf32>, %w: tensor<16x8xf32>, %res: tensor<1x16x40x40xf32>) -> tensor<1x16x42x42xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x40x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x40x40xf32>) -> tensor<1x16x40x40xf32>
  %c = tensor.collapse_shape %f [[0, 1], [2, 3]] : tensor<1x16x40x40xf32> into tensor<16x1600xf32>
  %m = linalg.matmul ins(%w, %x : tensor<16x8xf32>, tensor<8x1600xf32>) outs(%c : tensor<16x1600xf32>) -> tensor<16x1600xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 40, 40] : tensor<16x1600xf32> into tensor<1x16x40x40xf32>
  %padded = tensor.empty() : tensor<1x16x42x42xf32>
  %pf = linalg.fill ins(%zero : f32) outs(%padded : tensor<1x16x42x42xf32>) -> tensor<1x16x42x42xf32>
  %interior = tensor.extract_slice %pf[0, 0, 1, 1] [1, 16, 40, 40] [1, 1, 1, 1] : tensor<1x16x42x42xf32> to tensor<1x16x40x40xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %res : tensor<1x16x40x40xf32>, tensor<1x16x40x40xf32>) outs(%interior : tensor<1x16x40x40xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %y = arith.addf %in, %in2 : f32
    linalg.yield %y : f32
  } -> tensor<1x16x40x40xf32>
  %i = tensor.insert_slice %r into %pf[0, 0, 1, 1] [1, 16, 40, 40] [1, 1, 1, 1] : tensor<1x16x40x40xf32> into tensor<1x16x42x42xf32>
  return %i : tensor<1x16x42x42xf32>
}

func.func @reads_init(%x: tensor<8x1024xf32>, %w: tensor<16x8xf32>, %acc: tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x32x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x32x32xf32>) -> tensor<1x16x32x32xf32>
  %c = tensor.collapse_shape %f [[0, 1], [2, 3]] : tensor<1x16x32x32xf32> into tensor<16x1024xf32>
  %m = linalg.matmul ins(%w, %x : tensor<16x8xf32>, tensor<8x1024xf32>) outs(%c : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 16, 32, 32] : tensor<16x1024xf32> into tensor<1x16x32x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex : tensor<1x16x32x32xf32>) outs(%acc : tensor<1x16x32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.addf %in, %out : f32
    linalg.yield %y : f32
  } -> tensor<1x16x32x32xf32>
  return %r : tensor<1x16x32x32xf32>
}

// With `remarks`, each fused epilogue is reported on its producer (a
// fusion report, tfrt-compile --fusion-report).
// REMARK: remark: epilogue (unnamed) runs on the register tiles of the matrix product

// -----

// The consumer adds a nearest-neighbour upsampling of a [1, 32, 16, 16]
// map ((d2 floordiv 2, d3 floordiv 2)) and writes the [1, H, M, W]
// rows-outer input of a following windowed conv through (d0, d2, d1, d3):
// each tile reads 8 rows of 16 small-map elements at (row, h / 2, w / 2),
// each element broadcast twice and laid side by side by a shape cast, and
// is written at (0, h, row, w) (rows of the minor dimensions there).
// CHECK: #[[UP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, 0)>
// CHECK-LABEL: func.func @upsample_transposed
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x32x32x32xf32>
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[E]]) -> (tensor<1x32x32x32xf32>)
// CHECK: %[[ACC:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// CHECK: %[[H:.*]] = arith.divui %[[COL:.*]], %c32
// CHECK: %[[W:.*]] = arith.remui %[[COL]], %c32
// CHECK: %[[HL:.*]] = arith.divui %[[H]], %c2
// CHECK: %[[WL:.*]] = arith.divui %[[W]], %c2
// CHECK: %[[R:.*]] = vector.transfer_read %arg2[%c0, %[[ROW:.*]], %[[HL]], %[[WL]]], %{{.*}} {in_bounds = [true, true, true], permutation_map = #[[UP]]} : tensor<1x32x16x16xf32>, vector<8x16x2xf32>
// CHECK: %[[U:.*]] = vector.shape_cast %[[R]] : vector<8x16x2xf32> to vector<8x32xf32>
// CHECK: %[[Y:.*]] = arith.addf %[[ACC]], %[[U]]
// CHECK: vector.transfer_write %[[Y]], %{{.*}}[%c0, %[[H]], %[[ROW]], %[[W]]] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<1x32x32x32xf32>
// CHECK-NOT: linalg.generic
// REMARK: remark: epilogue 'up_add' runs on the register tiles of the matrix product
#up = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 floordiv 2, d3 floordiv 2)>
#idu = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#tru = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
func.func @upsample_transposed(%x: tensor<16x1024xf32>, %w: tensor<32x16xf32>, %lo: tensor<1x32x16x16xf32>) -> tensor<1x32x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x1024xf32>) -> tensor<32x1024xf32>
  %m = linalg.matmul ins(%w, %x : tensor<32x16xf32>, tensor<16x1024xf32>) outs(%f : tensor<32x1024xf32>) -> tensor<32x1024xf32>
  %ex = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 32, 32, 32] : tensor<32x1024xf32> into tensor<1x32x32x32xf32>
  %e2 = tensor.empty() : tensor<1x32x32x32xf32>
  %r = linalg.generic {indexing_maps = [#idu, #up, #tru], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%ex, %lo : tensor<1x32x32x32xf32>, tensor<1x32x16x16xf32>) outs(%e2 : tensor<1x32x32x32xf32>) {
  ^bb0(%in: f32, %l: f32, %out: f32):
    %y = arith.addf %in, %l : f32
    linalg.yield %y : f32
  } -> tensor<1x32x32x32xf32> loc("up_add")
  return %r : tensor<1x32x32x32xf32>
}

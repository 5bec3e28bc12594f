// RUN: tfrt-opt %s -split-input-file -tfrt-vectorize-softmax="max-chunks=4 min-chunk-elements=8192" -canonicalize -cse | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// graph.softmax's five generics after tfrt-fuse-elementwise moved 1 / sum
// into the product: 8 rows of 4100 in 4 chunks of 2 rows (8200 elements
// each). Each row: the maximum over 64 wide and 0 whole vectors and one
// masked vector of the last 4 elements (its lanes past the row selected
// as -inf), exp(x - max) written and summed (those lanes selected as 0),
// then the product with 1 / sum; no generic is left.
// CHECK-LABEL: func.func @fused_inverse
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[C:.*]]) in (4) shared_outs(%[[S:.*]] = %{{.*}}) -> (tensor<8x4100xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[C]], %c2
// CHECK: %[[PART:.*]] = tensor.extract_slice %[[S]][%[[FIRST]], 0] [2, 4100] [1, 1]
// CHECK: scf.for %[[I:.*]] = %c0 to %c2 step %c1 iter_args(%{{.*}} = %[[PART]])
// CHECK: %[[R:.*]] = arith.addi %[[FIRST]], %[[I]]
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c64
// CHECK: vector.transfer_read %{{.*}}[%[[R]], %{{.*}}], %cst{{.*}} : tensor<8x4100xf32>, vector<64xf32>
// CHECK: arith.maximumf {{.*}} : vector<64xf32>
// CHECK: %[[TAIL:.*]] = vector.transfer_read %{{.*}}[%[[R]], %c4096], %{{.*}} : tensor<8x4100xf32>, vector<16xf32>
// CHECK: %[[MASK:.*]] = vector.constant_mask [4] : vector<16xi1>
// CHECK: arith.select %[[MASK]], %[[TAIL]], %cst{{.*}} : vector<16xi1>, vector<16xf32>
// CHECK: vector.reduction <maximumf>
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c64
// CHECK: math.exp %{{.*}} : vector<64xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[I]], %{{.*}}] {in_bounds = [true]} : vector<64xf32>, tensor<2x4100xf32>
// CHECK: arith.addf {{.*}} : vector<64xf32>
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%[[I]], %c4096] : vector<16xf32>, tensor<2x4100xf32>
// CHECK: arith.select %[[MASK]]
// CHECK: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK: %[[INV:.*]] = arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c64
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[INV]] : f32 to vector<64xf32>
// CHECK: arith.mulf %{{.*}}, %[[SPLAT]] : vector<64xf32>
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[S]][%[[FIRST]], 0] [2, 4100] [1, 1]
func.func @fused_inverse(%x: tensor<8x4100xf32>) -> tensor<8x4100xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e8 = tensor.empty() : tensor<8xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x4100xf32>) outs(%mi : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %o = tensor.empty() : tensor<8x4100xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<8x4100xf32>, tensor<8xf32>) outs(%o : tensor<8x4100xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<8x4100xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<8x4100xf32>) outs(%si : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<8x4100xf32>, tensor<8xf32>) outs(%o : tensor<8x4100xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %i = arith.divf %one, %sum : f32
    %r = arith.mulf %in, %i : f32
    linalg.yield %r : f32
  } -> tensor<8x4100xf32>
  return %y : tensor<8x4100xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#vec = affine_map<(d0, d1) -> (d0, d1)>

// With its own 1 / sum generic (as in rec's 1x40x6625 softmax) on a
// rank-3 tensor, viewed as [3, 32]; 3 rows are too few elements for
// chunks: one loop over the rows, two whole vectors per pass.
// CHECK-LABEL: func.func @own_inverse
// CHECK-NOT: linalg.generic
// CHECK-NOT: scf.forall
// CHECK: %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x3x32xf32> into tensor<3x32xf32>
// CHECK: scf.for %[[R:.*]] = %c0 to %c3 step %c1
// CHECK: vector.transfer_read %[[X]][%[[R]], %c0]{{.*}} : tensor<3x32xf32>, vector<16xf32>
// CHECK: vector.transfer_read %[[X]][%[[R]], %c16]{{.*}} : tensor<3x32xf32>, vector<16xf32>
// CHECK: math.exp
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 3, 32] : tensor<3x32xf32> into tensor<1x3x32xf32>
func.func @own_inverse(%x: tensor<1x3x32xf32>) -> tensor<1x3x32xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e3 = tensor.empty() : tensor<1x3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %m = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x3x32xf32>) outs(%mi : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %out, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %o = tensor.empty() : tensor<1x3x32xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<1x3x32xf32>) outs(%si : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %ie = tensor.empty() : tensor<1x3xf32>
  %inv = linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<1x3xf32>) outs(%ie : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %one, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %y = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %inv : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %i: f32, %out: f32):
    %r = arith.mulf %i, %in : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  return %y : tensor<1x3x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Left alone: exp(x - max) also returned (a third user), and rows shorter
// than a vector.
// CHECK-LABEL: func.func @exp_returned
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: vector.
// CHECK-LABEL: func.func @short_rows
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: vector.
func.func @exp_returned(%x: tensor<2x32xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x32xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %o = tensor.empty() : tensor<2x32xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x32xf32>, tensor<2xf32>) outs(%o : tensor<2x32xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x32xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<2x32xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<2x32xf32>, tensor<2xf32>) outs(%o : tensor<2x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %i = arith.divf %one, %sum : f32
    %r = arith.mulf %in, %i : f32
    linalg.yield %r : f32
  } -> tensor<2x32xf32>
  return %y, %e : tensor<2x32xf32>, tensor<2x32xf32>
}
func.func @short_rows(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x8xf32>) outs(%mi : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %o = tensor.empty() : tensor<2x8xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<2x8xf32>, tensor<2xf32>) outs(%o : tensor<2x8xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<2x8xf32>) outs(%si : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<2xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %s : tensor<2x8xf32>, tensor<2xf32>) outs(%o : tensor<2x8xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %i = arith.divf %one, %sum : f32
    %r = arith.mulf %in, %i : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
#lead3 = affine_map<(d0, d1, d2) -> (d1)>

// The softmax's input computed for it alone by an elementwise generic (a
// classifier's bias along the row plus a per-row offset): the rows compute
// it from its inputs as they read them (the bias along the row, the
// offset broadcast), in both passes that read the input, and the generic
// goes. Rows of 2 x 3 are [1, r] (d0 has size 1).
// CHECK-LABEL: func.func @bias_producer
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[R:.*]] = %c0 to %c3 step %c1
// CHECK-DAG: %[[Y:.*]] = vector.transfer_read %{{.*}}[%c0, %[[R]], %c0]{{.*}} : tensor<1x3x32xf32>, vector<16xf32>
// CHECK-DAG: %[[B:.*]] = vector.transfer_read %{{.*}}[%c0]{{.*}} : tensor<32xf32>, vector<16xf32>
// CHECK-DAG: %[[OFF:.*]] = tensor.extract %{{.*}}[%[[R]]] : tensor<3xf32>
// CHECK-DAG: %[[O:.*]] = vector.broadcast %[[OFF]] : f32 to vector<16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[Y]], %[[B]]
// CHECK: arith.addf %[[S]], %[[O]]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK-LABEL: func.func @producer_also_returned
// CHECK: %[[X:.*]] = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %[[X]]
func.func @bias_producer(%y: tensor<1x3x32xf32>, %bias: tensor<32xf32>, %off: tensor<3xf32>) -> tensor<1x3x32xf32> {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %o = tensor.empty() : tensor<1x3x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #col3, #lead3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %bias, %off : tensor<1x3x32xf32>, tensor<32xf32>, tensor<3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.addf %s, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  %e3 = tensor.empty() : tensor<1x3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %m = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x3x32xf32>) outs(%mi : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<1x3x32xf32>) outs(%si : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %s : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %i = arith.divf %one, %sum : f32
    %r = arith.mulf %in, %i : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  return %p : tensor<1x3x32xf32>
}
func.func @producer_also_returned(%y: tensor<1x3x32xf32>, %bias: tensor<32xf32>) -> (tensor<1x3x32xf32>, tensor<1x3x32xf32>) {
  %one = arith.constant 1.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %o = tensor.empty() : tensor<1x3x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %bias : tensor<1x3x32xf32>, tensor<32xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  %e3 = tensor.empty() : tensor<1x3xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %m = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<1x3x32xf32>) outs(%mi : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %e = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x3xf32>) -> tensor<1x3xf32>
  %s = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%e : tensor<1x3x32xf32>) outs(%si : tensor<1x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.addf %in, %out : f32
    linalg.yield %r : f32
  } -> tensor<1x3xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e, %s : tensor<1x3x32xf32>, tensor<1x3xf32>) outs(%o : tensor<1x3x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %i = arith.divf %one, %sum : f32
    %r = arith.mulf %in, %i : f32
    linalg.yield %r : f32
  } -> tensor<1x3x32xf32>
  return %p, %x : tensor<1x3x32xf32>, tensor<1x3x32xf32>
}

// RUN: tfrt-opt %s -split-input-file -tfrt-async-outline="profile=1" | FileCheck %s
// RUN: tfrt-opt %s -split-input-file -tfrt-async-outline | FileCheck %s --check-prefix=OFF

// With `profile`, the launch and every kernel left inline are entries in
// program order, then the rest of the inline code. A call of
// tfrt_profile_mark after each inline kernel times it. Node names come from
// NameLocs, op types and FLOPs from the fused locations of
// tfrt-profile-tag-ops / tfrt-profile-count-flops. The kernel of the
// scaling op (id 1) counts once, in the launch, although the copy after it
// carries the same location.
// CHECK: module attributes {tfrt.profile = {entries = [
// CHECK-SAME: {flops = 64 : i64, kind = "kernel", nodes = ["bias"], ops = ["add"]},
// CHECK-SAME: {flops = 512 : i64, iterations = 4 : i64, kind = "launch", launch = "m_compute_par0_launch", nodes = ["scale"], ops = ["mul"]},
// CHECK-SAME: {flops = 0 : i64, kind = "kernel", nodes = ["scale"], ops = ["mul"]},
// CHECK-SAME: {flops = 0 : i64, kind = "inline", nodes = [], ops = []}
// CHECK-SAME: ], launches = 1 : i64}}
// CHECK: func.func @m_compute({{.*}}, %[[CTX:.*]]: !llvm.ptr {tfrt.run})
// CHECK: linalg.generic
// CHECK: %[[E0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @tfrt_profile_mark(%[[CTX]], %[[E0]])
// CHECK: call @m_compute_par0_launch(%[[CTX]],
// CHECK-NEXT: memref.copy
// CHECK-NEXT: %[[E2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @tfrt_profile_mark(%[[CTX]], %[[E2]])
// CHECK-NEXT: return
// CHECK: func.func private @tfrt_profile_mark(!llvm.ptr, i64)
// OFF-NOT: tfrt.profile
// OFF-NOT: tfrt_profile_mark
#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func @m_compute(%in: memref<64x256xf32> {tfrt.io = "input"}, %out: memref<64x256xf32> {tfrt.io = "output"}, %ws: memref<65536xi8>) {
    %c0 = arith.constant 0 : index
    %tmp = memref.view %ws[%c0][] : memref<65536xi8> to memref<64x256xf32>
    %b = memref.subview %in[0, 0] [1, 64] [1, 1] : memref<64x256xf32> to memref<1x64xf32, strided<[256, 1]>>
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
        ins(%b : memref<1x64xf32, strided<[256, 1]>>) outs(%b : memref<1x64xf32, strided<[256, 1]>>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.addf %x, %x : f32
      linalg.yield %y : f32
    } loc(fused<{tfrt.flops = 64 : i64, tfrt.kernel = 0 : i64}>[fused<{tfrt.op = "add"}>["bias"]])
    scf.forall (%i) = (0) to (64) step (16) {
      %a = memref.subview %in[%i, 0] [16, 256] [1, 1] : memref<64x256xf32> to memref<16x256xf32, strided<[256, 1], offset: ?>>
      %t = memref.subview %tmp[%i, 0] [16, 256] [1, 1] : memref<64x256xf32> to memref<16x256xf32, strided<[256, 1], offset: ?>>
      linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
          ins(%a : memref<16x256xf32, strided<[256, 1], offset: ?>>) outs(%t : memref<16x256xf32, strided<[256, 1], offset: ?>>) {
      ^bb0(%x: f32, %o: f32):
        %y = arith.mulf %x, %x : f32
        linalg.yield %y : f32
      } loc(fused<{tfrt.flops = 512 : i64, tfrt.kernel = 1 : i64}>[fused<{tfrt.op = "mul"}>["scale"]])
    }
    memref.copy %tmp, %out : memref<64x256xf32> to memref<64x256xf32> loc(fused<{tfrt.flops = 512 : i64, tfrt.kernel = 1 : i64}>[fused<{tfrt.op = "mul"}>["scale"]])
    return
  }
}

// -----

// A kernel whose location two entries carry counts where most of its work
// is: here in the inline contraction (64 x 64 x 64 iterations), not in the
// launch that only initialises its output (64 x 64).
// CHECK: module attributes {tfrt.profile = {entries = [
// CHECK-SAME: {flops = 0 : i64, iterations = 2 : i64, kind = "launch", launch = "m_compute_par0_launch", nodes = ["mm"], ops = ["matmul"]},
// CHECK-SAME: {flops = 524288 : i64, kind = "kernel", nodes = ["mm"], ops = ["matmul"]},
// CHECK-SAME: {flops = 0 : i64, kind = "inline", nodes = [], ops = []}
// CHECK-SAME: ], launches = 1 : i64}}
#loc_mm = loc(fused<{tfrt.flops = 524288 : i64, tfrt.kernel = 7 : i64}>[fused<{tfrt.op = "matmul"}>["mm"]])
module {
  func.func @m_compute(%a: memref<64x64xf32> {tfrt.io = "input"}, %out: memref<64x64xf32> {tfrt.io = "output"}) {
    %zero = arith.constant 0.0 : f32
    scf.forall (%i) = (0) to (64) step (32) {
      %o = memref.subview %out[%i, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
      linalg.fill ins(%zero : f32) outs(%o : memref<32x64xf32, strided<[64, 1], offset: ?>>) loc(#loc_mm)
    }
    linalg.matmul ins(%a, %a : memref<64x64xf32>, memref<64x64xf32>) outs(%out : memref<64x64xf32>) loc(#loc_mm)
    return
  }
}

// -----

// A conv whose main tiles run in a launch (8 x 32 accumulators, 4 steps of
// 4 channels: 2 * 8 * 32 * 4 * 4 = 8192 FLOPs of multiply-add per chunk,
// two chunks) and whose tail tile runs inline (8 x 16, the same steps:
// 4096): its 20480 FLOPs split 16384 / 4096, so that adding the entries
// that carry it gives its time. The tail's store (no location of the
// conv) and the copy carrying the conv's location do no float work and get
// none.
// CHECK: module attributes {tfrt.profile = {entries = [
// CHECK-SAME: {flops = 16384 : i64, iterations = 2 : i64, kind = "launch", launch = "m_compute_par0_launch", nodes = ["conv"], ops = ["conv"]},
// CHECK-SAME: {flops = 4096 : i64, kind = "kernel", nodes = ["conv"], ops = ["conv"]},
// CHECK-SAME: {flops = 0 : i64, kind = "kernel", nodes = [], ops = []},
// CHECK-SAME: {flops = 0 : i64, kind = "kernel", nodes = ["conv"], ops = ["conv"]},
// CHECK-SAME: {flops = 0 : i64, kind = "inline", nodes = [], ops = []}
// CHECK-SAME: ], launches = 1 : i64}}
#loc_conv = loc(fused<{tfrt.flops = 20480 : i64, tfrt.kernel = 3 : i64}>[fused<{tfrt.op = "conv"}>["conv"]])
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>
module {
  func.func @m_compute(%w: memref<8x16xf32> {tfrt.io = "input"}, %x: memref<16x80xf32> {tfrt.io = "input"}, %out: memref<8x80xf32> {tfrt.io = "output"}, %copy: memref<8x80xf32> {tfrt.io = "output"}) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %z32 = arith.constant dense<0.0> : vector<8x32xf32>
    %z16 = arith.constant dense<0.0> : vector<8x16xf32>
    scf.forall (%j) = (0) to (64) step (32) {
      %r = scf.for %k = %c0 to %c16 step %c4 iter_args(%a = %z32) -> (vector<8x32xf32>) {
        %wv = vector.transfer_read %w[%c0, %k], %zero {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x4xf32>
        %xv = vector.transfer_read %x[%k, %j], %zero {in_bounds = [true, true]} : memref<16x80xf32>, vector<4x32xf32>
        %s = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %wv, %xv, %a : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32> loc(#loc_conv)
        scf.yield %s : vector<8x32xf32>
      }
      vector.transfer_write %r, %out[%c0, %j] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x80xf32>
    }
    %t = scf.for %k = %c0 to %c16 step %c4 iter_args(%a = %z16) -> (vector<8x16xf32>) {
      %wv = vector.transfer_read %w[%c0, %k], %zero {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x4xf32>
      %xv = vector.transfer_read %x[%k, %c64], %zero {in_bounds = [true, true]} : memref<16x80xf32>, vector<4x16xf32>
      %s = vector.contract {indexing_maps = [#lhs, #rhs, #acc], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %wv, %xv, %a : vector<8x4xf32>, vector<4x16xf32> into vector<8x16xf32> loc(#loc_conv)
      scf.yield %s : vector<8x16xf32>
    } loc(#loc_conv)
    vector.transfer_write %t, %out[%c0, %c64] {in_bounds = [true, true]} : vector<8x16xf32>, memref<8x80xf32>
    memref.copy %out, %copy : memref<8x80xf32> to memref<8x80xf32> loc(#loc_conv)
    return
  }
}

//===- RegisterTile.h - register tiles for the target's vector unit -------===//
//
// How many rows of accumulators a register tile of the vectorizing passes
// may take on the target's vector registers: tfrt-vectorize-matmul and
// tfrt-vectorize-conv carry an R x C tile of f32 accumulators (C columns in
// vectors of `vector-bits` / 32 lanes) through their K loops, and a tile
// that does not fit the register file spills on every step.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_REGISTERTILE_H
#define TFRT_PASSES_CODEGENCPU_REGISTERTILE_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <algorithm>
#include <cstdint>

namespace tfrt::codegen {

/// Whether `loop` carries register-tile accumulators: it has iter_args and
/// all of them are vectors (a tile's K loop or tap loop after the
/// accumulator hoisting).
inline bool carriesOnlyVectors(mlir::scf::ForOp loop) {
  return loop.getNumRegionIterArgs() != 0 &&
         llvm::all_of(loop.getRegionIterArgs(), [](mlir::BlockArgument arg) {
           return mlir::isa<mlir::VectorType>(arg.getType());
         });
}

/// The target's vector registers (the passes' vector-bits and
/// vector-registers options): AVX-512 512 bits x 32, AVX2 256 x 16, SSE
/// 128 x 16, NEON 128 x 32.
struct VectorUnit {
  int64_t bits = 512, registers = 32;

  /// f32 lanes of one register.
  int64_t lanes() const { return std::max<int64_t>(1, bits / 32); }
  /// Registers holding one row of `cols` f32 values.
  int64_t registersFor(int64_t cols) const {
    return std::max<int64_t>(1, (cols + lanes() - 1) / lanes());
  }
  /// Whether the options make sense (bits a positive multiple of 32).
  bool valid() const { return bits >= 32 && bits % 32 == 0 && registers >= 1; }
};

/// Fails with an error on `op` naming `pass` when its vector-bits and
/// vector-registers options do not describe a vector unit.
inline mlir::LogicalResult
checkVectorUnit(mlir::Operation *op, llvm::StringRef pass, VectorUnit unit) {
  if (unit.valid())
    return mlir::success();
  return op->emitError() << pass
                         << ": vector-bits must be a positive multiple of 32 "
                            "and vector-registers positive";
}

/// The most accumulator rows of a tile `cols` columns wide: the
/// accumulators take at most 16 vector registers, and one row of the
/// streamed operand (`cols` / lanes registers) and a broadcast must fit
/// beside them. AVX-512 (512 bits, 32 registers): 8 rows of 32 columns (16
/// zmm); AVX2 (256 bits, 16 registers): 6 rows of 16 (12 ymm) or 2 of 32
/// (3 rows of 32 leave one register for four loaded vectors, and LLVM
/// spills); NEON (128 bits, 32 registers): 2 rows of 32 or 4 of 16.
inline int64_t maxTileRows(int64_t cols, VectorUnit unit) {
  int64_t perRow = unit.registersFor(cols);
  int64_t rows =
      std::min<int64_t>(16 / perRow, (unit.registers - 1 - perRow) / perRow);
  return std::max<int64_t>(1, rows);
}

/// Of the tile widths `candidates` (descending) that divide `width`, the
/// one whose register tile for `m` rows holds the most accumulators
/// (`rowsFor(m, cols)` rows of registersFor(cols) registers; 0 rows: no
/// tile), the wider on a tie; 0 when no width has a tile.
inline int64_t
widestTile(int64_t m, int64_t width, llvm::ArrayRef<int64_t> candidates,
           VectorUnit unit,
           llvm::function_ref<int64_t(int64_t, int64_t)> rowsFor) {
  int64_t best = 0, bestRegs = 0;
  for (int64_t cols : candidates) {
    if (width % cols)
      continue;
    int64_t rows = rowsFor(m, cols);
    int64_t regs = rows * unit.registersFor(cols);
    if (rows > 0 && regs > bestRegs) {
      best = cols;
      bestRegs = regs;
    }
  }
  return best;
}

} // namespace tfrt::codegen

#endif // TFRT_PASSES_CODEGENCPU_REGISTERTILE_H

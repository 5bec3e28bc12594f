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

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tfrt::codegen {

/// The most accumulator rows of a tile `cols` columns wide: the
/// accumulators take at most 16 vector registers, and one row of the
/// streamed operand (`cols` / lanes registers) and a broadcast must fit
/// beside them. AVX-512 (512 bits, 32 registers): 8 rows of 32 columns (16
/// zmm); AVX2 (256 bits, 16 registers): 6 rows of 16 (12 ymm) or 2 of 32
/// (3 rows of 32 leave one register for four loaded vectors, and LLVM
/// spills); NEON (128 bits, 32 registers): 2 rows of 32 or 4 of 16.
inline int64_t maxTileRows(int64_t cols, int64_t vectorBits,
                           int64_t vectorRegisters) {
  int64_t lanes = std::max<int64_t>(1, vectorBits / 32);
  int64_t perRow = std::max<int64_t>(1, (cols + lanes - 1) / lanes);
  int64_t rows =
      std::min<int64_t>(16 / perRow, (vectorRegisters - 1 - perRow) / perRow);
  return std::max<int64_t>(1, rows);
}

/// Of the tile widths `cols` (descending), the one whose register tile
/// for `m` rows holds the most accumulators (`rowsFor(m, width)` rows of
/// width / lanes registers), the wider on a tie; 0 when no width has rows.
template <typename RowsFn>
int64_t widestTile(int64_t m, const int64_t *cols, size_t numCols,
                   int64_t vectorBits, RowsFn rowsFor) {
  int64_t lanes = std::max<int64_t>(1, vectorBits / 32);
  int64_t best = 0, bestRegs = 0;
  for (size_t i = 0; i < numCols; ++i) {
    int64_t rows = rowsFor(m, cols[i]);
    int64_t regs = rows * std::max<int64_t>(1, (cols[i] + lanes - 1) / lanes);
    if (rows > 0 && regs > bestRegs) {
      best = cols[i];
      bestRegs = regs;
    }
  }
  return best;
}

} // namespace tfrt::codegen

#endif // TFRT_PASSES_CODEGENCPU_REGISTERTILE_H

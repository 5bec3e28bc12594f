//===- ChannelInit.h - accumulators that start from a fill or bias -------===//
//
// Shared by the direct-emission kernels (tfrt-vectorize-depthwise,
// tfrt-vectorize-conv-transpose): when a convolution's init is a
// linalg.fill or the graph lowering's broadcast of a [C] bias, the
// accumulators start from that value and the init is neither computed nor
// read.
//
//===----------------------------------------------------------------------===//

#ifndef TFRT_PASSES_CODEGENCPU_CHANNELINIT_H
#define TFRT_PASSES_CODEGENCPU_CHANNELINIT_H

#include "passes/CodegenCPU/Epilogue.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace tfrt::codegen {

/// Where the accumulators start when the op's init is a per-channel value:
/// a scalar (linalg.fill) or an element of a [C] tensor (the broadcast
/// generic of the graph lowering's bias, results of rank 4 or more), at channel
/// c + channelOffset.
struct InitStart {
  mlir::Value scalar, bias, channelOffset;

  /// The value the accumulators of output channel `channel` start from (the
  /// scalar, or the bias element at channel + channelOffset), built at `b`.
  mlir::Value valueAt(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Value channel) const;
};

/// If `init`, the init of `op` (a destination-style op on tensors with one
/// result), is a per-channel value, returns where the accumulators start and
/// sets `dest` to a tensor nobody reads (the producer's own init), so the
/// init is neither computed nor read. Handles the op itself and its chunk
/// of an scf.forall (async tiling), whose shared output then starts from
/// the producer's init instead. Otherwise returns nullopt and leaves the IR
/// unchanged.
std::optional<InitStart> takeChannelInit(mlir::RewriterBase &rewriter,
                                         mlir::Operation *op, mlir::Value init,
                                         mlir::Value &dest);

/// takeChannelInit for a kernel that may apply `epilogue`, the elementwise
/// consumer of `op`'s result, to its vectors before it writes them. Drops
/// the epilogue when the accumulators would read the init (no per-channel
/// value) or the init is the shared output of an enclosing scf.forall
/// (whose producer would then stay). Sets the insertion point for the
/// kernel's loops: at the consumer when there is an epilogue (they replace
/// it, and its operands are defined before it), else at `op`; prepares the
/// epilogue's operands into `operands` and then sets `dest` to its
/// destination.
std::optional<InitStart>
takeChannelInitForEpilogue(mlir::RewriterBase &rewriter, mlir::Operation *op,
                           mlir::Value init, mlir::Value &dest,
                           std::optional<tfrt::Epilogue> &epilogue,
                           tfrt::EpilogueOperands &operands);

/// Whether `map` reads no position past the leading two dims (batch and
/// channel): a per-channel value, a scalar or a [1, C, 1, ...] tensor.
bool readsChannelsOnly(mlir::AffineMap map);

/// The op computing `init`, used only there, when it is a per-channel or
/// scalar value that can be recomputed on any slice of its destination
/// along the dims past the channel: a linalg.fill, or an all-parallel
/// generic (the graph lowering's bias broadcast) whose inputs read only
/// batch and channel (readsChannelsOnly), whose body does not read its init,
/// and which writes that init through the identity. Null otherwise.
mlir::Operation *recomputableChannelInit(mlir::Value init);

} // namespace tfrt::codegen

#endif // TFRT_PASSES_CODEGENCPU_CHANNELINIT_H

//===- SimplifyGraph.cpp - fold batch norm and constant layout ops --------===//
//
// Implements tfrt-simplify-graph: batch normalisation folded into the
// preceding convolution's weights and bias (or turned into a per-channel
// scale and shift), global average pooling moved before pointwise
// convolutions, c + c * s factored into c * (s + 1), transposes of
// constants folded, identities removed, affine ops by constants folded
// into the convolutions before and after them, chains of scalings
// combined. The arithmetic is done in double precision and rounded once
// to f32.
//
//===----------------------------------------------------------------------===//

#include "passes/Graph/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace tfrt::graph {
#define GEN_PASS_DEF_SIMPLIFYGRAPH
#include "passes/Graph/Passes.h.inc"
} // namespace tfrt::graph

using namespace mlir;
using namespace tfrt::graph;

namespace {
/// The f32 values of a constant `v` as doubles, if it is one.
std::optional<SmallVector<double>> constantF32(Value v) {
  if (!v)
    return std::nullopt;
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.getElementType().isF32())
    return std::nullopt;
  SmallVector<double> out;
  out.reserve(attr.getNumElements());
  for (float f : attr.getValues<float>())
    out.push_back(f);
  return out;
}

DenseElementsAttr toAttr(RankedTensorType type, ArrayRef<double> values) {
  SmallVector<float> f(values.begin(), values.end());
  return DenseElementsAttr::get(type, ArrayRef<float>(f));
}

/// A per-channel affine map y = x * scale + shift.
struct ChannelAffine {
  SmallVector<double> scale, shift;
};

/// Per-channel scale s = gamma / sqrt(var + eps) and shift t = beta - mean*s
/// of a batch norm whose statistics are constant vectors of length C.
std::optional<ChannelAffine> bnAffine(BatchNormOp bn, int64_t channels) {
  auto gamma = constantF32(bn.getScale()), beta = constantF32(bn.getBias());
  auto mean = constantF32(bn.getMean()), var = constantF32(bn.getVariance());
  if (!gamma || !beta || !mean || !var)
    return std::nullopt;
  for (auto *v : {&*gamma, &*beta, &*mean, &*var})
    if (static_cast<int64_t>(v->size()) != channels)
      return std::nullopt;
  ChannelAffine a;
  double eps = bn.getEpsilon().convertToFloat();
  for (int64_t c = 0; c < channels; ++c) {
    double s = (*gamma)[c] / std::sqrt((*var)[c] + eps);
    a.scale.push_back(s);
    a.shift.push_back((*beta)[c] - (*mean)[c] * s);
  }
  return a;
}

RankedTensorType staticF32(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  if (!r || !r.hasStaticShape() || !r.getElementType().isF32())
    return {};
  return r;
}

/// The constant weight and bias of `conv` (a zero bias when it has none).
std::optional<std::pair<SmallVector<double>, SmallVector<double>>>
convConstants(ConvOp conv) {
  RankedTensorType wType = staticF32(conv.getWeight().getType());
  if (!wType || wType.getRank() < 3)
    return std::nullopt;
  auto w = constantF32(conv.getWeight());
  if (!w)
    return std::nullopt;
  int64_t m = wType.getDimSize(0);
  SmallVector<double> bias(m, 0.0);
  if (conv.getBias()) {
    auto cb = constantF32(conv.getBias());
    if (!cb || static_cast<int64_t>(cb->size()) != m)
      return std::nullopt;
    bias = *cb;
  }
  return std::make_pair(std::move(*w), std::move(bias));
}

/// Replaces the weight and bias of `conv` (a graph.conv or
/// graph.conv_transpose) by constants of `w` and `bias` (adding the bias
/// operand when it had none).
template <typename ConvOpTy>
void setConvConstants(ConvOpTy conv, ArrayRef<double> w, ArrayRef<double> bias,
                      OpBuilder &b) {
  auto wType = cast<RankedTensorType>(conv.getWeight().getType());
  b.setInsertionPoint(conv);
  Location loc = conv.getLoc();
  auto biasType = RankedTensorType::get({static_cast<int64_t>(bias.size())},
                                        b.getF32Type());
  Value newW = ConstantOp::create(b, loc, wType, toAttr(wType, w));
  Value newB = ConstantOp::create(b, loc, biasType, toAttr(biasType, bias));
  conv.getWeightMutable().assign(newW);
  if (conv.getBias())
    conv.getBiasMutable().assign(newB);
  else
    conv.getBiasMutable().append(newB);
}

/// The output of `conv` followed by y = x * scale[m] + shift[m] per output
/// channel  ==>  W'[m] = W[m] * scale[m], b'[m] = b[m] * scale[m] +
/// shift[m]. False, changing nothing, unless the weights and bias are
/// constants of scale.size() output channels.
bool scaleConvOutputs(ConvOp conv, ArrayRef<double> scale,
                      ArrayRef<double> shift, OpBuilder &b) {
  auto constants = convConstants(conv);
  int64_t m = scale.size();
  if (!constants || static_cast<int64_t>(constants->second.size()) != m)
    return false;
  auto &[w, bias] = *constants;
  int64_t per = w.size() / m;
  for (int64_t o = 0; o < m; ++o) {
    for (int64_t i = 0; i < per; ++i)
      w[o * per + i] *= scale[o];
    bias[o] = bias[o] * scale[o] + shift[o];
  }
  setConvConstants(conv, w, bias, b);
  return true;
}

/// `conv`'s location fused with those of the ops folded into it.
void fuseLocations(Operation *conv, ArrayRef<Operation *> folded,
                   OpBuilder &b) {
  SmallVector<Location> locs = {conv->getLoc()};
  for (Operation *op : folded)
    locs.push_back(op->getLoc());
  conv->setLoc(b.getFusedLoc(locs));
}

/// conv -> batch_norm  ==>  conv with scaled weights and a new bias.
bool foldIntoConv(BatchNormOp bn, OpBuilder &b) {
  auto conv = bn.getInput().getDefiningOp<ConvOp>();
  if (!conv || !conv->hasOneUse())
    return false;
  RankedTensorType outType = staticF32(bn.getType());
  RankedTensorType wType = staticF32(conv.getWeight().getType());
  if (!outType || outType.getRank() < 2 || !wType ||
      outType.getDimSize(1) != wType.getDimSize(0))
    return false;
  std::optional<ChannelAffine> a = bnAffine(bn, wType.getDimSize(0));
  if (!a || !scaleConvOutputs(conv, a->scale, a->shift, b))
    return false;
  conv.getResult().setType(bn.getType());
  // The batch norm's location names the node the value now comes from.
  fuseLocations(conv, {bn.getOperation()}, b);
  bn.getResult().replaceAllUsesWith(conv.getResult());
  bn.erase();
  return true;
}

/// batch_norm  ==>  add(mul(x, s), t) with s, t shaped [C, 1, ...].
bool toScaleShift(BatchNormOp bn, OpBuilder &b) {
  RankedTensorType outType = staticF32(bn.getType());
  if (!outType || outType.getRank() < 2)
    return false;
  int64_t c = outType.getDimSize(1);
  std::optional<ChannelAffine> a = bnAffine(bn, c);
  if (!a)
    return false;
  SmallVector<int64_t> shape(outType.getRank() - 1, 1);
  shape[0] = c;
  auto cType = RankedTensorType::get(shape, b.getF32Type());
  b.setInsertionPoint(bn);
  Location loc = bn.getLoc();
  Value s = ConstantOp::create(b, loc, cType, toAttr(cType, a->scale));
  Value t = ConstantOp::create(b, loc, cType, toAttr(cType, a->shift));
  Value mul = MulOp::create(b, loc, outType, bn.getInput(), s);
  Value add = AddOp::create(b, loc, outType, mul, t);
  bn.getResult().replaceAllUsesWith(add);
  bn.erase();
  return true;
}

/// global_average_pool(conv1x1(x, W, b))  ==>  conv1x1(global_average_pool(x),
/// W, b): a pointwise convolution is linear in each position, so the mean of
/// its outputs is its output on the mean input. Only for kernels of size 1
/// in every spatial dimension with unit strides and no padding (any group,
/// any dilation). When the convolution's output has other users it stays,
/// and the pooling moves only if it then reads no more than before (the
/// conv has at least as many output channels as input channels); the
/// squeeze-excitation blocks of PP-OCRv4 det's neck pool the output of a
/// 12 -> 96 channel pointwise conv at 160x160 (9.8 MB read) where the
/// conv's input is 1.2 MB.
bool poolBeforeConv(GlobalAveragePoolOp pool, OpBuilder &b) {
  auto conv = pool.getInput().getDefiningOp<ConvOp>();
  if (!conv)
    return false;
  RankedTensorType xType = staticF32(conv.getInput().getType());
  RankedTensorType cType = staticF32(conv.getType());
  RankedTensorType wType = staticF32(conv.getWeight().getType());
  RankedTensorType outType = staticF32(pool.getType());
  if (!xType || !cType || !wType || !outType || xType.getRank() < 3 ||
      wType.getRank() != xType.getRank())
    return false;
  for (int64_t d = 2; d < wType.getRank(); ++d)
    if (wType.getDimSize(d) != 1)
      return false;
  if (llvm::any_of(conv.getStrides(), [](int64_t s) { return s != 1; }) ||
      llvm::any_of(conv.getPads(), [](int64_t p) { return p != 0; }))
    return false;
  if (!conv->hasOneUse() && xType.getDimSize(1) > cType.getDimSize(1))
    return false;
  SmallVector<int64_t> pooledShape(xType.getShape());
  for (int64_t d = 2; d < xType.getRank(); ++d)
    pooledShape[d] = 1;
  b.setInsertionPoint(pool);
  // Both new ops compute the pooling's value and carry its location (a
  // profile then charges the convolution's node only for the full-size
  // convolution).
  Location loc = pool.getLoc();
  auto pooledType = RankedTensorType::get(pooledShape, b.getF32Type());
  Value pooled =
      GlobalAveragePoolOp::create(b, loc, pooledType, conv.getInput());
  Value result =
      ConvOp::create(b, loc, outType, pooled, conv.getWeight(), conv.getBias(),
                     conv.getStridesAttr(), conv.getPadsAttr(),
                     conv.getDilationsAttr(), conv.getGroupAttr());
  pool.getResult().replaceAllUsesWith(result);
  pool.erase();
  if (conv->use_empty())
    conv.erase();
  return true;
}

/// add(c, mul(c, s))  ==>  mul(c, add(s, 1)) when s is smaller than c (a
/// broadcast scale, such as the output of a squeeze-excitation block) and
/// the product has no other user: c then has one user less, so that the
/// convolution producing it can take the rest as its epilogue (PP-OCRv4
/// det's neck computes c + c * hardsigmoid(se(c))). The sum 1 + s is
/// computed on s's shape; the result differs from the original by about
/// one rounding.
bool factorScaledSum(AddOp add, OpBuilder &b) {
  RankedTensorType type = staticF32(add.getType());
  if (!type)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    Value c = add->getOperand(i);
    auto mul = add->getOperand(1 - i).getDefiningOp<MulOp>();
    if (!mul || !mul->hasOneUse() || c.getType() != type ||
        mul.getType() != type)
      continue;
    for (unsigned j = 0; j < 2; ++j) {
      if (mul->getOperand(j) != c)
        continue;
      Value scale = mul->getOperand(1 - j);
      RankedTensorType sType = staticF32(scale.getType());
      if (!sType || sType.getNumElements() >= type.getNumElements())
        continue;
      b.setInsertionPoint(add);
      Location loc = add.getLoc();
      auto scalar = RankedTensorType::get({}, b.getF32Type());
      Value one = ConstantOp::create(b, loc, scalar,
                                     DenseElementsAttr::get(scalar, 1.0f));
      Value shifted = AddOp::create(b, loc, sType, scale, one);
      Value result = MulOp::create(b, b.getFusedLoc({mul.getLoc(), loc}), type,
                                   c, shifted);
      add.getResult().replaceAllUsesWith(result);
      add.erase();
      mul.erase();
      return true;
    }
  }
  return false;
}

/// The values of a finite f32 constant `k` that broadcasts (numpy-style,
/// right-aligned) onto `type` along dimension 1 only, one per channel of
/// that dimension (a single element repeated): the per-channel scale or
/// shift of an affine op on a [N, C, ...] tensor.
std::optional<SmallVector<double>> perChannel(Value k, RankedTensorType type) {
  RankedTensorType kType = staticF32(k.getType());
  if (!kType || type.getRank() < 2 || kType.getRank() > type.getRank())
    return std::nullopt;
  int64_t channels = type.getDimSize(1);
  int64_t offset = type.getRank() - kType.getRank();
  for (int64_t d = 0; d < kType.getRank(); ++d) {
    int64_t size = kType.getDimSize(d);
    if (size != 1 && !(d + offset == 1 && size == channels))
      return std::nullopt;
  }
  std::optional<SmallVector<double>> values = constantF32(k);
  if (!values || values->empty() ||
      llvm::any_of(*values, [](double v) { return !std::isfinite(v); }))
    return std::nullopt;
  if (values->size() == 1)
    values->assign(channels, values->front());
  return values;
}

/// `op` as y = x * scale + shift of its operand `x` of its own type, with
/// per-channel constants (perChannel) on the other side: graph.mul,
/// graph.add (either order), graph.sub and graph.div with the constant as
/// the right operand (a divisor other than zero).
std::optional<std::pair<Value, ChannelAffine>> channelAffine(Operation *op) {
  if (!isa_and_nonnull<MulOp, AddOp, SubOp, DivOp>(op))
    return std::nullopt;
  RankedTensorType type = staticF32(op->getResult(0).getType());
  if (!type)
    return std::nullopt;
  bool commutative = isa<MulOp, AddOp>(op);
  for (unsigned i = 0; i < (commutative ? 2u : 1u); ++i) {
    Value x = op->getOperand(i), k = op->getOperand(1 - i);
    if (x.getType() != type)
      continue;
    std::optional<SmallVector<double>> v = perChannel(k, type);
    if (!v)
      continue;
    int64_t channels = type.getDimSize(1);
    ChannelAffine a{SmallVector<double>(channels, 1.0),
                    SmallVector<double>(channels, 0.0)};
    for (int64_t c = 0; c < channels; ++c) {
      double e = (*v)[c];
      if (isa<MulOp>(op))
        a.scale[c] = e;
      else if (isa<AddOp>(op))
        a.shift[c] = e;
      else if (isa<SubOp>(op))
        a.shift[c] = -e;
      else if (e == 0.0)
        return std::nullopt;
      else
        a.scale[c] = 1.0 / e;
    }
    return std::make_pair(x, std::move(a));
  }
  return std::nullopt;
}

/// The chain of per-channel affine ops (graph.mul/add/sub/div by
/// constants of `m` channels, each the only user of the value before it)
/// that starts at `v`'s only user, composed into one map, with the ops in
/// order. Empty when there is none.
std::pair<ChannelAffine, SmallVector<Operation *>> affineChainAfter(Value v,
                                                                    int64_t m) {
  ChannelAffine total{SmallVector<double>(m, 1.0), SmallVector<double>(m, 0.0)};
  SmallVector<Operation *> chain;
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    auto affine = channelAffine(user);
    if (!affine || affine->first != v ||
        static_cast<int64_t>(affine->second.scale.size()) != m)
      break;
    for (int64_t o = 0; o < m; ++o) {
      total.scale[o] *= affine->second.scale[o];
      total.shift[o] =
          total.shift[o] * affine->second.scale[o] + affine->second.shift[o];
    }
    chain.push_back(user);
    v = user->getResult(0);
  }
  return {std::move(total), std::move(chain)};
}

/// Replaces the uses of the last op of `chain` (which follows `producer`'s
/// only result) by that result, erases the chain and fuses its locations
/// into the producer's.
void replaceChain(Operation *producer, ArrayRef<Operation *> chain,
                  OpBuilder &b) {
  fuseLocations(producer, chain, b);
  chain.back()->getResult(0).replaceAllUsesWith(producer->getResult(0));
  for (Operation *op : llvm::reverse(chain))
    op->erase();
}

/// conv -> y = x * s + t (graph.mul/add/sub/div by per-output-channel
/// constants, the conv's only user)  ==>  conv with W'[m] = W[m] * s[m],
/// b'[m] = b[m] * s[m] + t[m]; repeated along a chain of such ops (PP-OCRv4
/// det's learnable affine blocks after each conv).
bool foldAffineIntoConv(ConvOp conv, OpBuilder &b) {
  RankedTensorType wType = staticF32(conv.getWeight().getType());
  if (!wType)
    return false;
  auto [total, chain] = affineChainAfter(conv.getResult(), wType.getDimSize(0));
  if (chain.empty() || !scaleConvOutputs(conv, total.scale, total.shift, b))
    return false;
  replaceChain(conv, chain, b);
  return true;
}

/// conv_transpose -> y = x * s + t (as for foldAffineIntoConv: a chain of
/// per-output-channel affine ops, batch norms among them after
/// toScaleShift, a bias add)  ==>  conv_transpose with W'[c, j] = W[c, j] *
/// s[m] for output channel m = g * M/G + j of input channel c's group g,
/// b'[m] = b[m] * s[m] + t[m]. The DB text detectors' head (PP-OCR det:
/// ConvTranspose, bias add, BatchNorm, ReLU) then leaves only the ReLU to
/// the kernel's epilogue, and the bias to its accumulators' start.
bool foldAffineIntoConvTranspose(ConvTransposeOp ct, OpBuilder &b) {
  RankedTensorType wType = staticF32(ct.getWeight().getType());
  RankedTensorType outType = staticF32(ct.getType());
  int64_t group = ct.getGroup();
  if (!wType || !outType || wType.getRank() < 3 || group < 1 ||
      outType.getRank() != wType.getRank() || wType.getDimSize(0) % group)
    return false;
  int64_t m = outType.getDimSize(1), perGroupOut = wType.getDimSize(1);
  int64_t inPerGroup = wType.getDimSize(0) / group;
  if (m != group * perGroupOut)
    return false;
  auto [total, chain] = affineChainAfter(ct.getResult(), m);
  if (chain.empty())
    return false;
  auto w = constantF32(ct.getWeight());
  if (!w)
    return false;
  SmallVector<double> bias(m, 0.0);
  if (ct.getBias()) {
    auto cb = constantF32(ct.getBias());
    if (!cb || static_cast<int64_t>(cb->size()) != m)
      return false;
    bias = *cb;
  }
  int64_t per = w->size() / (wType.getDimSize(0) * perGroupOut);
  for (int64_t c = 0; c < wType.getDimSize(0); ++c)
    for (int64_t j = 0; j < perGroupOut; ++j) {
      int64_t o = (c / inPerGroup) * perGroupOut + j;
      for (int64_t k = 0; k < per; ++k)
        (*w)[(c * perGroupOut + j) * per + k] *= total.scale[o];
    }
  for (int64_t o = 0; o < m; ++o)
    bias[o] = bias[o] * total.scale[o] + total.shift[o];
  setConvConstants(ct, *w, bias, b);
  replaceChain(ct, chain, b);
  return true;
}

/// y = x * s + t (per-input-channel constants, a chain of graph.mul/add/
/// sub/div whose every value only the next reads) -> conv without padding
///   ==>  conv of x with W'[m, c, k] = W[m, c, k] * s[c] and
///        b'[m] = b[m] + sum over c, k of W[m, c, k] * t[c].
/// Without padding every input the conv reads is an affine value (with
/// padding, the zeros at the border would not be). PP-OCRv4 det's 1x1
/// convs then take the learnable affine block and the division by 6 of the
/// HardSwish before them.
bool foldAffineIntoConvInput(ConvOp conv, OpBuilder &b) {
  if (llvm::any_of(conv.getPads(), [](int64_t p) { return p != 0; }))
    return false;
  RankedTensorType xType = staticF32(conv.getInput().getType());
  RankedTensorType wType = staticF32(conv.getWeight().getType());
  if (!xType || !wType || xType.getRank() != wType.getRank() ||
      conv.getGroup() < 1)
    return false;
  int64_t channels = xType.getDimSize(1), m = wType.getDimSize(0);
  int64_t group = conv.getGroup(), perGroupIn = wType.getDimSize(1);
  if (channels != group * perGroupIn || m % group)
    return false;
  // conv input = x * scale + shift, composed from the conv outwards.
  ChannelAffine total{SmallVector<double>(channels, 1.0),
                      SmallVector<double>(channels, 0.0)};
  Value x = conv.getInput();
  SmallVector<Operation *> chain;
  while (x.hasOneUse()) {
    auto affine = channelAffine(x.getDefiningOp());
    if (!affine)
      break;
    for (int64_t c = 0; c < channels; ++c) {
      total.shift[c] += total.scale[c] * affine->second.shift[c];
      total.scale[c] *= affine->second.scale[c];
    }
    chain.push_back(x.getDefiningOp());
    x = affine->first;
  }
  if (chain.empty())
    return false;
  auto constants = convConstants(conv);
  if (!constants)
    return false;
  auto &[w, bias] = *constants;
  int64_t per = w.size() / (m * perGroupIn), outPerGroup = m / group;
  for (int64_t o = 0; o < m; ++o) {
    double sum = 0.0;
    for (int64_t j = 0; j < perGroupIn; ++j) {
      int64_t c = (o / outPerGroup) * perGroupIn + j;
      for (int64_t k = 0; k < per; ++k) {
        double &wv = w[(o * perGroupIn + j) * per + k];
        sum += wv * total.shift[c];
        wv *= total.scale[c];
      }
    }
    bias[o] += sum;
  }
  setConvConstants(conv, w, bias, b);
  fuseLocations(conv, chain, b);
  conv.getInputMutable().assign(x);
  for (Operation *op : chain)
    op->erase();
  return true;
}

/// mul/div(mul/div(x, k1), k2) with single-element constants k1, k2 and an
/// inner result only the outer op reads  ==>  mul(x, k) with k = k1 * k2
/// (or the quotients): HardSwish's division by 6 and the scale of the
/// learnable affine block after it become one multiplication.
bool combineScalings(Operation *outer, OpBuilder &b) {
  auto factor = [](Operation *op) -> std::optional<std::pair<Value, double>> {
    if (!isa_and_nonnull<MulOp, DivOp>(op))
      return std::nullopt;
    RankedTensorType type = staticF32(op->getResult(0).getType());
    if (!type)
      return std::nullopt;
    for (unsigned i = 0; i < (isa<MulOp>(op) ? 2u : 1u); ++i) {
      Value x = op->getOperand(i), k = op->getOperand(1 - i);
      auto v = constantF32(k);
      if (x.getType() != type || !v || v->size() != 1 ||
          !std::isfinite(v->front()) || (isa<DivOp>(op) && v->front() == 0.0))
        continue;
      return std::make_pair(x, isa<DivOp>(op) ? 1.0 / v->front() : v->front());
    }
    return std::nullopt;
  };
  auto o = factor(outer);
  if (!o)
    return false;
  Operation *innerOp = o->first.getDefiningOp();
  auto i = factor(innerOp);
  if (!i || !innerOp->hasOneUse())
    return false;
  b.setInsertionPoint(outer);
  Location loc = b.getFusedLoc({innerOp->getLoc(), outer->getLoc()});
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Value k = ConstantOp::create(b, loc, scalar,
                               toAttr(scalar, {o->second * i->second}));
  Value result =
      MulOp::create(b, loc, outer->getResult(0).getType(), i->first, k);
  outer->getResult(0).replaceAllUsesWith(result);
  outer->erase();
  innerOp->erase();
  return true;
}

/// transpose(constant)  ==>  constant.
bool foldTranspose(TransposeOp op, OpBuilder &b) {
  DenseElementsAttr attr;
  auto outType = dyn_cast<RankedTensorType>(op.getType());
  if (!outType || !outType.hasStaticShape() ||
      !matchPattern(op.getInput(), m_Constant(&attr)))
    return false;
  ArrayRef<int64_t> perm = op.getPerm();
  ArrayRef<int64_t> inShape = attr.getType().getShape();
  int64_t rank = inShape.size();
  if (static_cast<int64_t>(perm.size()) != rank)
    return false;
  DenseElementsAttr result;
  if (attr.isSplat()) {
    result = attr.resizeSplat(outType);
  } else {
    SmallVector<int64_t> inStrides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      inStrides[d] = inStrides[d + 1] * inShape[d + 1];
    ArrayRef<int64_t> outShape = outType.getShape();
    int64_t n = outType.getNumElements();
    auto values = attr.getValues<Attribute>();
    SmallVector<Attribute> out;
    out.reserve(n);
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t src = 0;
      for (int64_t d = 0; d < rank; ++d)
        src += idx[d] * inStrides[perm[d]];
      out.push_back(values[src]);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < outShape[d])
          break;
        idx[d] = 0;
      }
    }
    result = DenseElementsAttr::get(outType, out);
  }
  b.setInsertionPoint(op);
  Value c = ConstantOp::create(b, op.getLoc(), outType, result);
  op.getResult().replaceAllUsesWith(c);
  op.erase();
  return true;
}

struct SimplifyGraphPass
    : public tfrt::graph::impl::SimplifyGraphBase<SimplifyGraphPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<BatchNormOp, TransposeOp, IdentityOp, GlobalAveragePoolOp, AddOp>(
              op))
        ops.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *op : ops) {
      if (auto bn = dyn_cast<BatchNormOp>(op)) {
        if (!foldIntoConv(bn, b))
          (void)toScaleShift(bn, b);
      } else if (auto add = dyn_cast<AddOp>(op)) {
        (void)factorScaledSum(add, b);
      } else if (auto pool = dyn_cast<GlobalAveragePoolOp>(op)) {
        (void)poolBeforeConv(pool, b);
      } else if (auto t = dyn_cast<TransposeOp>(op)) {
        (void)foldTranspose(t, b);
      } else if (auto id = dyn_cast<IdentityOp>(op)) {
        if (id.getInput().getType() == id.getType()) {
          id.getResult().replaceAllUsesWith(id.getInput());
          id.erase();
        }
      }
    }
    // Then affine ops by constants after and before convolutions go into
    // the weights (batch norms above became conv weights or such ops), and
    // what stays of them in chains of scalings is combined (see Passes.td).
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) { convs.push_back(conv); });
    for (ConvOp conv : convs)
      (void)foldAffineIntoConv(conv, b);
    for (ConvOp conv : convs)
      (void)foldAffineIntoConvInput(conv, b);
    SmallVector<ConvTransposeOp> convTransposes;
    getOperation().walk(
        [&](ConvTransposeOp ct) { convTransposes.push_back(ct); });
    for (ConvTransposeOp ct : convTransposes)
      (void)foldAffineIntoConvTranspose(ct, b);
    SmallVector<Operation *> scalings;
    getOperation().walk([&](Operation *op) {
      if (isa<MulOp, DivOp>(op))
        scalings.push_back(op);
    });
    // In program order (an inner op before its outer one), skipping the
    // ops that a combination erased.
    DenseSet<Operation *> erased;
    for (Operation *op : scalings) {
      if (erased.contains(op))
        continue;
      Operation *inner = op->getOperand(0).getDefiningOp();
      Operation *inner1 = op->getOperand(1).getDefiningOp();
      if (combineScalings(op, b)) {
        erased.insert(op);
        erased.insert(inner);
        erased.insert(inner1);
      }
    }
    // Weights replaced above are dead now.
    getOperation().walk([&](ConstantOp c) {
      if (c->use_empty())
        c.erase();
    });
  }
};
} // namespace

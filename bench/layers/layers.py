#!/usr/bin/python3
"""Per-layer efficiency of a model's dense convolutions as they run inside
the compiled model: reads the ONNX model (to know which nodes are dense
convolutions, their kernels, channels and output sizes) and the
`tfrt-run --profile-json` files of several rounds of a profiling build, and
prints, for every dense Conv (group 1) that has a launch or kernel entry of
its own, the median time per run over the rounds, GFLOP/s and % of the peak
(per round against the peak measured just before it, the median over the
rounds).

usage: layers.py MODEL.onnx INPUT=SHAPE --peaks P1,P2,... --min-pct 85
                 [--json OUT.json] [--markdown OUT.md] PROFILE.json...

A layer's time is that of the profile entries that carry its node and
whose FLOPs add up to the layer's (2 per multiply-accumulate): the launch
that runs the convolution and any tail loops split off from it (the
compiler shares a kernel's FLOPs between the entries that run it), not its
padding, copies or epilogue. A layer whose convolution runs its
elementwise epilogue in its own kernel (`--fuse-epilogues`: the launch also
carries the activation's nodes and their FLOPs) is timed by those
launches whole, epilogue included, against the convolution's FLOPs alone
(marked "+ epilogue"). A layer whose convolution shares its launch with
another heavy node (a convolution or matrix product) is listed as such,
without a figure. A layer whose launch runs "winograd" (tfrt-winograd-conv)
is listed with its figure as an equivalent direct convolution's and not
counted: its own multiply-adds are fewer than the FLOPs it is divided by.
"""
import argparse
import itertools
import json
import statistics
import sys

import onnx
from onnx import shape_inference


def dense_convs(path, input_spec):
    """{node name: {k, cin, cout, out, stride, flops}} for group-1 Convs."""
    name, dims = input_spec.split("=")
    dims = [int(d) for d in dims.split("x")]
    model = onnx.load(path)
    for i in model.graph.input:
        if i.name == name:
            for d, v in zip(i.type.tensor_type.shape.dim, dims):
                d.ClearField("dim_param")
                d.dim_value = v
    model = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in (list(model.graph.value_info) + list(model.graph.input) +
               list(model.graph.output)):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    weights = {t.name: list(t.dims) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    weights[n.output[0]] = list(a.t.dims)
    convs = {}
    heavy = {n.name for n in model.graph.node
             if n.op_type in ("Conv", "ConvTranspose", "MatMul", "Gemm")}
    for n in model.graph.node:
        if n.op_type != "Conv":
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        if attrs.get("group", 1) != 1:
            continue
        w = weights.get(n.input[1]) or shapes.get(n.input[1])
        out = shapes.get(n.output[0])
        if not w or not out or len(w) != 4 or len(out) != 4:
            continue
        macs = out[0] * out[1] * out[2] * out[3] * w[1] * w[2] * w[3]
        convs[n.name] = {
            "kernel": "%dx%d" % (w[2], w[3]),
            "stride": attrs.get("strides", [1, 1])[0],
            "cin": w[1],
            "cout": w[0],
            "out": "%dx%d" % (out[2], out[3]),
            "flops": 2 * macs,
        }
    return convs, heavy


def markdown_table(layers, min_pct):
    """Markdown lines of a table of `layers` (rows of the JSON result, timed
    ones with "pct"), figures at or above `min_pct` in bold. Shared with
    bench/report.py."""
    lines = ["| layer | kernel | in -> out channels | output | ms | GFLOP/s | % of peak |",
             "|---|---|---|---|---|---|---|"]
    for r in layers:
        head = "| %s | %s s%d%s%s | %d -> %d | %s |" % (
            r["layer"].replace("p2o.", ""), r["kernel"], r["stride"],
            " + epilogue" if r.get("epilogue") else "",
            " Winograd" if r.get("winograd") else "", r["cin"],
            r["cout"], r["out"])
        if "pct" in r:
            pct = "%.1f%%" % r["pct"]
            if r.get("winograd"):
                pct = "(%s as direct; not counted)" % pct
            elif r["pct"] >= min_pct:
                pct = "**%s**" % pct
            lines.append("%s %.3f | %.1f | %s |" % (head, r["ms"], r["gflops"], pct))
        else:
            if r.get("with"):
                why = "in one launch with %s" % ", ".join(
                    w.replace("p2o.", "") for w in r["with"])
            elif r.get("shared"):
                why = "in a launch with other nodes' work"
            else:
                why = "no entry of its own"
            lines.append("%s %s | - | - |" % (head, why))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("input")
    ap.add_argument("--peaks", required=True)
    ap.add_argument("--min-pct", type=float, default=85.0)
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    ap.add_argument("profiles", nargs="+")
    args = ap.parse_args()

    convs, heavy = dense_convs(args.model, args.input)
    peaks = [float(p) for p in args.peaks.split(",") if p]
    peak = statistics.median(peaks)
    if len(peaks) != len(args.profiles):
        sys.exit("layers.py: %d peaks for %d profiles" % (len(peaks), len(args.profiles)))

    def pct_of_peaks(flops, round_ms):
        """% of peak: the median over rounds of the round's GFLOP/s over the
        peak measured just before that round (this VM's clock and
        neighbours change within minutes)."""
        return statistics.median(100 * flops / (ms * 1e-3) / 1e9 / p
                                 for ms, p in zip(round_ms, peaks))
    times = {n: [] for n in convs}  # ms per run, one per round
    shared = set()
    # The other convolutions or products in a shared layer's launches (a
    # depthwise conv fused with its 1x1 consumer by tfrt-fuse-conv-bands).
    others = {n: set() for n in convs}
    fused = set()  # timed with their epilogue
    # Run as Winograd F(m x m, 3x3) (tfrt-winograd-conv tags its launch):
    # their FLOPs, the direct convolution's, give an equivalent rate that
    # says nothing about how close their multiply-adds run to the peak.
    winograd = set()
    for path in args.profiles:
        prof = json.load(open(path))
        runs = prof["runs"]
        carrying = {n: [] for n in convs}
        for e in prof["entries"]:
            for n in e["nodes"]:
                if n in convs and e["flops"] > 0 and e["calls"] == runs:
                    carrying[n].append(e)
        for n, entries in carrying.items():
            if any("winograd" in e.get("ops", []) for e in entries):
                winograd.add(n)
            # The entries that run the convolution: those whose FLOPs (per
            # call; a layer runs once per run) add up to the layer's, its
            # main loops and any tail loops the compiler split off (the
            # compiler splits a kernel's FLOPs between them by their work).
            # Epilogues fused under the same node carry other FLOPs.
            found = None
            for size in range(1, min(len(entries), 6) + 1):
                for subset in itertools.combinations(entries, size):
                    if sum(e["flops"] for e in subset) == convs[n]["flops"]:
                        found = subset
                        break
                if found:
                    break
            if found:
                times[n].append(sum(e["ns"] for e in found) / 1e6 / runs)
                continue
            # A fused epilogue: every entry that carries the convolution
            # carries no other heavy node, and together they carry at least
            # its FLOPs (the rest are the epilogue's elementwise ones).
            alone = all(not (set(e["nodes"]) - {n}) & heavy for e in entries)
            if alone and entries and \
                    sum(e["flops"] for e in entries) >= convs[n]["flops"]:
                times[n].append(sum(e["ns"] for e in entries) / 1e6 / runs)
                fused.add(n)
            elif any(e["flops"] > convs[n]["flops"] for e in entries):
                shared.add(n)
                for e in entries:
                    others[n].update(set(e["nodes"]) & heavy - {n})
    rows = []
    for n, c in convs.items():
        t = times[n]
        row = dict(c, layer=n, rounds=len(t))
        if len(t) == len(args.profiles):
            ms = statistics.median(t)
            gflops = c["flops"] / (ms * 1e-3) / 1e9
            row.update(ms=round(ms, 4), round_ms=[round(x, 4) for x in t],
                       gflops=round(gflops, 1),
                       pct=round(pct_of_peaks(c["flops"], t), 1),
                       epilogue=n in fused, winograd=n in winograd)
        else:
            row["shared"] = n in shared
            if others[n]:
                row["with"] = sorted(others[n])
        rows.append(row)
    # Squeeze-excitation convs on 1x1 maps are matrix-vector products
    # (every weight used once): listed apart, not counted.
    gemv = [r for r in rows if r["out"] == "1x1"]
    rows = [r for r in rows if r["out"] != "1x1"]
    timed = [r for r in rows if "pct" in r]
    timed.sort(key=lambda r: -r["ms"])
    untimed = [r for r in rows if "pct" not in r]
    # The Winograd layers are listed but counted apart (see above).
    wino = [r for r in timed if r.get("winograd")]
    timed = [r for r in timed if not r.get("winograd")]
    met = [r for r in timed if r["pct"] >= args.min_pct]
    gemv_ms = sum(r.get("ms", 0) for r in gemv)
    # All timed layers together: their FLOPs over their time (layers
    # weighted by their work, beside the per-layer count).
    total_ms = sum(r["ms"] for r in timed)
    total_flops = sum(r["flops"] for r in timed)
    weighted_pct = (pct_of_peaks(total_flops,
                                 [sum(r["round_ms"][i] for r in timed)
                                  for i in range(len(args.profiles))])
                    if total_ms > 0 else 0.0)

    wino_ms = sum(r["ms"] for r in wino)
    wino_flops = sum(r["flops"] for r in wino)
    lines = markdown_table(timed + wino + untimed, args.min_pct)
    summary = ("%d of %d timed dense conv layers at >= %.0f%% of peak (each "
               "round against the peak measured before it, median %.1f GFLOP/s; "
               "median of %d rounds; peaks %s); all timed layers together "
               "%.1f%% of peak (%.3f ms, %.1f MFLOP); %d untimed (in one launch "
               "with another convolution, or no entry of their own); %d "
               "squeeze-excitation convs on 1x1 maps "
               "(matrix-vector products) not counted, %.3f ms together; %d "
               "layers run as Winograd F(m x m, 3x3) not counted either "
               "(%.3f ms together, %.1f MFLOP of direct convolution)" % (
                   len(met), len(timed), args.min_pct, peak, len(args.profiles),
                   ", ".join("%.1f" % p for p in peaks), weighted_pct, total_ms,
                   total_flops / 1e6, len(untimed), len(gemv), gemv_ms,
                   len(wino), wino_ms, wino_flops / 1e6))
    print("\n".join(lines))
    print()
    print(summary)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n\n" + summary + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peak_gflops": peak, "peaks": peaks,
                       "min_pct": args.min_pct, "rounds": len(args.profiles),
                       "layers_at_min": len(met), "layers_timed": len(timed),
                       "weighted_pct": round(weighted_pct, 1),
                       "timed_ms": round(total_ms, 4),
                       "timed_flops": total_flops,
                       "winograd_layers": len(wino),
                       "winograd_ms": round(wino_ms, 4),
                       "layers": timed + wino + untimed,
                       "matrix_vector_layers": gemv}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

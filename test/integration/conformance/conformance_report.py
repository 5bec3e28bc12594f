"""Reports of run_conformance.py: docs/conformance.json and docs/conformance.md.

to_json() builds the machine-readable report from the run's tests;
to_markdown() and summary_text() render it (from the JSON data only, so the
Markdown can be regenerated from a saved JSON: `conformance_report.py
conformance.json > conformance.md`; `--summary` prints the summary).
"""

import collections
import json
import sys

PASS = "passed"
PASS_SPEC = "passed (specialised)"
FAIL = "failed"


def to_json(tests, meta):
    rows = []
    for t in sorted(tests, key=lambda t: (t.folder, t.name)):
        row = collections.OrderedDict()
        row["test"] = t.name
        row["folder"] = t.folder
        row["status"] = t.status
        row["ops"] = t.ops
        if t.status == FAIL:
            row["category"] = t.category
            row["reason"] = t.reason
            if t.detail:
                row["detail"] = t.detail
            if t.unsupported_ops:
                row["unsupported_ops"] = t.unsupported_ops
        if t.specialised:
            row["specialised"] = t.specialised
        rows.append(row)
    data = collections.OrderedDict()
    data["meta"] = meta
    data["summary"] = summarise(rows)
    data["tests"] = rows
    return data


def summarise(rows):
    def count(rs):
        return collections.OrderedDict([
            ("total", len(rs)),
            ("passed", sum(r["status"] == PASS for r in rs)),
            ("passed_specialised", sum(r["status"] == PASS_SPEC for r in rs)),
            ("failed", sum(r["status"] == FAIL for r in rs)),
        ])
    s = collections.OrderedDict()
    s["all"] = count(rows)
    folders = []
    for r in rows:
        if r["folder"] not in folders:
            folders.append(r["folder"])
    s["folders"] = collections.OrderedDict((f, count([r for r in rows if r["folder"] == f]))
                                           for f in folders)
    cats = collections.Counter(r["category"] for r in rows if r["status"] == FAIL)
    s["categories"] = collections.OrderedDict(cats.most_common())
    unsup = collections.Counter(op for r in rows for op in r.get("unsupported_ops", []))
    s["unsupported_ops"] = collections.OrderedDict(
        sorted(unsup.items(), key=lambda kv: (-kv[1], kv[0])))
    return s


def per_op(rows, supported):
    table = collections.OrderedDict()
    for op in sorted({o for r in rows for o in r["ops"]}):
        mine = [r for r in rows if op in r["ops"]]
        table[op] = {
            "supported": op in supported,
            "tests": len(mine),
            "passed": sum(r["status"] == PASS for r in mine),
            "passed_specialised": sum(r["status"] == PASS_SPEC for r in mine),
            "unsupported": sum(r["status"] == FAIL and bool(r.get("unsupported_ops"))
                               for r in mine),
            "failed": sum(r["status"] == FAIL and not r.get("unsupported_ops")
                          for r in mine),
        }
    return table


def pct(n, d):
    return "%.1f%%" % (100.0 * n / d) if d else "-"


def summary_text(data):
    s = data["summary"]
    lines = ["Summary (passed / passed specialised / failed of total):"]
    for f, c in list(s["folders"].items()) + [("all", s["all"])]:
        lines.append("  %-18s %4d / %4d / %4d of %4d" % (
            f, c["passed"], c["passed_specialised"], c["failed"], c["total"]))
    a = s["all"]
    ref = data["meta"]["reference"]
    lines.append("  tfrt-compile: %d/%d = %s pass; %s: %d/%d = %s" % (
        a["passed"] + a["passed_specialised"], a["total"],
        pct(a["passed"] + a["passed_specialised"], a["total"]),
        ref["name"], ref["passed"], ref["total"], pct(ref["passed"], ref["total"])))
    lines.append("Failure categories:")
    for cat, n in s["categories"].items():
        lines.append("  %4d  %s" % (n, cat))
    top = list(s["unsupported_ops"].items())[:15]
    if top:
        lines.append("Most frequent unsupported ops (tests): " +
                     ", ".join("%s %d" % kv for kv in top))
    lines.append("Suite wall time: %.0fs with %d jobs%s" % (
        data["meta"]["wall_s"], data["meta"]["jobs"],
        " (CPU time %.0fs)" % data["meta"]["cpu_s"]
        if "cpu_s" in data["meta"] else ""))
    return "\n".join(lines)


def md_escape(text):
    return text.replace("|", "\\|").replace("\n", " ")


METHOD = """\
## Method

`scripts/conformance.sh` runs `test/integration/conformance/run_conformance.py`
on every test directory of the ONNX backend test data shipped by Debian's
`libonnx-testdata` (`/usr/share/libonnx-testdata/data/{FOLDERS}`). For each
test:

1. `tfrt-compile model.onnx --name m -o WORK --emit=shared` (ahead of time,
   static shapes).
2. For every `test_data_set_N`: `tfrt-run WORK/m.so --input NAME=input_K.pb ...
   --output-dir OUT`, where input K is the K-th graph input that is not an
   initializer.
3. Each `OUT/<output>.npy` is compared with `output_K.pb` of the test data
   (numpy): shape and dtype must be equal; floating-point values within the
   ONNX backend tolerances (`|actual - expected| <= atol + rtol * |expected|`,
   rtol {RTOL}, atol {ATOL}, NaN where NaN is expected); other types exactly.
   bfloat16 outputs are compared within one bfloat16 ulp (rtol 2^-7).
   Per-test exceptions: {EXCEPTIONS}.

The expected values are the ones in the ONNX test data (computed by ONNX's
reference implementation or by PyTorch); nothing is compared against values
tfrt-compile produced.

**Specialisation.** An ahead-of-time compiler needs static shapes. Where a
graph input fixes a result's shape (Reshape's `shape`, Slice's `starts`/`ends`,
Unsqueeze's `axes`, ...; the `SHAPE_OPERANDS` table of
`test/integration/onnx-node/run_node_tests.py`; also Loop's trip count and
CumSum's axis, which fix the unrolled structure), or is an integer input of
rank <= 1 or a float scalar from which such an operand is computed (a window
size that reaches Range's `limit` through Cast and arithmetic, Range's
`start`/`limit`/`delta` turned into a Loop trip count; Shape and Size end the
search, since they read only shapes), the runner turns it into an
initializer holding the data set's value before compiling, and inputs with
symbolic dimensions get `--input-shape` from the data set. Tests that pass
this way are counted as **passed (specialised)**, in a column of their own,
and the list below says what was specialised. `--no-specialise` runs the
models unchanged.

**Isolation.** Tests run in parallel ({JOBS} jobs here), each in its own work
directory, each tool in its own process group; a test gets {TIMEOUT}s for its
compilation(s) and runs together, after which its processes are killed
("timeout"; a test of the floor list that times out runs once more, alone,
before it counts as a regression). A crash, hang or error is that test's
result only.

**Reasons.** Every test that does not pass gets one category and a specific
reason, chosen in this order: what the model's signature rules out
(`sequence/optional types`, `string tensors`, `training op`,
`data-dependent output shape` for NonZero, Unique, NonMaxSuppression,
Compress; the compiler's own message is then in the JSON's `detail`), then
`op not supported` (every op of tfrt-compile's `unsupported op 'X'`
diagnostics, plus the model's ops that `tfrt-compile --list-ops` lacks when
the compilation failed), then `dtype` (float16, bfloat16, complex, ... in the
graph's inputs/outputs; the underlying failure is in `detail`), then the
failure itself: `compile error` (first error line), `compile crash`,
`static shape not inferred`, `timeout`, `run error`, `run crash`,
`wrong output shape`, `wrong output dtype`, `numerical mismatch` (max abs
diff, number of elements outside the tolerance), `wrong values`
(integer/bool outputs), `test data` (the data set contradicts the model,
e.g. an input shape other than the declared one).

**CI floor.** `test/integration/conformance/passing.txt` lists the tests that
pass. ctest's `e2e.conformance` runs the whole suite (on an idle 2-core
machine about half the CPU time above; the wall time above is longer when
other work shares the machine; it grows with the number of passing tests,
since only they are linked and run) and
fails if one of them does not pass; new passes are listed in its output, and
`scripts/conformance.sh --update-floor` adds them to the list. Running the
whole suite rather than only the floor keeps `.ci/run` (build, unit, lit,
conformance, PP-OCR, examples) well under its 60-minute limit and reports
every new pass; it replaced the former `e2e.onnx-node` (node tests of a fixed
op list), which it covers.

**Reference.** The ONNX Runtime figure is the one quoted for this suite in
the issue that asked for this report, not measured here.

## Regenerating this file

```
scripts/conformance.sh                 # whole suite; rewrites docs/conformance.{{md,json}}
scripts/conformance.sh --update-floor  # the same, and adds new passes to passing.txt
scripts/conformance.sh --filter 'node/test_(relu|conv)'   # a subset; docs untouched
```

It uses the tools of `build/` (`TFRT_BUILD_DIR`), copied first so that a
rebuild during the run does not mix two compilers, runs on all cores
(`TFRT_CONFORMANCE_JOBS`) and ends with the line `N passed, N failed`
(passed includes passed (specialised)). `docs/conformance.json` holds, per
test: `folder`, `test`, `status` (`passed`, `passed (specialised)`, `failed`),
`ops`, and for failures `category`, `reason`, `detail`, `unsupported_ops`;
`specialised` says what a specialised test had fixed.
"""


def to_markdown(data):
    meta, s, rows = data["meta"], data["summary"], data["tests"]
    out = []
    w = out.append
    w("# ONNX backend conformance\n")
    w("Generated by `scripts/conformance.sh` on %s with `%s`, source tree at %s "
      "(%d ONNX ops supported). Do not edit: rerun the script.\n" % (
          meta["generated"], meta["tfrt_compile_version"], meta.get("source", "unknown"),
          len(meta["supported_ops"])))
    w("## Summary\n")
    w("| folder | tests | passed | passed (specialised) | failed | pass rate |")
    w("|---|---:|---:|---:|---:|---:|")
    for f, c in list(s["folders"].items()) + [("**all**", s["all"])]:
        ok = c["passed"] + c["passed_specialised"]
        w("| %s | %d | %d | %d | %d | %s |" % (f, c["total"], c["passed"],
                                               c["passed_specialised"], c["failed"],
                                               pct(ok, c["total"])))
    a = s["all"]
    ok = a["passed"] + a["passed_specialised"]
    ref = meta["reference"]
    w("")
    w("**Compared with %s:** %s passes %d/%d = %s of the same suite; tfrt-compile "
      "passes %d/%d = %s (%d plain + %d specialised)." % (
          ref["name"], ref["name"], ref["passed"], ref["total"],
          pct(ref["passed"], ref["total"]), ok, a["total"], pct(ok, a["total"]),
          a["passed"], a["passed_specialised"]))
    w("")
    w("Suite wall time: %.0f s with %d parallel jobs on %d CPUs (per-test timeout %d s)%s."
      % (meta["wall_s"], meta["jobs"], meta["cpus"], meta["timeout_s"],
         "; CPU time %.0f s (runner and tools), machine load average %.1f at the end"
         % (meta["cpu_s"], meta["load_avg_1min"]) if "cpu_s" in meta else ""))
    w("")
    w("### Why tests do not pass\n")
    w("| category | tests |")
    w("|---|---:|")
    for cat, n in s["categories"].items():
        w("| %s | %d |" % (cat, n))
    w("")
    if s["unsupported_ops"]:
        w("Ops tfrt-compile reported as unsupported, with the number of tests "
          "that need them (a test can need several):\n")
        w(", ".join("%s (%d)" % kv for kv in s["unsupported_ops"].items()))
        w("")
    w(METHOD.format(FOLDERS=",".join(meta["folders"]), RTOL=meta["rtol"], ATOL=meta["atol"],
                    EXCEPTIONS=("; ".join("`%s` rtol %g atol %g (%s)" % (
                        k, v["rtol"], v["atol"], v["why"])
                        for k, v in meta["tolerance_exceptions"].items()) or "none"),
                    JOBS=meta["jobs"], TIMEOUT=meta["timeout_s"]))
    w("## Per op\n")
    w("Every ONNX op used by some test model, over the tests whose model uses it. "
      "*unsupported*: not passing because tfrt-compile reported some op of the model "
      "(this one or another) as unsupported; *failed*: not passing for another "
      "reason. *supported*: listed by `tfrt-compile --list-ops`.\n")
    w("| op | supported | tests | passed | passed (specialised) | failed | unsupported |")
    w("|---|:-:|---:|---:|---:|---:|---:|")
    for op, c in per_op(rows, set(meta["supported_ops"])).items():
        w("| %s | %s | %d | %d | %d | %d | %d |" % (
            op, "yes" if c["supported"] else "", c["tests"], c["passed"],
            c["passed_specialised"], c["failed"], c["unsupported"]))
    w("")
    spec = [r for r in rows if r["status"] == PASS_SPEC]
    w("## Passed (specialised)\n")
    if spec:
        w("| folder | test | specialised at compile time |")
        w("|---|---|---|")
        for r in spec:
            w("| %s | %s | %s |" % (r["folder"], r["test"], md_escape(", ".join(r["specialised"]))))
    else:
        w("None.")
    w("")
    w("## Tests that do not pass\n")
    for folder in s["folders"]:
        bad = [r for r in rows if r["folder"] == folder and r["status"] == FAIL]
        w("### %s (%d)\n" % (folder, len(bad)))
        if not bad:
            w("None.\n")
            continue
        w("| test | category | reason |")
        w("|---|---|---|")
        for r in bad:
            w("| %s | %s | %s |" % (r["test"], r["category"], md_escape(r["reason"])))
        w("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv):
    """conformance_report.py [--summary] REPORT.json: prints the Markdown
    report (or the summary and the `N passed, N failed` line)."""
    summary = "--summary" in argv
    paths = [a for a in argv if a != "--summary"]
    if len(paths) != 1:
        sys.stderr.write("usage: conformance_report.py [--summary] REPORT.json\n")
        return 2
    with open(paths[0]) as fh:
        data = json.load(fh, object_pairs_hook=collections.OrderedDict)
    if summary:
        a = data["summary"]["all"]
        ok = a["passed"] + a["passed_specialised"]
        print(summary_text(data))
        print("%d passed, %d failed" % (ok, a["total"] - ok))
    else:
        sys.stdout.write(to_markdown(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

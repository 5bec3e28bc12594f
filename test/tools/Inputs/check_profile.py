"""Checks a tfrt-run --profile-json dump against the model's metadata:
every entry was called once per run, the counters add up to at most the
run time, and the convolutions carry exactly 2 * MACs.

usage: check_profile.py PROFILE.json METADATA.json RUNS NODE=FLOPS...
"""

import json
import sys


def main():
    prof = json.load(open(sys.argv[1]))
    meta = json.load(open(sys.argv[2]))["profile"]
    runs = int(sys.argv[3])
    expected = dict(a.split("=") for a in sys.argv[4:])
    assert prof["runs"] == runs, prof["runs"]
    entries = prof["entries"]
    assert len(entries) == len(meta["entries"]), "table sizes differ"
    assert entries[-1]["kind"] == "inline"
    assert sum(e["kind"] == "launch" for e in entries) == meta["launches"]
    for e, m in zip(entries, meta["entries"]):
        assert e["calls"] == runs, (e, runs)
        assert (e["kind"], e["flops"], e["nodes"]) == (
            m["kind"], m["flops"], m["nodes"]), (e, m)
    assert sum(e["ns"] for e in entries) <= prof["run_ns"]
    for node, flops in expected.items():
        owners = [e for e in entries if e["flops"] and e["nodes"][:1] == [node]]
        assert [e["flops"] for e in owners] == [int(flops)], (node, owners)
    kinds = sorted(set(e["kind"] for e in entries))
    print("profile ok: %d entries (%s), %d runs" % (len(entries),
                                                   ", ".join(kinds), runs))


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Prints the parts of a tfrt-compile metadata file (NAME.json) that the lit
tests check, one fact a line, independent of the JSON's layout."""
import json
import sys


def main(path):
    with open(path) as fh:
        meta = json.load(fh)
    for kind in ("inputs", "outputs"):
        for t in meta[kind]:
            print("%s %s %s %s" % (kind[:-1], t["name"], t["dtype"], t["shape"]))
    ws = meta.get("workspace_bytes")
    print("workspace_bytes %s" % ("> 0" if isinstance(ws, int) and ws > 0 else repr(ws)))
    model = meta.get("model", {})
    sha = model.get("sha256") if isinstance(model, dict) else None
    print("model sha256 %s" % (sha or meta.get("model_sha256")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))

"""The tables of scripts/oracle-fixtures.sh and scripts/oracle-blocks.sh,
from the JSON documents `crashsim oracle --format json` wrote (one per
model, one after another in a file).

usage: oracle-table.py fixtures|blocks OUT FS... -- WORKLOAD...

fixtures reads OUT/FS-WORKLOAD.json (plain runs); blocks reads
OUT/FS-WORKLOAD.plain.json and OUT/FS-WORKLOAD.blocks.json and shows the
models named in $MODELS ("own" is the filesystem's own model).
"""
import json
import os
import sys


def docs(path):
    """The documents of one run, by model."""
    text = open(path).read() if os.path.exists(path) else ""
    dec, pos, res = json.JSONDecoder(), 0, []
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        d, pos = dec.raw_decode(text, pos)
        res.append(d)
    return {d["model"]: d for d in res}


def failed(path):
    err = open(path).read().strip().splitlines() if os.path.exists(path) else []
    return "failed: " + (err[-1] if err else "no output")


def fixtures(out, fss, ws):
    print(f"{'workload':<22} {'fs':<6} {'model':<6} {'points':>6} {'observed':>8} {'distinct':>8} {'mismatches':>10} {'precision':>9}")
    for w in ws:
        for fs in fss:
            runs = docs(f"{out}/{fs}-{w}.json")
            if not runs:
                print(f"{w:<22} {fs:<6} {'-':<6} {failed(f'{out}/{fs}-{w}.err')}")
                continue
            for d in runs.values():
                s = d["summary"]
                prec = f"{s['produced']}/{s['predicted']}" if s["predicted"] else "-"
                print(f"{w:<22} {fs:<6} {d['model']:<6} {s['points']:>6} {s['reached']:>8} {s['distinct']:>8} {s['mismatches']:>10} {prec:>9}")


def cell(d):
    if d is None:
        return f"{'-':>5} {'-':>5}"
    s = d["summary"]
    prec = f"{100 * s['produced'] / s['predicted']:.0f}%" if s["predicted"] else "-"
    return f"{s['mismatches']:>5} {prec:>5}"


def blocks(out, fss, ws):
    models = os.environ.get("MODELS", "posix own").split()
    print("mism. = paths outside the predicted set (and unmountable states); prec. = predicted outcomes some state showed")
    print(f"{'workload':<24} {'fs':<6} {'model':<6} {'points':>6} | {'plain':>5} {'':>5} | {'blocks':>5} {'':>5} {'states':>6}")
    print(f"{'':<24} {'':<6} {'':<6} {'':>6} | {'mism.':>5} {'prec.':>5} | {'mism.':>5} {'prec.':>5} {'':>6}")
    for w in ws:
        for fs in fss:
            plain, block = docs(f"{out}/{fs}-{w}.plain.json"), docs(f"{out}/{fs}-{w}.blocks.json")
            if not plain and not block:
                print(f"{w:<24} {fs:<6} {failed(f'{out}/{fs}-{w}.blocks.err')}")
                continue
            for m in models:
                m = fs if m == "own" else m
                p, b = plain.get(m), block.get(m)
                if p is None and b is None:
                    continue
                points = (b or p)["summary"]["points"]
                states = b["summary"]["states"] if b else "-"
                note = ""
                if not b:
                    note = "  blocks " + failed(f"{out}/{fs}-{w}.blocks.err")
                if not p:
                    note += "  plain " + failed(f"{out}/{fs}-{w}.plain.err")
                print(f"{w:<24} {fs:<6} {m:<6} {points:>6} | {cell(p)} | {cell(b)} {states:>6}{note}")

    print()
    print("per point: plain = distinct states the single-snapshot oracle copied (1 when reached);")
    print("blocks = distinct trees at the point + during its call (= distinct in all)")
    print(f"{'workload':<24} {'fs':<6} {'points':>6} {'plain':>6} {'blocks':>7} {'more':>5} {'st/s':>5}  per point (at+during=all)")
    for w in ws:
        for fs in fss:
            plain, block = docs(f"{out}/{fs}-{w}.plain.json"), docs(f"{out}/{fs}-{w}.blocks.json")
            if not block:
                continue
            b = next(iter(block.values()))
            p = next(iter(plain.values()), None)
            pp = p["summary"]["reached"] if p else 0
            bd = sum(x["distinct"] for x in b["points"])
            more = sum(1 for x in b["points"] if x["distinct"] > 1)
            per = " ".join(f"{x['distinctAt']}+{x['distinctDuring']}={x['distinct']}" for x in b["points"])
            print(f"{w:<24} {fs:<6} {b['summary']['points']:>6} {pp:>6} {bd:>7} {more:>5} {b['summary']['statesPerSecond']:>5.1f}  {per}")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("fixtures", "blocks") or "--" not in sys.argv:
        sys.exit(__doc__.strip().splitlines()[4])
    i = sys.argv.index("--")
    {"fixtures": fixtures, "blocks": blocks}[sys.argv[1]](sys.argv[2], sys.argv[3:i], sys.argv[i + 1:])


main()

#!/usr/bin/python3
"""Markdown tables for docs/torch-vs-cann.md from two `aclcts run` results.jsonl files.

Usage: kernels/torch/compare_runs.py TORCH.jsonl EMU.jsonl
Prints: status totals of both runs; when the runs cover several products (--product all), the
same totals per product; the torch run's status differences from the CANN model, counted per
suite case (the case id without its parameter values and product) and direction; worst ULP and
bound units per op x dtype over the cases both runs computed (expected and got status 0), with
non-finite-class mismatches counted apart (their ULP is infinite).
Everything printed comes from the two files; nothing is assumed."""
import collections
import json
import math
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def family(rec):
    parts = rec["id"].split(".")[:-1]  # drop the product
    return ".".join(p for p in parts if "=" not in p)


def device_message(rec):
    m = rec.get("message", "")
    key = 'device message: "'
    if key not in m:
        return ""
    m = m[m.index(key) + len(key):].rstrip('"')
    return m.split(": ", 1)[1] if ": " in m else m


def totals(name, recs):
    c = collections.Counter(r["status"] for r in recs)
    checks = collections.Counter(r["check"] for r in recs if r["status"] != "PASS")
    order = ["PASS", "FAIL", "NOT_SUPPORTED", "WAIVED", "CRASH", "TIMEOUT", "ERROR"]
    cells = " | ".join(str(c.get(s, 0)) for s in order)
    why = ", ".join(f"{k or 'none'}: {v}" for k, v in sorted(checks.items()))
    return f"| {name} | {len(recs)} | {cells} | {why or '-'} |"


def per_product(torch, emu):
    out = ["| product | cases | torch PASS | torch FAIL status | torch FAIL tolerance "
           "| torch other non-pass | emu PASS | emu non-pass |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in sorted({r["product"] for r in torch} | {r["product"] for r in emu}):
        t = [r for r in torch if r["product"] == p]
        e = [r for r in emu if r["product"] == p]
        tc = collections.Counter("PASS" if r["status"] == "PASS" else
                                 r["check"] if r["status"] == "FAIL" and
                                 r["check"] in ("status", "tolerance") else "other" for r in t)
        ep = sum(r["status"] == "PASS" for r in e)
        cases = len(t) if len(t) == len(e) else f"{len(t)} / {len(e)}"
        out.append(f"| {p} | {cases} | {tc['PASS']} | {tc['status']} | {tc['tolerance']} "
                   f"| {tc['other']} | {ep} | {len(e) - ep} |")
    return "\n".join(out)


def status_differences(recs):
    rows = collections.defaultdict(lambda: [0, set()])
    for r in recs:
        if r["check"] != "status":
            continue
        k = (family(r), r["expected_status"], r["got_status"])
        rows[k][0] += 1
        rows[k][1].add(r["dtype"])
        msg = device_message(r)
        if msg:
            rows[k].append(msg)
    out = ["| suite case | CANN model | torch | cases | dtypes | torch's message (first) |",
           "|---|---:|---:|---:|---|---|"]
    for (fam, exp, got), v in sorted(rows.items()):
        msg = v[2] if len(v) > 2 else "(success)" if got == 0 else ""
        msg = msg.replace("|", "\\|")
        out.append(f"| {fam} | {exp} | {got} | {v[0]} | {', '.join(sorted(v[1]))} | {msg} |")
    return "\n".join(out), sum(v[0] for v in rows.values())


def precision(recs, computed_ids):
    agg = {}
    for r in recs:
        if r["id"] not in computed_ids or r.get("worst_ulp") is None:
            continue
        a = agg.setdefault((r["op"], r["dtype"]), {"n": 0, "ulp": 0.0, "bu": 0.0, "nonfinite": 0,
                                                   "fail": 0})
        a["n"] += 1
        if r["status"] == "FAIL" and r["check"] == "tolerance":
            a["fail"] += 1
        u, b = r["worst_ulp"], r["worst_bound_units"]
        u, b = float(u if u is not None else "inf"), float(b if b is not None else "inf")
        if math.isinf(u) or math.isinf(b) or math.isnan(u) or math.isnan(b):
            a["nonfinite"] += 1
            continue
        a["ulp"] = max(a["ulp"], u)
        a["bu"] = max(a["bu"], b)
    return agg


def main():
    torch, emu = load(sys.argv[1]), load(sys.argv[2])
    print("| run | cases | PASS | FAIL | NOT_SUPPORTED | WAIVED | CRASH | TIMEOUT | ERROR "
          "| non-pass by check |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    print(totals("torch", torch))
    print(totals("emu", emu))
    if len({r["product"] for r in torch + emu}) > 1:
        print("\nPer product (cases shows torch / emu when the runs differ):\n")
        print(per_product(torch, emu))
    table, n = status_differences(torch)
    print(f"\nStatus differences of the torch run ({n} cases):\n")
    print(table)
    ok = lambda r: r["expected_status"] == 0 and r["got_status"] == 0
    both = {r["id"] for r in torch if ok(r)} & {r["id"] for r in emu if ok(r)}
    pt, pe = precision(torch, both), precision(emu, both)
    print(f"\nPrecision over the {len(both)} cases both devices computed:\n")
    print("| op | dtype | cases | torch worst ULP | torch worst bound units | torch non-finite "
          "mismatches | torch tolerance FAILs | emu worst ULP | emu worst bound units "
          "| emu non-finite mismatches | emu tolerance FAILs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in sorted(set(pt) | set(pe)):
        t, e = pt.get(k), pe.get(k)
        cell = lambda a: (f"{a['ulp']:.4g} | {a['bu']:.3g} | {a['nonfinite']} | {a['fail']}"
                          if a else "- | - | - | -")
        print(f"| {k[0]} | {k[1]} | {(t or e)['n']} | {cell(t)} | {cell(e)} |")


if __name__ == "__main__":
    main()

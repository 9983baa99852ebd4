#!/usr/bin/env python3
"""tune_sim.py: offline efficiency of cko-tune's strategies.

Replays tuning runs against a table of times per configuration instead of a
GPU: each iteration runs cko-tune, looks its proposals up in the table, and
appends result entries (the fields cko-tune reads) to history.json, as the
pipeline would. A run stops once its best time is within the target of the
table's best (default: 95% of the best's speed, i.e. best_ms / 0.95); we
report the fraction of the space evaluated by then, over several seeds.

The table is a CSV with a header naming at least `ms` and either `hash` or
`variant` and `defines` ("NAME=VALUE" pairs separated by spaces, any order).
An empty `ms` or the word `invalid` marks a configuration that fails
(compile error, wrong result): it counts as evaluated and is recorded as
invalid. Without --table, a synthetic table is made: a smooth bowl in
log2(value) per tunable with pairwise interactions, a factor per variant,
multiplicative noise, and a few failing points. It is only a stand-in until
a table measured on the GPU is at hand.
"""
import argparse
import concurrent.futures
import csv
import hashlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile


def run_tune(tune, args):
    r = subprocess.run([tune] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, CKO_QUIET="1"))
    if r.returncode != 0:
        sys.exit("tune_sim: %s %s: exit %d: %s" % (tune, " ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def defines_key(variant, defines):
    return variant + "|" + " ".join("%s=%s" % (k, defines[k]) for k in sorted(defines))


def load_table(path):
    times = {}
    with open(path, newline="") as f:
        rd = csv.DictReader(f)
        if not rd.fieldnames or "ms" not in rd.fieldnames:
            sys.exit("tune_sim: %s: the header must name an ms column" % path)
        for n, row in enumerate(rd, 2):
            ms = (row.get("ms") or "").strip()
            val = None if ms in ("", "invalid") else float(ms)
            if val is not None and not (val > 0 and math.isfinite(val)):
                sys.exit("tune_sim: %s: line %d: ms must be a positive number" % (path, n))
            if row.get("hash"):
                times[row["hash"].strip()] = val
            if row.get("variant") and row.get("defines") is not None:
                d = dict(p.split("=", 1) for p in row["defines"].split())
                times[defines_key(row["variant"].strip(), d)] = val
    return times


def lookup(times, hash_, variant, defines):
    if hash_ in times:
        return True, times[hash_]
    key = defines_key(variant, {k: str(v) for k, v in defines.items()})
    if key in times:
        return True, times[key]
    return False, None


def synthetic(configs, seed, sigma):
    """Smooth with noise: exp(sum a_n d_n^2 + sum b_nm d_n d_m), d the distance in
    log2 from an optimum that differs a little per variant."""
    rng = random.Random(seed)
    names = sorted({k for c in configs for k, v in c["defines"].items() if isinstance(v, int) and v > 0})
    span = {}
    for c in configs:
        for k in names:
            v = c["defines"].get(k)
            if isinstance(v, int) and v > 0:
                lo, hi = span.get(k, (math.inf, -math.inf))
                span[k] = (min(lo, math.log2(v)), max(hi, math.log2(v)))
    centre = {k: rng.uniform(*span[k]) for k in names}
    curv = {k: rng.uniform(0.08, 0.45) for k in names}
    pairs = {}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if rng.random() < 0.3:
                pairs[(a, b)] = rng.uniform(-0.15, 0.15)
    variants = sorted({c["variant"] for c in configs})
    factor = {v: rng.uniform(0.8, 1.6) for v in variants}
    # Each variant has its optimum somewhat elsewhere.
    shift = {(v, k): rng.gauss(0, 0.7) for v in variants for k in names}
    table = []
    for c in configs:
        d = {k: math.log2(v) - centre[k] - shift[(c["variant"], k)]
             for k, v in c["defines"].items() if k in centre}
        e = sum(curv[k] * x * x for k, x in d.items())
        e += sum(w * d[a] * d[b] for (a, b), w in pairs.items() if a in d and b in d)
        h = int(hashlib.sha256((c["hash"] + str(seed)).encode()).hexdigest()[:16], 16)
        noise = random.Random(h)
        ms = 1.0 * factor[c["variant"]] * math.exp(e) * math.exp(noise.gauss(0, sigma))
        table.append((c, None if noise.random() < 0.03 else round(ms, 6)))
    return table


def simulate(tune, space, times, size, threshold, strategy, seed, k, workdir):
    hist = {"tool": "cko-rank", "candidates": []}
    hpath = os.path.join(workdir, "history.json")
    evaluated, best, missing = 0, math.inf, 0
    for it in range(1, size // k + 3):
        with open(hpath, "w") as f:
            json.dump(hist, f)
        out = os.path.join(workdir, "iter-%03d" % it)
        run_tune(tune, ["-s", space, "-H", hpath, "-i", str(it), "-k", str(k), "--seed", str(seed),
                        "--strategy", strategy, "-o", out])
        with open(os.path.join(out, "proposed.json")) as f:
            manifest = json.load(f)
        proposed = 0
        for c in manifest["candidates"]:
            cid = "iter-%03d/%s" % (it, c)
            with open(os.path.join(out, c, "proposal.json")) as f:
                p = json.load(f)
            if p["status"] != "ok":
                hist["candidates"].append({"id": cid, "iteration": it, "status": "skipped"})
                continue
            with open(os.path.join(out, c, "launch.json")) as f:
                defines = json.load(f).get("defines", {})
            known, ms = lookup(times, p["hash"], p["variant"], defines)
            missing += not known
            proposed += 1
            evaluated += 1
            e = {"id": cid, "iteration": it, "hash": p["hash"], "variant": p["variant"], "defines": defines,
                 "parent": p.get("parent"), "status": "ok" if ms else "invalid", "geomean_ms": ms}
            hist["candidates"].append(e)
            if ms and ms < best:
                best = ms
                if best <= threshold:
                    return evaluated, True, missing
        shutil.rmtree(out)
        if not proposed:
            break
    return evaluated, False, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("space")
    ap.add_argument("--table", help="CSV of measured times (default: a synthetic table)")
    ap.add_argument("--write-table", help="write the table used (e.g. the synthetic one) as CSV")
    ap.add_argument("--tune", default=os.path.join(os.environ.get("CKO_BIN", "bin"), "cko-tune"))
    ap.add_argument("-k", type=int, default=4, help="candidates per iteration (4)")
    ap.add_argument("--seeds", type=int, default=8, help="runs per randomized strategy (8)")
    ap.add_argument("--strategies", default="exhaustive,random,local,auto")
    ap.add_argument("--target", type=float, default=0.95, help="fraction of the best speed to reach (0.95)")
    ap.add_argument("--budget", type=float, default=0.10, help="fraction of the space allowed (0.10)")
    ap.add_argument("--table-seed", type=int, default=7, help="synthetic table: its seed (7)")
    ap.add_argument("--noise", type=float, default=0.05, help="synthetic table: log-normal sigma (0.05)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="runs in parallel")
    a = ap.parse_args()

    configs = [json.loads(l) for l in run_tune(a.tune, ["-s", a.space, "--list"]).splitlines()]
    size = len(configs)
    if not size:
        sys.exit("tune_sim: %s has no valid configuration" % a.space)
    if a.table:
        times = load_table(a.table)
        rows = [(c, lookup(times, c["hash"], c["variant"], c["defines"])[1]) for c in configs]
    else:
        rows = synthetic(configs, a.table_seed, a.noise)
        times = {c["hash"]: ms for c, ms in rows}
    if a.write_table:
        with open(a.write_table, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["hash", "variant", "defines", "ms"])
            for c, ms in rows:
                w.writerow([c["hash"], c["variant"], " ".join("%s=%s" % kv for kv in sorted(c["defines"].items())),
                            "invalid" if ms is None else ms])
    valid = [ms for _, ms in rows if ms]
    if not valid:
        sys.exit("tune_sim: no configuration of the table has a time")
    opt = min(valid)
    threshold = opt / a.target
    good = sum(ms <= threshold for ms in valid)
    print("space %s: %d configurations, %d with a time, best %.4g ms; %d (%.1f%%) within %.0f%% of it; k=%d"
          % (a.space, size, len(valid), opt, good, 100.0 * good / size, 100 * a.target, a.k))
    print("%-11s %5s %8s %9s %9s %9s %12s" % ("strategy", "runs", "reached", "mean", "median", "worst",
                                           "in budget"))
    work = tempfile.mkdtemp(prefix="tune-sim.")
    met = True
    try:
        for s in a.strategies.split(","):
            seeds = [1] if s == "exhaustive" else range(1, a.seeds + 1)
            fr, reached, inb, missing = [], 0, 0, 0
            def one(seed, s=s):
                d = os.path.join(work, "%s-%d" % (s, seed))
                os.mkdir(d)
                r = simulate(a.tune, a.space, times, size, threshold, s, seed, a.k, d)
                shutil.rmtree(d)
                return r
            with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as ex:
                results = list(ex.map(one, seeds))
            for n, ok, miss in results:
                fr.append(n / size)
                reached += ok
                inb += ok and n / size <= a.budget
                missing += miss
            print("%-11s %5d %8d %8.1f%% %8.1f%% %8.1f%% %7d/%-4d" % (
                s, len(fr), reached, 100 * statistics.mean(fr), 100 * statistics.median(fr), 100 * max(fr),
                inb, len(fr)))
            if missing:
                print("  (%d proposals not in the table, counted as invalid: is the table for this space and its"
                      " current kernels?)" % missing)
            if s in ("local", "auto"):
                met = met and inb >= 0.95 * len(fr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("target: %.0f%% of the best within %.0f%% of the space in 95%% of local/auto runs: %s"
          % (100 * a.target, 100 * a.budget, "met" if met else "NOT met"))


if __name__ == "__main__":
    main()

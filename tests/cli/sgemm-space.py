#!/usr/bin/env python3
"""Enumerates the configurations of a space.json (docs/formats.md) the way
cko-tune reads it: the product of each variant's tunables, kept when every
constraint evaluates non-zero.  Expressions follow harness/core/expr.c: 64-bit
integers, / and % truncate toward zero, one comparison per level, && and ||
short-circuit, ceil_div/min/max; an error (unknown name, division by zero,
overflow) is reported, never taken as false.

  sgemm-space.py count SPACE                 points per variant and in all
  sgemm-space.py list SPACE [--sample N]     one line per point:
        VARIANT<TAB>SOURCE<TAB>NAME=VALUE ...  (all defines, fixed ones too)
  sgemm-space.py launch SPACE VARIANT M N K NAME=VALUE...
        grid x y z, block x y z, smem, evaluated for these sizes
  sgemm-space.py variant SPACE VARIANT NAME=VALUE...
        the variant as a launch.json (defines = fixed + these), for cko-compile -l
  sgemm-space.py sweep SPACE DIR [--sample N] [--jobs J] [--include FILE]
        compiles each point (of the sample, plus the points FILE lists as
        "VARIANT NAME=VALUE ...") (cko-compile from PATH, --arch sm_90, -l) in DIR
        and prints one line per point: "ok|FAIL<TAB>VARIANT DEFINES<TAB>why
        or registers/spills/smem/threads"
"""
import concurrent.futures
import itertools
import json
import os
import subprocess
import sys

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


class ExprError(Exception):
    pass


def _tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _tmod(a, b):
    return a - _tdiv(a, b) * b


def _chk(v):
    if v > INT64_MAX or v < INT64_MIN:
        raise ExprError("integer overflow")
    return v


class Parser:
    def __init__(self, src, env):
        self.s, self.p, self.env, self.skip = src, 0, env, 0

    def ws(self):
        while self.p < len(self.s) and self.s[self.p].isspace():
            self.p += 1

    def accept(self, tok):
        self.ws()
        if not self.s.startswith(tok, self.p):
            return False
        nxt = self.s[self.p + 1:self.p + 2]
        if len(tok) == 1 and tok in "<>!=" and nxt == "=":
            return False
        self.p += len(tok)
        return True

    def fail(self, msg):
        raise ExprError("%s at column %d of \"%s\"" % (msg, self.p + 1, self.s))

    def primary(self):
        self.ws()
        if self.accept("("):
            v = self.or_()
            if not self.accept(")"):
                self.fail("expected ')'")
            return v
        c = self.s[self.p:self.p + 1]
        if c.isdigit():
            q = self.p
            while self.p < len(self.s) and self.s[self.p].isdigit():
                self.p += 1
            if self.p < len(self.s) and (self.s[self.p].isalpha() or self.s[self.p] in "_."):
                self.fail("malformed number")
            return _chk(int(self.s[q:self.p]))
        if c.isalpha() or c == "_":
            q = self.p
            while self.p < len(self.s) and (self.s[self.p].isalnum() or self.s[self.p] == "_"):
                self.p += 1
            name = self.s[q:self.p]
            if self.accept("("):
                if name not in ("min", "max", "ceil_div"):
                    self.fail("unknown function")
                args = []
                if not self.accept(")"):
                    while True:
                        args.append(self.or_())
                        if self.accept(")"):
                            break
                        if not self.accept(","):
                            self.fail("expected ',' or ')'")
                if len(args) != 2:
                    self.fail("function takes 2 arguments")
                if self.skip:
                    return 1
                a, b = args
                if name == "min":
                    return min(a, b)
                if name == "max":
                    return max(a, b)
                if b == 0:
                    self.fail("division by zero in ceil_div")
                q, r = _tdiv(a, b), _tmod(a, b)
                return q + (1 if r != 0 and ((r > 0) == (b > 0)) else 0)
            if self.skip:
                return 1
            if name not in self.env:
                self.fail("unknown name '%s'" % name)
            return self.env[name]
        self.fail("unexpected character" if c else "unexpected end of expression")

    def unary(self):
        if self.accept("-"):
            return _chk(-self.unary()) if not self.skip else 1
        if self.accept("+"):
            return self.unary()
        if self.accept("!"):
            return int(not self.unary())
        return self.primary()

    def mul(self):
        v = self.unary()
        while True:
            op = "*" if self.accept("*") else "/" if self.accept("/") else "%" if self.accept("%") else None
            if not op:
                return v
            r = self.unary()
            if self.skip:
                continue
            if op == "*":
                v = _chk(v * r)
            else:
                if r == 0:
                    self.fail("division by zero")
                v = _chk(_tdiv(v, r)) if op == "/" else _tmod(v, r)

    def add(self):
        v = self.mul()
        while True:
            op = "+" if self.accept("+") else "-" if self.accept("-") else None
            if not op:
                return v
            r = self.mul()
            if not self.skip:
                v = _chk(v + r if op == "+" else v - r)

    def cmp(self):
        v = self.add()
        for op in ("<=", ">=", "==", "!=", "<", ">"):
            if self.accept(op):
                r = self.add()
                return int({"<=": v <= r, ">=": v >= r, "==": v == r, "!=": v != r,
                            "<": v < r, ">": v > r}[op])
        return v

    def and_(self):
        v = self.cmp()
        while self.accept("&&"):
            save = self.skip
            self.skip = self.skip or not v
            r = self.cmp()
            self.skip = save
            v = int(bool(v) and bool(r))
        return v

    def or_(self):
        v = self.and_()
        while self.accept("||"):
            save = self.skip
            self.skip = self.skip or v != 0
            r = self.and_()
            self.skip = save
            v = int(bool(v) or bool(r))
        return v


def evaluate(src, env):
    if isinstance(src, int):
        return src
    ps = Parser(src, env)
    v = ps.or_()
    ps.ws()
    if ps.p != len(src):
        ps.fail("unexpected text")
    return v


def int_defines(defs):
    return {k: v for k, v in defs.items() if isinstance(v, int)}


def points(variant):
    """Yields the define dict (fixed + tunables) of every valid point."""
    tun = variant.get("tunables", {})
    names = list(tun)
    for combo in itertools.product(*(tun[n] for n in names)):
        d = dict(variant.get("defines", {}))
        d.update(zip(names, combo))
        env = int_defines(d)
        try:
            ok = all(evaluate(c, env) != 0 for c in variant.get("constraints", []))
        except ExprError as e:
            raise ExprError("variant %s, %s: %s" % (variant["name"], fmt(d), e))
        if ok:
            yield d


def fmt(d):
    return " ".join("%s=%s" % kv for kv in d.items())


def all_points(space):
    return [(v, d) for v in space["variants"] for d in points(v)]


def sample(pts, n):
    """A deterministic spread: the first point of each variant, then evenly
    spaced picks over the whole list, in list order."""
    if n <= 0 or n >= len(pts):
        return pts
    pick = set()
    seen = set()
    for i, (v, _) in enumerate(pts):
        if v["name"] not in seen:
            seen.add(v["name"])
            pick.add(i)
    left = max(n - len(pick), 1)
    for j in range(left):
        pick.add(round(j * (len(pts) - 1) / max(left - 1, 1)))
    return [pts[i] for i in sorted(pick)]


def find_variant(space, name):
    for v in space["variants"]:
        if v["name"] == name:
            return v
    sys.exit("sgemm-space.py: no variant '%s'" % name)


def parse_defs(args):
    d = {}
    for a in args:
        k, _, val = a.partition("=")
        d[k] = int(val) if val.lstrip("-").isdigit() else val
    return d


SMEM_MAX = 232448  # 227 KiB per block (opt-in), sm_90
REGS_SM = 65536


def check_point(space_dir, outdir, i, v, d):
    """Compiles one point; returns (ok, text)."""
    cfg = dict(v)
    cfg["defines"] = d
    base = os.path.join(outdir, "p%04d" % i)
    with open(base + ".launch.json", "w") as f:
        json.dump(cfg, f)
    env = dict(M=4096, N=4096, K=4096)
    env.update(int_defines(d))
    threads = 1
    for e in cfg["block"]:
        threads *= evaluate(e, env)
    smem = evaluate(cfg.get("smem", 0), env)
    r = subprocess.run(["cko-compile", "--arch", "sm_90", "-l", base + ".launch.json", "-e", "sgemm",
                        "-o", base + ".cubin", "-j", base + ".compile.json",
                        os.path.join(space_dir, v["source"])], capture_output=True, text=True)
    try:
        cj = json.load(open(base + ".compile.json"))
    except (OSError, ValueError):
        return False, "no compile.json (exit %d): %s" % (r.returncode, r.stderr[-300:])
    if r.returncode != 0 or cj.get("status") != "ok":
        return False, "compile error: %s" % cj.get("log", "")[-400:].replace("\n", " | ")
    regs = cj.get("registers", -1)
    # spills of the entry and of any function it calls (the unaligned path)
    fns = cj.get("functions", []) or [cj]
    st = sum(f.get("spill_stores", 0) for f in fns) + (0 if "spill_stores" in cj else -1)
    ld = sum(f.get("spill_loads", 0) for f in fns) + (0 if "spill_loads" in cj else -1)
    stack = sum(f.get("stack_bytes", 0) for f in fns)  # local memory, as bad as a spill
    minb = d.get("MINB", 1) if isinstance(d.get("MINB", 1), int) else 1
    info = "registers=%d spill_stores=%d spill_loads=%d stack=%d smem=%d threads=%d time_s=%.2f" % (
        regs, st, ld, stack, smem, threads, cj.get("time_s", 0))
    why = []
    if regs < 0 or st != 0 or ld != 0 or stack != 0:
        why.append("spills, stack or no register count")
    if regs * threads * minb > REGS_SM:
        why.append("registers*threads*MINB > %d" % REGS_SM)
    if smem > SMEM_MAX or threads > 1024 or threads % 32:
        why.append("launch out of range")
    for p in (".cubin", ".compile.json", ".launch.json"):
        try:
            os.unlink(base + p)
        except OSError:
            pass
    return not why, info + ("" if not why else " -- " + "; ".join(why))


def sweep(space_path, space, outdir, n, jobs, include=None):
    every = all_points(space)
    pts = sample(every, n)
    if include:  # "VARIANT NAME=VALUE ..." lines that must be compiled too
        want = {line.strip() for line in open(include) if line.strip()}
        have = {"%s %s" % (v["name"], fmt(d)) for v, d in pts}
        pts += [(v, d) for v, d in every if "%s %s" % (v["name"], fmt(d)) in want - have]
    space_dir = os.path.dirname(os.path.abspath(space_path))
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = [ex.submit(check_point, space_dir, outdir, i, v, d) for i, (v, d) in enumerate(pts)]
        for (v, d), f in zip(pts, futs):
            ok, text = f.result()
            bad += not ok
            print("%s\t%s %s\t%s" % ("ok" if ok else "FAIL", v["name"], fmt(d), text), flush=True)
    return bad


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, space = argv[1], json.load(open(argv[2]))
    try:
        if cmd == "count":
            total = 0
            for v in space["variants"]:
                n = sum(1 for _ in points(v))
                total += n
                print("%s\t%d" % (v["name"], n))
            print("total\t%d" % total)
        elif cmd == "list":
            n = int(argv[4]) if len(argv) > 4 and argv[3] == "--sample" else 0
            for v, d in sample(all_points(space), n):
                print("%s\t%s\t%s" % (v["name"], v["source"], fmt(d)))
        elif cmd == "launch":
            v = find_variant(space, argv[3])
            env = dict(M=int(argv[4]), N=int(argv[5]), K=int(argv[6]))
            d = dict(v.get("defines", {}))
            d.update(parse_defs(argv[7:]))
            env.update(int_defines(d))
            dims = lambda key: [evaluate(e, env) for e in v[key]] + [1] * (3 - len(v[key]))
            print(" ".join(map(str, dims("grid") + dims("block") + [evaluate(v.get("smem", 0), env)])))
        elif cmd == "sweep":
            opts = dict(zip(argv[4::2], argv[5::2]))
            n = int(opts.get("--sample", 0))
            jobs = int(opts.get("--jobs", os.cpu_count() or 1))
            sys.exit(1 if sweep(argv[2], space, argv[3], n, jobs, opts.get("--include")) else 0)
        elif cmd == "variant":
            v = dict(find_variant(space, argv[3]))
            d = dict(v.get("defines", {}))
            d.update(parse_defs(argv[4:]))
            v["defines"] = d
            json.dump(v, sys.stdout)
            print()
        else:
            sys.exit(__doc__)
    except ExprError as e:
        sys.exit("sgemm-space.py: %s" % e)


if __name__ == "__main__":
    main(sys.argv)

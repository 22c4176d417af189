#!/usr/bin/env python3
"""Forms tried for the FP16/BF16 GEMM model (docs/fp16-model.md, "Families and choices").

Reads every projection row of the vidur A100 and A40 data through `tilecast eval-ops --rows`,
computes the form's physical times (waves x tile FLOPs at the per-SM tensor peak with the
tensor-core tile rule; bytes at DRAM bandwidth), fits each candidate form on one GPU's rows
(median per distinct shape) and prints MAPE % per projection on the other GPU's rows, both
ways, then the shipped form's error by token range. Deterministic (Nelder-Mead from fixed
starts for the forms with no linear fit). Usage: python3 scripts/experiments/fp16_gemm_forms.py [BUILD_DIR]
(~25 min on one core). The shipped fit is the C++ one (core/src/train/tensor_gemm_fit.cpp).
"""
import csv, io, math, os, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.path.join(ROOT, sys.argv[1] if len(sys.argv) > 1 else "build", "cli", "tilecast")
VIDUR = os.environ.get("TILECAST_VIDUR_DIR", os.path.join(ROOT, "..", "shared", "data", "vidur"))
# (catalog id, SMs, FP16 tensor peak FLOP/s, DRAM B/s): gpu_catalog/a100-80gb-sxm.json, a40.json
GPU = {"a100": ("a100-80gb-sxm", 108, 312e12, 2039e9), "a40": ("a40", 84, 149.7e12, 696e9)}
TILES = [(256, 128), (128, 256), (128, 128), (256, 64), (64, 256), (128, 64), (64, 128), (64, 64)]
PROJ = ["attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"]


def tile(m, k, sm):  # core/src/kernel/tensor_tiles.cpp
    best, cost = None, -1
    for r, c in TILES:
        t = math.ceil(k / r) * math.ceil(m / c)
        v = math.ceil(t / sm) * r * c
        if cost < 0 or v < cost:
            best, cost = (r, c), v
    return best


def load(g):
    gid, sm, peak, bw = GPU[g]
    text = subprocess.run([CLI, "eval-ops", "--gpu", gid, "--vidur",
                           os.path.join(VIDUR, "compute", g), "--rows"],
                          capture_output=True, text=True, check=True).stdout
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        if r["op"] not in PROJ:
            continue
        _, m, n, k = map(int, r["dims"].split(","))
        tr, tc = tile(m, k, sm)
        tiles = math.ceil(k / tr) * math.ceil(m / tc)
        tile_ms = 2 * tr * tc * n / (peak / sm) * 1e3
        rows.append(dict(op=r["op"], y=float(r["measured_ms"]), M=m, N=n, K=k, sm=sm,
                         tiles=tiles, waves=math.ceil(tiles / sm), tile_ms=tile_ms,
                         Tc=math.ceil(tiles / sm) * tile_ms,
                         Tm=2 * (m * n + n * k + m * k) / bw * 1e3))
    return rows


def dedupe(rows):  # one sample per shape at its median, as the trainer does
    by = {}
    for r in rows:
        by.setdefault((r["M"], r["N"], r["K"]), []).append(r)
    out = []
    for v in by.values():
        ys = sorted(x["y"] for x in v)
        n = len(ys)
        s = dict(v[0])
        s["y"] = ys[n // 2] if n % 2 else (ys[n // 2 - 1] + ys[n // 2]) / 2
        out.append(s)
    return out


def mape(rows, f):
    return sum(abs(f(r) - r["y"]) / r["y"] for r in rows) / len(rows)


def nelder_mead(f, x0, iters):
    n = len(x0)
    pts = [list(x0)] + [[x * 1.2 if i == j and x else (0.01 if i == j else x)
                         for j, x in enumerate(x0)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        at = lambda t: [c[j] + t * (pts[-1][j] - c[j]) for j in range(n)]
        xr = at(-1); fr = f(xr)
        if fr < vals[0]:
            xe = at(-2); fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = at(0.5); fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
    return pts[0]


def tail_waves(r, u):
    full = r["tiles"] // r["sm"]
    fill = (r["tiles"] - full * r["sm"]) / r["sm"]
    return full + (u + (1 - u) * fill if fill > 0 else 0)


FORMS = {
    "max(a Tc, b Tm) + c (shipped)": (lambda p, r: max(p[0] * r["Tc"], p[1] * r["Tm"]) + p[2],
                                      [1.2, 1.3, 0.005]),
    "a Tc + b Tm + c": (lambda p, r: p[0] * r["Tc"] + p[1] * r["Tm"] + p[2], [1.2, 0.5, 0.003]),
    "4-norm(a Tc, b Tm) + c": (lambda p, r: ((p[0] * r["Tc"]) ** 4 + (p[1] * r["Tm"]) ** 4) ** 0.25
                               + p[2], [1.2, 1.3, 0.005]),
    "3-norm(a Tc, b Tm) + c": (lambda p, r: ((p[0] * r["Tc"]) ** 3 + (p[1] * r["Tm"]) ** 3) ** (1 / 3)
                               + p[2], [1.2, 1.3, 0.005]),
    "8-norm(a Tc, b Tm) + c": (lambda p, r: ((p[0] * r["Tc"]) ** 8 + (p[1] * r["Tm"]) ** 8) ** 0.125
                               + p[2], [1.2, 1.3, 0.005]),
    "max(a Tc, b Tm) + c + d waves": (lambda p, r: max(p[0] * r["Tc"], p[1] * r["Tm"]) + p[2]
                                      + p[3] * r["waves"], [1.2, 1.3, 0.005, 0.0001]),
    "max(a tile x tail waves(u), b Tm) + c": (
        lambda p, r: max(p[0] * r["tile_ms"] * tail_waves(r, min(max(p[3], 0), 1)),
                         p[1] * r["Tm"]) + p[2], [1.2, 1.3, 0.005, 0.5]),
}


def per_op(rows, f):
    return " ".join(f"{op} {100 * mape([r for r in rows if r['op'] == op], f):.1f}"
                    for op in PROJ)


def signed_by_tokens(rows, f):
    cells = []
    for lo, hi in ((0, 32), (32, 256), (256, 1024), (1024, 1 << 30)):
        rs = [r for r in rows if lo < r["M"] <= hi]
        cells.append(f"{lo} < T <= {hi} {100 * sum((f(r) - r['y']) / r['y'] for r in rs) / len(rs):+.1f}")
    return ", ".join(cells)


def main():
    data = {g: load(g) for g in GPU}
    fits = {}
    for name, (f, x0) in FORMS.items():
        for tr, te in (("a100", "a40"), ("a40", "a100")):
            d = dedupe(data[tr])
            p = nelder_mead(lambda q: mape(d, lambda r: f(q, r)), x0, 600 + 150 * len(x0))
            fits[(name, tr)] = p
            print(f"{name} | train {tr} -> test {te}: {per_op(data[te], lambda r: f(p, r))}"
                  f" | params {[round(x, 5) for x in p]}"
                  f" | own rows' mean signed error by T: {signed_by_tokens(data[tr], lambda r: f(p, r))}",
                  flush=True)
    f = FORMS["max(a Tc, b Tm) + c (shipped)"][0]
    print("\nshipped form by tokens T: MAPE % (mean signed error %)")
    for tr, te in (("a100", "a40"), ("a40", "a100")):
        p = fits[("max(a Tc, b Tm) + c (shipped)", tr)]
        for lo, hi in ((0, 128), (128, 1024), (1024, 1 << 30)):
            cells = []
            for op in PROJ:
                rs = [r for r in data[te] if r["op"] == op and lo < r["M"] <= hi]
                bias = sum((f(p, r) - r["y"]) / r["y"] for r in rs) / len(rs)
                cells.append(f"{op} {100 * mape(rs, lambda r: f(p, r)):.1f} ({100 * bias:+.1f})")
            print(f"train {tr} -> test {te}, {lo} < T <= {hi}: " + " | ".join(cells))


if __name__ == "__main__":
    main()

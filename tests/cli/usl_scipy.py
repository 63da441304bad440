# SPDX-License-Identifier: GPL-2.0-or-later
"""The independent check of sysbench's Universal Scalability Law fit
(sysbench/pure/sb_usl.c): scipy's curve_fit (trust-region reflective,
bounded) fits X(N) = lambda*N / (1 + sigma*(N-1) + kappa*N*(N-1)) with
lambda, sigma, kappa >= 0 to the same points, and every parameter must
agree within 1% (or within 1e-7 of the throughput-free scale when both
sit at the bound 0, where a relative error means nothing).

Input: blocks of "N X" lines, each ended by "fit LAMBDA SIGMA KAPPA"
(sysbench's answer). Prints one line per block and "N agree, M disagree";
exits 1 when any disagree or there is no block.
"""
import sys

import numpy as np
from scipy.optimize import curve_fit


def usl(n, lam, sigma, kappa):
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def blocks(path):
    pts = []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        if f[0] == "fit":
            yield pts, [float(v) for v in f[1:4]]
            pts = []
        else:
            pts.append((float(f[0]), float(f[1])))


def agree(a, b, floor):
    return abs(a - b) <= 0.01 * max(abs(a), abs(b)) or (abs(a) <= floor and abs(b) <= floor)


def main():
    good = bad = 0
    for pts, ours in blocks(sys.argv[1]):
        n = np.array([p[0] for p in pts])
        x = np.array([p[1] for p in pts])
        # scipy's own start, from the data alone: lambda from one thread's
        # throughput per thread, small contention and coherency.
        p0 = [x[np.argmin(n)] / n.min(), 0.01, 1e-4]
        theirs, _ = curve_fit(usl, n, x, p0=p0, bounds=([0, 0, 0], [np.inf] * 3),
                              method="trf", xtol=1e-15, ftol=1e-15, gtol=1e-15,
                              max_nfev=100000)
        ok = all(agree(a, b, fl) for a, b, fl in zip(ours, theirs, (1e-7 * x.max(), 1e-7, 1e-9)))
        good += ok
        bad += not ok
        print("%s: %d points: sysbench lambda %.6g sigma %.6g kappa %.6g, "
              "scipy lambda %.6g sigma %.6g kappa %.6g"
              % ("agree" if ok else "DISAGREE", len(pts), *ours, *theirs))
    print("%d agree, %d disagree" % (good, bad))
    sys.exit(0 if good > 0 and bad == 0 else 1)


main()

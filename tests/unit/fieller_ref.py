#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The expected figures of test_stats.c's Fieller cases, computed apart
from the C code: mpmath at 40 digits, the t quantile from mpmath's own
regularized incomplete beta, each end of the interval by mpmath.findroot
(Illinois) between a / b and a point outside found from the closed-form
Fieller interval (df fixed at a / b); the C code bisects from a / b
outwards with its own t quantile.

    python3 tests/unit/fieller_ref.py      # needs python3-mpmath

Not run by make: mpmath is not a build dependency, and the figures it
printed are written into the test.
"""
import mpmath as mp

mp.mp.dps = 40


def tq(df):
    """Two-sided 95 % quantile of Student's t with df degrees of freedom."""
    df = mp.mpf(df)

    def tail(t):
        return mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t),
                          regularized=True) - mp.mpf('0.05')
    lo, hi = mp.mpf(0), mp.mpf(1)
    while tail(hi) > 0:
        hi *= 2
    return mp.findroot(tail, (lo, hi), solver='illinois')


def fieller(a, sda, na, b, sdb, nb):
    """Fieller's 95 % set of a / b, Welch-Satterthwaite df per theta:
    (lo, hi), or None when unbounded."""
    a, b = mp.mpf(a), mp.mpf(b)
    va, vb = mp.mpf(sda) ** 2 / na, mp.mpf(sdb) ** 2 / nb
    ka, kb = na - 1, nb - 1
    if vb > 0 and b * b <= tq(kb) ** 2 * vb:
        return None

    def df(th):
        return (va + th * th * vb) ** 2 / (va ** 2 / ka + th ** 4 * vb ** 2 / kb)

    def g(th):
        return (a - th * b) ** 2 - tq(df(th)) ** 2 * (va + th * th * vb)
    r = a / b
    q = tq(df(r))
    gg = q * q * vb / (b * b)
    h = q / abs(b) * mp.sqrt(va + r * r * vb - gg * va)
    ends = []
    for x in ((r - h) / (1 - gg), (r + h) / (1 - gg)):
        # From the closed form's end outwards until outside, then the
        # root between there and a / b (inside).
        while g(x) <= 0:
            x = r + 2 * (x - r)
        ends.append(mp.findroot(g, (r, x), solver='illinois'))
    return ends


def welch_significant(a, sda, na, b, sdb, nb):
    va, vb = mp.mpf(sda) ** 2 / na, mp.mpf(sdb) ** 2 / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    return abs(mp.mpf(a) - b) > tq(df) * mp.sqrt(va + vb)


def sd(x):
    m = mp.fsum(x) / len(x)
    return mp.sqrt(mp.fsum((v - m) ** 2 for v in x) / (len(x) - 1))


def plugin_disagreements():
    """test_fieller_agrees_with_welch's sweep: how often the closed-form
    interval (df fixed at a / b) says otherwise than Welch's test."""
    n = bad = 0
    for nb in (2, 7, 12):
        for nt in (2, 9, 16, 23, 30):
            for i in range(101):
                a, b = 1 + mp.mpf(i) / 50, mp.mpf(1)
                va, vb = mp.mpf('0.81') / nt, mp.mpf('0.01') / nb
                r = a / b
                df = (va + r * r * vb) ** 2 / (va ** 2 / (nt - 1) +
                                               r ** 4 * vb ** 2 / (nb - 1))
                q = tq(df)
                gg = q * q * vb / (b * b)
                if gg >= 1:
                    continue
                h = q / abs(b) * mp.sqrt(va + r * r * vb - gg * va)
                n += 1
                bad += ((r - h) / (1 - gg) > 1) != \
                    welch_significant(a, 0.9, nt, b, 0.1, nb)
    print(f"closed form against Welch's test: {bad} of {n} disagree")


def case(name, a, sda, na, b, sdb, nb):
    ci = fieller(a, sda, na, b, sdb, nb)
    sig = welch_significant(a, sda, na, b, sdb, nb)
    if ci is None:
        print(f"{name}: unbounded, significant {sig}")
    else:
        lo, hi = (100 * (x - 1) for x in ci)
        print(f"{name}: penalty [{mp.nstr(lo, 15)}, {mp.nstr(hi, 15)}] %, "
              f"significant {sig}")


if __name__ == '__main__':
    # The ZFS report's summary table, n = 100 each: a = encrypted.
    case("zfs read", 0.513, 0.33, 100, 0.263, 0.062, 100)
    case("zfs write", 5.10, 0.77, 100, 4.69, 0.77, 100)
    # Throughput: the cost ratio is baseline rate / target rate.
    b, t = [99, 101, 100, 100], [49, 51, 50, 50]
    case("rate", 100, sd(b), 4, 50, sd(t), 4)
    # Unequal n, the noisier side the smaller: times 3 vs 8 samples.
    b = [0.21, 0.35, 0.30]
    t = [0.52, 0.61, 0.47, 0.55, 0.58, 0.50, 0.63, 0.49]
    case("small", mp.fsum(t) / 8, sd(t), 8, mp.fsum(b) / 3, sd(b), 3)
    # A baseline told from 0 only just, and only just not: mean 1, sd s,
    # n 4, b / se = 1 / (s / 2) against t(3) = 3.182446.
    case("edge in", 3.0, 0.5, 4, 1.0, 2 / 3.2, 4)
    case("edge out", 3.0, 0.5, 4, 1.0, 2 / 3.18, 4)
    plugin_disagreements()

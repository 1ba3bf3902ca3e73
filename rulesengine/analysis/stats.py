"""Small statistics with the standard library only: Wilson intervals, the chi-square
survival function, quantiles, and two-sample tests for comparing variants."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054  # the 97.5 % quantile of the standard normal distribution


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % by default); (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # at 0 or at every trial one bound is exactly 0 or 1; rounding must not move it inwards
    low = 0.0 if successes <= 0 else min(p, max(0.0, centre - half))
    high = 1.0 if successes >= trials else max(p, min(1.0, centre + half))
    return low, high


def _lower_series(a: float, x: float) -> float:
    """P(a, x), the regularised lower incomplete gamma function, by its power series."""
    term = total = 1.0 / a
    k = a
    for _ in range(10_000):
        k += 1
        term *= x / k
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Q(a, x), the regularised upper incomplete gamma function, by Lentz's continued fraction."""
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return h * math.exp(-x + a * math.log(x) - math.lgamma(a))


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square distributed with `df` degrees of freedom."""
    if df <= 0:
        raise ValueError("degrees of freedom must be positive")
    a, x = df / 2, statistic / 2
    if x <= 0:
        return 1.0
    if x < a + 1:
        return max(0.0, 1.0 - _lower_series(a, x))
    return min(1.0, _upper_fraction(a, x))


def chi_square_even(counts: Sequence[int]) -> tuple[float, int, float] | None:
    """Pearson's test of `counts` against an even split: (statistic, df, p-value), or None
    when there is nothing to test (fewer than two cells or no counts)."""
    total = sum(counts)
    if len(counts) < 2 or total <= 0:
        return None
    expected = total / len(counts)
    statistic = sum((c - expected) ** 2 / expected for c in counts)
    df = len(counts) - 1
    return statistic, df, chi2_sf(statistic, df)


def normal_two_sided(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def two_proportions(a: int, n_a: int, b: int, n_b: int) -> float:
    """The two-sided p-value of a pooled z-test that two proportions are equal (1.0 if undefined)."""
    if n_a <= 0 or n_b <= 0:
        return 1.0
    pooled = (a + b) / (n_a + n_b)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    if spread == 0:
        return 1.0
    return normal_two_sided((a / n_a - b / n_b) / spread)


def two_means(mean_a: float, var_a: float, n_a: int, mean_b: float, var_b: float, n_b: int) -> float:
    """The two-sided p-value of a large-sample (Welch) z-test that two means are equal."""
    if n_a <= 1 or n_b <= 1:
        return 1.0
    spread = math.sqrt(var_a / n_a + var_b / n_b)
    if spread == 0:
        return 1.0 if mean_a == mean_b else 0.0
    return normal_two_sided((mean_a - mean_b) / spread)


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values by linear interpolation (as numpy's default)."""
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def describe(values: Sequence[float]) -> dict[str, float]:
    """Mean, variance, the 10/50/90 % quantiles, min and max of `values`."""
    ordered = sorted(values)
    n = len(ordered)
    if n == 0:
        return {"count": 0, "mean": 0.0, "variance": 0.0, "p10": 0.0, "p50": 0.0, "p90": 0.0, "min": 0, "max": 0}
    mean = sum(ordered) / n
    variance = sum((v - mean) ** 2 for v in ordered) / (n - 1) if n > 1 else 0.0
    return {
        "count": n,
        "mean": mean,
        "variance": variance,
        "p10": quantile(ordered, 0.1),
        "p50": quantile(ordered, 0.5),
        "p90": quantile(ordered, 0.9),
        "min": ordered[0],
        "max": ordered[-1],
    }

"""The statistics behind the analysis, against closed forms and published values."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rulesengine.analysis import stats


@pytest.mark.parametrize(
    ("statistic", "df", "expected"),
    [
        (3.841458820694124, 1, 0.05),  # the 95 % critical values of standard tables
        (5.991464547107979, 2, 0.05),
        (11.070497693516351, 5, 0.05),
        (23.209251158954356, 10, 0.01),
        (0.5, 3, 0.918891411654),
        (100.0, 3, 1.5541594313896026e-21),
    ],
)
def test_chi_square_survival_matches_tables(statistic, df, expected):
    assert stats.chi2_sf(statistic, df) == pytest.approx(expected, rel=1e-6)


@given(st.floats(min_value=1e-6, max_value=200))
def test_chi_square_with_one_and_two_degrees_has_closed_forms(x):
    assert stats.chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9, abs=1e-300)
    assert stats.chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-8, abs=1e-300)


@given(st.integers(1, 30), st.floats(0, 80), st.floats(0, 80))
def test_chi_square_survival_falls_as_the_statistic_grows(df, a, b):
    low, high = sorted((a, b))
    assert 0.0 <= stats.chi2_sf(high, df) <= stats.chi2_sf(low, df) <= 1.0


def test_wilson_interval_matches_published_values():
    # Newcombe (1998), Table I: 81 of 263 -> 0.2553 to 0.3662; 0 of 10 -> 0 to 0.2775
    assert stats.wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert stats.wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)


@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_interval_holds_the_observed_rate(pair):
    successes, trials = pair
    low, high = stats.wilson(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


def test_even_counts_pass_and_lopsided_counts_fail_the_seat_test():
    assert stats.chi_square_even([100, 100, 100])[2] == pytest.approx(1.0)
    statistic, df, p_value = stats.chi_square_even([150, 100, 50])
    assert (statistic, df) == (pytest.approx(50.0), 2) and p_value < 1e-10
    assert stats.chi_square_even([0, 0]) is None


@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=60))
def test_quantiles_lie_between_min_and_max_and_are_ordered(values):
    d = stats.describe(values)
    assert d["min"] <= d["p10"] <= d["p50"] <= d["p90"] <= d["max"]
    assert d["min"] <= d["mean"] <= d["max"]


def test_quantiles_interpolate_as_numpy_does():
    assert stats.quantile([1, 2, 3, 4], 0.5) == 2.5
    assert stats.quantile([10, 20, 30, 40, 50], 0.9) == pytest.approx(46.0)


def test_two_sample_tests_tell_a_difference_from_noise():
    assert stats.two_proportions(500, 1000, 505, 1000) > 0.5
    assert stats.two_proportions(500, 1000, 600, 1000) < 1e-4
    assert stats.two_means(10.0, 4.0, 400, 10.1, 4.0, 400) > 0.4
    assert stats.two_means(10.0, 4.0, 400, 11.0, 4.0, 400) < 1e-10

"""Moments of polynomial statistics of multinomial counts (SPEC section 5)."""

from momentbound.moments.enumeration import (
    count_tables,
    expectation_by_enumeration,
    multinomial_pmf,
    n_count_tables,
)

__all__ = ["count_tables", "expectation_by_enumeration", "multinomial_pmf", "n_count_tables"]

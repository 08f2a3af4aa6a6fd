"""Moments of polynomial statistics of multinomial counts (docs/mathematics.md, sections
'Factorial moments' and
'Joint events and the bird polynomial').

* :func:`raw_moments`, :func:`joint_moments`, :func:`expectation`: exact numbers.
* :func:`compile_moments`: derive once per (statistic, order), evaluate at any ``(N, p)``.
* :func:`symbolic_moment`: ``E[Z^k]`` as a sympy polynomial in ``N`` and the cells.
* :mod:`momentbound.moments.bird`: the bird polynomial for joint events.
* :mod:`momentbound.model.enumeration`: brute force over count tables (the witness).
"""

from momentbound.moments.bird import (
    BirdMoments,
    bird_coefficients,
    bird_exponent,
    bird_exponent_bruteforce,
    bird_exponent_paper,
    bird_moments,
    bird_polynomial,
)
from momentbound.moments.compiled import CompiledMoments, compile_moments, load_kernel
from momentbound.moments.core import (
    JointMoments,
    MomentSequence,
    central_moments,
    cumulants,
    expectation,
    joint_moments,
    raw_moments,
    standardized_moments,
)
from momentbound.model.enumeration import (
    count_tables,
    expectation_by_enumeration,
    multinomial_pmf,
    n_count_tables,
)
from momentbound.moments.symbolic import cell_probability_symbols, substitute, symbolic_moment

__all__ = [
    "BirdMoments",
    "CompiledMoments",
    "JointMoments",
    "MomentSequence",
    "bird_coefficients",
    "bird_exponent",
    "bird_exponent_bruteforce",
    "bird_exponent_paper",
    "bird_moments",
    "bird_polynomial",
    "cell_probability_symbols",
    "central_moments",
    "compile_moments",
    "load_kernel",
    "count_tables",
    "cumulants",
    "expectation",
    "expectation_by_enumeration",
    "joint_moments",
    "multinomial_pmf",
    "n_count_tables",
    "raw_moments",
    "standardized_moments",
    "substitute",
    "symbolic_moment",
]

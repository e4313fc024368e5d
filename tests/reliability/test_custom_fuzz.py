"""Fuzzed ops.Custom constructions and calls: no unclear errors, no wrong results, no crashes, no hangs."""

import pytest
from hypothesis import HealthCheck, given, settings

from .custom_fuzz import OOB_KERNELS, cases, run_case, run_child_case

BAD = ("unclear", "wrong", "crash", "hang")


@settings(max_examples=300, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(cases())
def test_fuzzed_custom_cases_are_right_or_fail_clearly(case):
    cls, detail = run_case(case)
    assert cls not in BAD, f"{cls}: {detail}\ncase: {case}"


@pytest.mark.parametrize("name", sorted(OOB_KERNELS)[:2])
def test_out_of_bounds_kernels_in_debug_mode_fail_clearly_in_a_child(name):
    cls, detail = run_child_case(name)
    assert cls == "clear", detail

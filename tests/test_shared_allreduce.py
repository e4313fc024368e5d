"""The buckets' all-reduce through MPI shared memory when every rank runs on one host (2 ranks)."""

import pytest

from _mpi import run_mpi


@pytest.mark.parametrize("loops", ["now", "off"])        # the one-pass Numba loop, or NumPy alone
def test_sums_are_the_rank_order_sums_on_every_rank(loops):
    res = run_mpi("shared_allreduce.py", extra=("values",), timeout=120, env={"MSCUSTOM_LOOPS": loops})
    assert res.returncode == 0, res.stdout + res.stderr
    for r in (0, 1):
        assert f"rank {r}: values ok" in res.stdout, res.stdout + res.stderr


@pytest.mark.parametrize("shared", ["1", "0"])
def test_a_reducers_bucket_uses_it_unless_turned_off(shared):
    res = run_mpi("shared_allreduce.py", extra=("bucket",), timeout=120, env={"MSCUSTOM_COMM_SHARED": shared})
    assert res.returncode == 0, res.stdout + res.stderr
    for r in (0, 1):
        assert f"rank {r}: bucket ok (shared {shared == '1'})" in res.stdout, res.stdout + res.stderr


def test_a_rank_that_stops_coming_is_timed_out_naming_the_bucket():
    res = run_mpi("shared_allreduce.py", extra=("hang",), timeout=60, env={"MSCUSTOM_COMM_TIMEOUT": "2"})
    out = res.stdout + res.stderr
    assert res.returncode != 0, out
    assert "DistributedGradReducer (bucket 0: 2 gradient(s)" in out and "waited 2 s" in out, out

"""The batch executors: local processes, in-process, and a real Dask cluster."""

from __future__ import annotations

import builtins
import concurrent.futures as cf
import math
import operator

import pytest

from sokoban import batch
from sokoban.errors import SokobanError

# Tasks are stdlib functions: they pickle by name into any worker, wherever the tests run.


def test_in_process_executor_runs_tasks_and_keeps_exceptions():
    with batch.executor(workers=0) as pool:
        assert isinstance(pool, cf.Executor)
        assert pool.submit(operator.add, 2, 3).result() == 5
        failed = pool.submit(math.sqrt, -1)
        assert isinstance(failed.exception(), ValueError)


def test_run_on_processes_yields_every_item_once():
    items = list(range(40))
    results = dict(batch.run(math.factorial, items, workers=2))
    assert results == {n: math.factorial(n) for n in items}


def test_run_reads_items_lazily_with_bounded_submissions():
    consumed = []
    submitted_ahead = []

    def items():
        for n in range(100):
            consumed.append(n)
            yield n

    for n, result in batch.run(abs, items(), workers=0, in_flight=3):
        assert result == n
        # Never more than three items taken beyond those already returned.
        submitted_ahead.append(len(consumed) - n)
    assert max(submitted_ahead) <= 3
    assert len(consumed) == 100


def test_run_names_the_item_whose_task_raised():
    with pytest.raises(batch.BatchError, match=r"item -4 failed: ValueError") as info:
        list(batch.run(math.sqrt, [4, 9, -4, 16], workers=0))
    assert info.value.item == -4
    assert isinstance(info.value.__cause__, ValueError)


def test_an_interrupt_inside_a_task_stays_an_interrupt():
    def interrupted(n: int) -> int:
        if n == 3:
            raise KeyboardInterrupt
        return n

    done = []
    with pytest.raises(KeyboardInterrupt):
        for n, _ in batch.run(interrupted, range(10), workers=0, in_flight=1):
            done.append(n)
    assert done == [0, 1, 2]


def test_run_names_the_item_from_a_worker_process():
    with pytest.raises(batch.BatchError, match=r"item -1 failed"):
        list(batch.run(math.sqrt, [1, -1, 4], workers=1))


def test_run_reuses_an_open_pool_and_draws_progress(capsys):
    with batch.executor(workers=1) as pool:
        first = sorted(batch.run(abs, [-1, -2], pool=pool))
        second = sorted(batch.run(abs, [-3], pool=pool, description="squares"))
    assert first == [(-2, 2), (-1, 1)]
    assert second == [(-3, 3)]
    assert "squares" in capsys.readouterr().err


def test_negative_workers_are_refused():
    with pytest.raises(ValueError, match="-2"):
        with batch.executor(workers=-2):
            pass


def test_missing_dask_gives_a_clear_error(monkeypatch):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith(("dask.", "distributed")):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(SokobanError, match=r"pip install 'sokoban\[dask\]'"):
        with batch.executor(scheduler="tcp://127.0.0.1:1"):
            pass


def test_run_on_a_local_dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        results = dict(batch.run(math.factorial, range(12), scheduler=cluster.scheduler_address))
        assert results == {n: math.factorial(n) for n in range(12)}
        with pytest.raises(batch.BatchError, match=r"item -9 failed: ValueError"):
            list(batch.run(math.sqrt, [1, -9], scheduler=cluster.scheduler_address))


def test_bad_scheduler_addresses_are_one_clear_error(monkeypatch):
    pytest.importorskip("dask.distributed")
    with pytest.raises(batch.SchedulerError, match="bad scheduler address 'nonsense'"):
        with batch.executor(scheduler="nonsense"):
            pass
    monkeypatch.setattr(batch, "CONNECT_TIMEOUT", 0.5)
    with pytest.raises(batch.SchedulerError, match="cannot reach the scheduler"):
        with batch.executor(scheduler="tcp://127.0.0.1:1"):
            pass

"""Batch work: run one function over many items on local processes or a Dask cluster.

One executor abstraction for the benchmark, the generator and the layout search. The
interface is :mod:`concurrent.futures`: local work goes to a :class:`ProcessPoolExecutor`,
and with a scheduler address (``tcp://host:port``) to a ``dask.distributed`` client's
executor, so callers never see which one they got.

>>> import math
>>> with executor(workers=0) as pool:
...     pool.submit(math.factorial, 5).result()
120
>>> sorted(run(math.factorial, [3, 4], workers=0))
[(3, 6), (4, 24)]
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from sokoban.errors import DaskMissingError, SchedulerError, SokobanError

T = TypeVar("T")
R = TypeVar("R")

#: Submissions kept in flight per worker: enough to keep workers busy while results are
#: collected, few enough that a million items never become a million futures at once.
IN_FLIGHT_PER_WORKER = 4
#: Most local worker processes per core: each loads numpy and numba (about 200 MB), so a
#: mistyped ``--workers 1000`` would exhaust memory rather than go faster.
MAX_WORKERS_PER_CORE = 8
#: Seconds to wait for a Dask scheduler to answer.
CONNECT_TIMEOUT = 10


class BatchError(RuntimeError):
    """A task raised: the message names the item, ``__cause__`` is the task's exception."""

    def __init__(self, item: object, error: BaseException) -> None:
        self.item = item
        self.error = error
        super().__init__(f"task for item {item!r} failed: {type(error).__name__}: {error}")


class InProcessExecutor(cf.Executor):
    """Runs each task at once in the calling process (``workers=0``): for tests and debugging."""

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> cf.Future[R]:
        future: cf.Future[R] = cf.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as error:  # the caller sees it through the future
            future.set_exception(error)
        return future


def default_workers() -> int:
    """All cores this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _distributed() -> Any:
    try:
        from dask import distributed
    except ImportError:
        raise DaskMissingError(
            "a Dask scheduler needs dask.distributed; install it with: pip install 'sokoban[dask]'"
        ) from None
    return distributed


def _process_context() -> multiprocessing.context.BaseContext:
    # Forking a process that runs threads (rich's refresh thread, Dask's event loop, numba's
    # thread pool) can deadlock the child; a fork server starts workers from a clean process.
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def executor(workers: int | None = None, scheduler: str | None = None) -> Iterator[cf.Executor]:
    """A :mod:`concurrent.futures` executor, shut down when the block ends.

    :param workers: local worker processes (default: all cores); ``0`` runs every task in
        this process. Ignored when ``scheduler`` is given (the cluster has its own workers).
    :param scheduler: a Dask scheduler address such as ``tcp://127.0.0.1:8786``; the tasks
        then run on that cluster through ``Client.get_executor()``.
    """
    if scheduler is not None:
        distributed = _distributed()
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (ValueError, TypeError) as error:
            raise SchedulerError(f"bad scheduler address {scheduler!r}: {error}") from None
        except OSError as error:
            raise SchedulerError(f"cannot reach the scheduler {scheduler!r}: {error}") from None
        with client:
            pool = client.get_executor()
            pool.slots = max(1, sum(client.nthreads().values()))
            try:
                yield pool
            finally:
                pool.shutdown(wait=False)
        return
    if workers is not None and workers < 0:
        raise ValueError(f"workers must be 0 or more, not {workers}")
    most = MAX_WORKERS_PER_CORE * default_workers()
    if workers is not None and workers > most:
        raise SokobanError(
            f"{workers} worker processes are too many for {default_workers()} cores "
            f"(at most {most})"
        )
    if workers == 0:
        with InProcessExecutor() as pool:
            yield pool
        return
    n = workers or default_workers()
    pool = cf.ProcessPoolExecutor(max_workers=n, mp_context=_process_context())
    try:
        yield pool
    except BaseException:
        # Interrupted (Ctrl-C) or failed: stop the workers now rather than wait for their
        # running tasks, which may take hours, and leave none running on their own.
        _terminate(pool)
        raise
    pool.shutdown(wait=True, cancel_futures=True)


def _terminate(pool: cf.ProcessPoolExecutor) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())
    # Python 3.11's pool thread, seeing its workers gone, marks every pending future
    # broken, and fails with InvalidStateError on those already cancelled: noise here,
    # where the workers are stopped on purpose, so that thread's error is not printed.
    hook = threading.excepthook

    def quiet(args: Any) -> None:
        if not issubclass(args.exc_type, cf.InvalidStateError):
            hook(args)

    threading.excepthook = quiet
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        thread = getattr(pool, "_executor_manager_thread", None)
        if thread is not None:
            thread.join(timeout=5)
    finally:
        threading.excepthook = hook


def _slots(pool: cf.Executor) -> int:
    """How many tasks the executor runs at the same time."""
    if isinstance(pool, InProcessExecutor):
        return 1
    slots = getattr(pool, "slots", None) or getattr(pool, "_max_workers", None)
    return int(slots or default_workers())


def run(
    fn: Callable[[T], R],
    items: Iterable[T],
    workers: int | None = None,
    scheduler: str | None = None,
    description: str | None = None,
    total: int | None = None,
    *,
    pool: cf.Executor | None = None,
    in_flight: int | None = None,
) -> Iterator[tuple[T, R]]:
    """Apply ``fn`` to every item, yielding ``(item, result)`` pairs as tasks complete.

    Items are read lazily and at most ``in_flight`` tasks are submitted at a time
    (default: :data:`IN_FLIGHT_PER_WORKER` per worker). With a ``description`` a progress
    bar with an ETA is drawn on stderr; ``total`` (default ``len(items)`` when it has one)
    sizes it. A task that raises stops the run: pending tasks are cancelled and
    :class:`BatchError` names the item, except that a :class:`~sokoban.errors.SokobanError`
    (bad input) is raised as it is, and an interrupt as ``KeyboardInterrupt``. Results
    that complete together come in the order submitted. ``fn`` and the items must pickle
    (a module-level function) unless ``workers=0``.

    :param pool: an executor already open (from :func:`executor`) to reuse across runs;
        ``workers`` and ``scheduler`` are then ignored.
    """
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with contextlib.ExitStack() as stack:
        if pool is None:
            pool = stack.enter_context(executor(workers, scheduler))
        limit = in_flight or IN_FLIGHT_PER_WORKER * _slots(pool)
        progress = None
        task = None
        if description is not None:
            progress = stack.enter_context(_progress())
            task = progress.add_task(description, total=total)
        pending: dict[cf.Future[R], T] = {}
        source = iter(items)
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    try:
                        item = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    pending[pool.submit(fn, item)] = item
                if not pending:
                    break
                done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                # In the order submitted, so that the results before a failure come first.
                for future in [f for f in pending if f in done]:
                    item = pending.pop(future)
                    error = future.exception()
                    if isinstance(error, SokobanError):
                        raise error  # bad input found by a task: its own one-line message
                    if isinstance(error, KeyboardInterrupt):
                        # Ctrl-C or SIGTERM inside a task (workers=0): the caller's to handle.
                        raise KeyboardInterrupt from None
                    if error is not None:
                        raise BatchError(item, error) from error
                    if progress is not None and task is not None:
                        progress.advance(task)
                    yield item, future.result()
        finally:
            for future in pending:
                future.cancel()


def _progress() -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )

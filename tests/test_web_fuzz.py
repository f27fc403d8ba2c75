"""Schema-driven fuzzing of the web API (schemathesis, from the app's OpenAPI document):
on a bounded number of generated requests per operation, no answer is a 5xx and every
answer matches the schema the document declares for it."""

from __future__ import annotations

import atexit
import datetime
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import schemathesis
    from fastapi.testclient import TestClient
    from schemathesis.checks import not_a_server_error, response_schema_conformance

from sokoban.records import DailyRow
from sokoban.web import Settings, create_app
from sokoban.web.services.daily_maker import band_of, seed_of


def quick_daily(day: datetime.date) -> DailyRow:
    """A daily level made at once: the generator's run would outlast the requests' timeout."""
    return DailyRow(day, band_of(day), "#######\n#@ $ .#\n#######", "rRR", 3, 2, seed_of(day))


#: Generated requests per operation: enough to reach every validator, fast in CI.
EXAMPLES = 15

_folder = Path(tempfile.mkdtemp(prefix="sokoban-fuzz-"))
atexit.register(shutil.rmtree, _folder, ignore_errors=True)
APP = create_app(
    Settings(
        db=str(_folder / "fuzz.db"),
        solvers=1,
        queue=2,
        daily_maker=quick_daily,
        signup_burst=1_000_000,
        allowed_hosts=("*",),  # schemathesis's requests name their own host
    )
)
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@pytest.fixture(scope="module", autouse=True)
def running_app() -> Iterator[None]:
    # The lifespan starts the solver pool the operations use.
    with TestClient(APP):
        yield


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_api_answers_match_their_schema(case: schemathesis.Case) -> None:
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("time_limit"), (int, float)):
        body["time_limit"] = min(body["time_limit"], 0.5)  # keep the run short
    case.call_and_validate(checks=[not_a_server_error, response_schema_conformance])

"""Shared test helpers: import paths, in-process dbt runs, DuckDB reads."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
for path in (REPO_ROOT / "python_udfs", REPO_ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))


@dataclass
class DbtRun:
    """Outcome of one in-process dbt invocation, with everything it logged."""

    success: bool
    messages: list[str] = field(default_factory=list)
    result: Any = None

    @property
    def output(self) -> str:
        return "\n".join(self.messages)


def run_dbt(
    args: list[str],
    database: Path,
    work_dir: Path,
    project_dir: Path = REPO_ROOT,
    dbt_vars: dict[str, Any] | None = None,
    manifest: Any = None,
) -> DbtRun:
    """Invoke dbt in this process against `database`, collecting its log messages (with
    `manifest`, a parsed one is reused, as dbtRunner(manifest=...) does)."""
    import json

    from dbt.cli.main import dbtRunner

    messages: list[str] = []

    def collect(event: Any) -> None:
        if event.info.level in ("info", "warn", "error"):
            messages.append(event.info.msg)

    command = [*args, "--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    if args[0] != "deps":
        command += ["--target-path", str(work_dir / "target"), "--log-path", str(work_dir / "logs")]
    if dbt_vars:
        command += ["--vars", json.dumps(dbt_vars)]
    previous = os.environ.get("CHALLENGE_FAIRNESS_DUCKDB")
    os.environ["CHALLENGE_FAIRNESS_DUCKDB"] = str(database)
    cwd = Path.cwd()
    os.chdir(project_dir)  # module_paths in profiles.yml are relative to the current directory
    try:
        result = dbtRunner(manifest=manifest, callbacks=[collect]).invoke(command)
    finally:
        _release_duckdb()
        os.chdir(cwd)
        if previous is None:
            os.environ.pop("CHALLENGE_FAIRNESS_DUCKDB", None)
        else:
            os.environ["CHALLENGE_FAIRNESS_DUCKDB"] = previous
    return DbtRun(success=result.success, messages=messages, result=result)


def compile_inline(template: str, work_dir: Path) -> str:
    """The SQL dbt compiles from an inline template (a macro called on relation names the
    test then registers), with a throwaway database and target in `work_dir`."""
    run = run_dbt(
        ["compile", "--inline", template], database=work_dir / "compile.duckdb", work_dir=work_dir
    )
    assert run.success, run.output
    return str(run.result.result.results[0].node.compiled_code)


def _release_duckdb() -> None:
    """Close the DuckDB instance dbt-duckdb keeps per process, so the file can be reopened."""
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    environment = DuckDBConnectionManager._ENV
    if environment is not None:
        environment.close()
    DuckDBConnectionManager.close_all_connections()


def read_table(database: Path, sql: str) -> Any:
    """Run one query on a DuckDB file (read-only) and return a pandas DataFrame."""
    import duckdb

    with duckdb.connect(str(database), read_only=True) as connection:
        return connection.sql(sql).df()


def write_macro_probe(project: Path, profile: str, paths: str) -> None:
    """A probe dbt project on the package's macros, named challenge_fairness (the macros
    call each other as challenge_fairness.<macro>); `paths` is its `*-paths` YAML lines
    (e.g. "seed-paths: [seeds]"). Its profile reads the database from
    CHALLENGE_FAIRNESS_DUCKDB, as run_dbt sets it."""
    project.mkdir(parents=True, exist_ok=True)
    (project / "macros").symlink_to(REPO_ROOT / "macros")
    (project / "dbt_project.yml").write_text(
        textwrap.dedent(
            f"""\
            name: challenge_fairness
            version: "1.0.0"
            profile: {profile}
            macro-paths: [macros]
            """
        )
        + paths.strip()
        + "\n"
    )
    (project / "profiles.yml").write_text(
        textwrap.dedent(
            f"""\
            {profile}:
              target: probe
              outputs:
                probe:
                  type: duckdb
                  path: "{{{{ env_var('CHALLENGE_FAIRNESS_DUCKDB') }}}}"
            """
        )
    )


@pytest.fixture
def dbt_workspace(tmp_path: Path) -> Iterator[Path]:
    """A scratch folder for one dbt run (database, target, logs)."""
    yield tmp_path

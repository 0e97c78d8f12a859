"""The three command lines never destroy what they did not create and never end in a
traceback (issue 32, item 1): the report's --out refuses a database and any file it did not
write, the demo refuses raw tables it did not generate, and every OS or input error is one
sentence on stderr with exit code 2. Text from the data is escaped before it reaches a
terminal (item 6): a control character in an id cannot forge a line."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from challenge_fairness import demo, report, summary
from challenge_fairness.cli_guard import terminal_safe
from hypothesis import given, settings
from hypothesis import strategies as st


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_sentence(capsys: pytest.CaptureFixture[str], code: int, *fragments: str) -> str:
    """Assert exit 2 and one line on stderr holding every fragment; returns that line."""
    captured = capsys.readouterr()
    assert code == 2, captured
    assert "Traceback" not in captured.err + captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def marts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny database with the verdicts mart only (the report writes the rest as absent)."""
    database = tmp_path_factory.mktemp("marts") / "marts.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema raw; create table raw.attempts (attempt_id varchar)")
        connection.execute(
            """create table main.fct_challenge_verdicts as
            select * from (values ('ch-1', 'pass', 'fine', 0.6))
            as t(challenge_id, verdict, reason, q_value)"""
        )
    return database


# --- report --out ------------------------------------------------------------------------


def test_report_out_refuses_the_database_itself(
    marts: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = digest(marts)
    code = report.main([str(marts), "--out", str(marts), "--force"])
    one_sentence(capsys, code, "is the database the report reads")
    assert digest(marts) == before


def test_report_out_refuses_another_database_even_with_force(
    marts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "platform.duckdb"
    with duckdb.connect(str(other)) as connection:
        connection.execute("create table t as select 1 as x")
    before = digest(other)
    code = report.main([str(marts), "--out", str(other), "--force"])
    one_sentence(capsys, code, "is a DuckDB database: refusing to overwrite it")
    assert digest(other) == before


def test_report_out_replaces_its_own_report_but_not_a_foreign_file_without_force(
    marts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    assert report.main([str(marts), "--out", str(out)]) == 1  # written, some marts absent
    assert report.main([str(marts), "--out", str(out)]) == 1  # its own file: replaced
    capsys.readouterr()
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my notes</p>")
    code = report.main([str(marts), "--out", str(notes)])
    one_sentence(capsys, code, "exists and is not a report this package wrote", "--force")
    assert notes.read_text() == "<p>my notes</p>"
    assert report.main([str(marts), "--out", str(notes), "--force"]) == 1
    assert "challenge_fairness.report" in notes.read_text()


@pytest.mark.parametrize("kind", ["folder", "under_a_file", "unwritable"])
def test_report_out_os_errors_are_one_sentence(
    kind: str, marts: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if kind == "folder":
        out, fragment = tmp_path, "is a folder"
    elif kind == "under_a_file":
        (tmp_path / "file.txt").write_text("x")
        out, fragment = tmp_path / "file.txt" / "sub" / "report.html", "which is a file"
    else:
        out, fragment = Path("/proc/challenge_fairness/report.html"), "cannot write the report"
    code = report.main([str(marts), "--out", str(out)])
    one_sentence(capsys, code, fragment, str(out.parent))


# --- summary on marts of an older build ---------------------------------------------------


def test_summary_on_marts_of_an_older_build_gives_the_upgrade_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "old.duckdb"
    with duckdb.connect(str(database)) as connection:  # verdicts without today's columns
        connection.execute(
            "create table main.fct_challenge_verdicts as select 'ch-1' as challenge_id"
        )
    code = summary.main([str(database)])
    one_sentence(capsys, code, "built by an older version", "dbt build --full-refresh")


# --- demo ---------------------------------------------------------------------------------


def test_demo_refuses_raw_tables_it_did_not_generate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "mine.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute("create schema raw; create table raw.attempts as select 'real' as x")
    before = digest(database)
    code = demo.main(["--duckdb", str(database), "--attempts", "50"])
    one_sentence(capsys, code, "raw.attempts", "did not write", "--force")
    assert digest(database) == before
    # its own tables are replaced, a foreign one with --force
    fresh = tmp_path / "demo.duckdb"
    assert demo.main(["--duckdb", str(fresh), "--attempts", "50"]) == 0
    assert demo.main(["--duckdb", str(fresh), "--attempts", "60"]) == 0
    assert demo.main(["--duckdb", str(database), "--attempts", "50", "--force"]) == 0
    capsys.readouterr()
    # a parquet folder: the same rule
    folder = tmp_path / "platform"
    folder.mkdir()
    pq.write_table(pa.table({"x": ["real"]}), folder / "models.parquet")
    code = demo.main(["--parquet-dir", str(folder), "--attempts", "50"])
    one_sentence(capsys, code, "models.parquet", "did not write")
    assert pq.read_table(folder / "models.parquet").column_names == ["x"]
    assert demo.main(["--parquet-dir", str(tmp_path / "own"), "--attempts", "50"]) == 0
    assert demo.main(["--parquet-dir", str(tmp_path / "own"), "--attempts", "50"]) == 0


@pytest.mark.parametrize(
    ("file_name", "fragment"),
    [
        ("raw.duckdb", "its schema 'raw' of the same name"),
        ("RAW.db", "its schema 'raw' of the same name"),
        ("main.duckdb", "a name DuckDB reserves (it would call the database main_db)"),
    ],
)
def test_demo_refuses_a_database_named_like_its_schema_or_a_reserved_name(
    file_name: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / file_name
    code = demo.main(["--duckdb", str(database), "--attempts", "50"])
    one_sentence(capsys, code, fragment, "name the file otherwise")
    assert not database.exists()
    # the same stem under another schema is fine for the demo (the build checks its own)
    if file_name == "raw.duckdb":
        argv = ["--duckdb", str(database), "--schema", "landing", "--attempts", "50"]
        assert demo.main(argv) == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--attempts", "-5"], "--attempts must be a positive number"),
        (["--attempts", "0"], "--attempts must be a positive number"),
        (["--truth-json", "/proc/challenge_fairness/truth.json"], "cannot write the platform"),
        (["--duckdb-under-file"], "is a file, not a folder"),
        (["--not-duckdb"], "is not a DuckDB database"),
    ],
)
def test_demo_input_and_os_errors_are_one_sentence(
    args: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("notes")
    if args == ["--duckdb-under-file"]:
        argv = ["--parquet-dir", str(text), "--attempts", "50"]
    elif args == ["--not-duckdb"]:
        argv = ["--duckdb", str(text), "--attempts", "50"]
    else:
        argv = ["--duckdb", str(tmp_path / "x.duckdb"), "--attempts", "50", *args]
    code = demo.main(argv)
    one_sentence(capsys, code, fragment)
    assert text.read_text() == "notes"


# --- escaping -------------------------------------------------------------------------------

control_text = st.text(
    alphabet=st.one_of(
        st.characters(categories=("Cc", "Zl", "Zp")),
        st.sampled_from("\x1b[2K\rFAIRNESS GATE all good\n\u202e\u2028\x85"),
        st.characters(codec="utf-8", exclude_categories=("Cs",)),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(control_text)
def test_terminal_safe_keeps_every_value_on_one_visible_line(value: str) -> None:
    shown = terminal_safe(value)
    assert len(shown.splitlines()) <= 1
    assert all(char.isprintable() or char == " " for char in shown)
    if all(char.isprintable() or char == " " for char in value):
        assert shown == value  # printable text is untouched


@settings(max_examples=15, deadline=None)
@given(ids=st.lists(control_text, min_size=1, max_size=3, unique=True))
def test_summary_escapes_control_characters_in_ids(
    tmp_path_factory: pytest.TempPathFactory, ids: list[str]
) -> None:
    database = tmp_path_factory.mktemp("ids") / "ids.duckdb"
    with duckdb.connect(str(database)) as connection:
        connection.execute(
            "create table main.fct_challenge_verdicts"
            " (challenge_id varchar, verdict varchar, reason varchar, q_value double)"
        )
        for challenge_id in ids:
            connection.execute(
                "insert into main.fct_challenge_verdicts values (?, 'flagged', ?, 0.001)",
                [challenge_id, "family " + challenge_id],
            )
    text, _ = summary.build_summary(database)
    for line in text.splitlines():
        assert all(char.isprintable() or char == " " for char in line), repr(line)
    flagged = [line for line in text.splitlines() if line.lstrip().startswith("FLAGGED ")]
    assert len(flagged) == len(ids)


@pytest.mark.dbt
def test_the_gate_macro_escapes_like_the_command_lines(tmp_path: Path) -> None:
    """The macro terminal_safe (the gate's log lines) and cli_guard.terminal_safe agree on
    random text full of control characters, line separators and bidi controls."""
    import random

    from conftest import run_dbt

    pool = [chr(code) for code in range(0x00, 0xA0)] + list("\u2028\u2029\u202e\u200f é中")
    rng = random.Random(32)
    values = ["".join(rng.choice(pool) for _ in range(rng.randint(1, 12))) for _ in range(200)]
    values += ["a\nFAIRNESS GATE (error): all good", "\x1b[2K\rPASS", "plain é 中"]
    template = (
        "{% for v in var('terminal_safe_fuzz') %}"
        "{{ challenge_fairness.terminal_safe(v) }}\x1f{% endfor %}"
    )
    run = run_dbt(
        ["compile", "--inline", template],
        database=tmp_path / "none.duckdb",
        work_dir=tmp_path,
        dbt_vars={"terminal_safe_fuzz": values, "raw_parquet_dir": str(tmp_path)},
    )
    assert run.success, run.output
    shown = run.result.result.results[0].node.compiled_code.split("\x1f")[:-1]
    assert shown == [terminal_safe(value) for value in values]
    assert all("\n" not in text and "\x1b" not in text for text in shown)

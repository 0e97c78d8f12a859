"""The test-code lint: findings on the fixtures in three languages, the hard negatives, the
briefing's names, degenerate input, and the renaming property."""

from __future__ import annotations

import keyword
import sys
import types

import pytest
from challenge_fairness import test_code_lint as lint
from code_lint_fixtures import FIXTURES, HELD_OUT, LintFixture, expected_findings
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ALL_FIXTURES = FIXTURES + HELD_OUT
FIXTURE_IDS = [fixture.name for fixture in ALL_FIXTURES]


def found(fixture: LintFixture) -> set[tuple[str, int]]:
    result = lint.lint_test_code(fixture.code, fixture.language, fixture.briefing)
    return {(finding.category, finding.line) for finding in result.findings}


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=FIXTURE_IDS)
def test_fixture_findings_and_style(fixture: LintFixture) -> None:
    result = lint.lint_test_code(fixture.code, fixture.language, fixture.briefing)
    assert result.status == "ok"
    assert {(f.category, f.line) for f in result.findings} == expected_findings(fixture)
    assert result.interface_style == fixture.style
    for finding in result.findings:
        assert finding.category in lint.CATEGORIES
        assert finding.snippet == fixture.code.splitlines()[finding.line - 1].strip()[:200]
        assert finding.message and finding.suggested_rewrite


def test_every_category_has_a_positive_fixture_in_every_language() -> None:
    covered = {
        (fixture.name.split("_")[0], category)
        for fixture in FIXTURES
        for category, _ in expected_findings(fixture)
    }
    for language in ("py", "js", "ts"):
        for category in lint.CATEGORIES:
            assert (language, category) in covered, (language, category)


def test_hard_negatives_cover_the_issue_list_in_every_language() -> None:
    negatives = [fixture for fixture in FIXTURES if fixture.hard_negative]
    assert all(not expected_findings(fixture) for fixture in negatives)
    kinds = {"briefing_names", "parsed_amount", "http_json", "briefed_service_mock"}
    for language in ("py", "js", "ts"):
        names = {f.name for f in negatives if f.name.startswith(language)}
        present = {kind for kind in kinds if f"{language}_negative_{kind}" in names}
        # Python and TypeScript carry all four; JavaScript three (its names case is the
        # TypeScript one's twin) plus a CLI negative.
        assert len(present) >= 3, (language, present)


def test_precision_and_recall_on_the_fixtures() -> None:
    true_positives = false_positives = false_negatives = 0
    for fixture in ALL_FIXTURES:
        expected, got = expected_findings(fixture), found(fixture)
        true_positives += len(expected & got)
        false_positives += len(got - expected)
        false_negatives += len(expected - got)
    precision = true_positives / (true_positives + false_positives)
    recall = true_positives / (true_positives + false_negatives)
    assert true_positives >= 68
    assert precision == 1.0 and recall == 1.0


def test_language_is_inferred_when_null() -> None:
    python = "from solution import f\n\ndef test_f():\n    assert f(1) == 2\n"
    javascript = "const { f } = require('./solution');\ntest('f', () => expect(f(1)).toBe(2));\n"
    typescript = "import { f } from './solution';\nconst n: number = f(1);\n"
    assert lint.infer_language(python) == "python"
    assert lint.infer_language(javascript) == "javascript"
    assert lint.infer_language(typescript) == "typescript"
    result = lint.lint_test_code(python, None, "`f(x)`")
    assert result.language == "python" and result.is_language_inferred
    assert lint.lint_test_code(python, "PY", "`f(x)`").language == "python"


def test_degenerate_input_gives_a_status_not_a_crash() -> None:
    assert lint.lint_test_code(None, "python", "b").status == "no_code"
    assert lint.lint_test_code("  \n", None, None).status == "no_code"
    unsupported = lint.lint_test_code("x = 1", "ruby", None)
    assert unsupported.status == "unsupported_language" and "ruby" in (unsupported.reason or "")
    broken = lint.lint_test_code("def test(:\n    assert f() == 'a b c d'\n", "python", None)
    assert broken.status == "partial_parse"
    assert broken.interface_style == "unknown"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code=st.text(max_size=300),
    language=st.sampled_from([None, "python", "javascript", "typescript"]),
    briefing=st.none() | st.text(max_size=200),
)
def test_any_text_lints_without_error(code: str, language: str | None, briefing: str | None):
    result = lint.lint_test_code(code, language, briefing)
    assert result.status in ("ok", "partial_parse", "no_code")
    lines = max(1, len(code.splitlines()))
    assert all(1 <= finding.line <= lines + 1 for finding in result.findings)


def test_briefing_contract_names() -> None:
    contract = lint.briefing_contract(
        "Write `parse_amount(text)` in `app/main.py`. It calls fetchRate(code) and returns "
        "a dict.\n```python\nresult = convert_all(items)\n```\nUse the Stripe API."
    )
    for name in ("parse_amount", "text", "fetchRate", "convert_all", "items", "main"):
        assert contract.names_identifier(name), name
    assert contract.names_path("app/main.py") and contract.names_path("app.main")
    assert not contract.names_path("app/other")
    assert not contract.names_identifier("returns") and not contract.names_identifier("dict")
    assert contract.names_library("stripe") and not contract.names_library("requests")
    assert lint.briefing_contract(None).names == frozenset()


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("$1,234.56", "currency"),
        ("12,00 €", "currency"),
        ("1,234,567", "number"),
        ("3.14", "number"),
        ("45%", "number"),
        ("2026-01-05", "date"),
        ("  padded", "padding"),
        ("a    b", "padding"),
        ("007", "padding"),
        ("Invalid amount given here", "wording"),
        ("pen", None),
        ("42", None),
        ("ok\n", None),
        ("", None),
    ],
)
def test_formatted_kind(value: str, kind: str | None) -> None:
    assert lint.formatted_kind(value) == kind


def test_a_format_the_briefing_states_is_its_contract() -> None:
    code = 'from solution import total\n\ndef test_t():\n    assert total(1) == "Total: $0.01"\n'
    flagged = lint.lint_test_code(code, "python", "Write `total(cents)`.")
    assert [f.category for f in flagged.findings] == ["exact_output_format"]
    stated = lint.lint_test_code(code, "python", "`total(cents)` prints `Total: $0.01`.")
    assert stated.findings == ()


# --- the renaming property ----------------------------------------------------------------

SOLUTION = """
def {helper}(cents):
    return cents / 100


def format_total(cents):
    return f"${{{helper}(cents):,.2f}}"
"""
INTERFACE_TEST = next(f for f in FIXTURES if f.name == "py_negative_parsed_amount")
IMPLEMENTATION_TEST = """from solution import format_total, {helper}


def test_total():
    assert {helper}(150) == 1.5
"""

helper_names = (
    st.from_regex(r"[a-z][a-z0-9_]{1,12}", fullmatch=True)
    .filter(lambda name: not keyword.iskeyword(name))
    .filter(lambda name: not lint.briefing_contract(INTERFACE_TEST.briefing).names_identifier(name))
    .filter(lambda name: name not in dir(__builtins__) and name not in sys.stdlib_module_names)
)


def run_test_against(test_source: str, helper: str) -> bool:
    """Run every test_* function of the source against a solution whose helper is `helper`."""
    solution = types.ModuleType("solution")
    exec(SOLUTION.format(helper=helper), solution.__dict__)  # noqa: S102 - a generated fixture
    saved = sys.modules.get("solution")
    sys.modules["solution"] = solution
    try:
        namespace: dict[str, object] = {}
        exec(test_source, namespace)  # noqa: S102
        for name, value in namespace.items():
            if name.startswith("test_") and callable(value):
                value()
        return True
    except (AssertionError, ImportError, AttributeError, NameError):
        return False
    finally:
        if saved is None:
            del sys.modules["solution"]
        else:
            sys.modules["solution"] = saved


@settings(max_examples=40, deadline=None)
@given(first=helper_names, second=helper_names)
def test_renaming_an_unbriefed_function_never_changes_an_interface_test(first, second):
    result = lint.lint_test_code(INTERFACE_TEST.code, "python", INTERFACE_TEST.briefing)
    assert result.findings == () and result.interface_style == "public_api"
    assert run_test_against(INTERFACE_TEST.code, first)
    assert run_test_against(INTERFACE_TEST.code, first) == run_test_against(
        INTERFACE_TEST.code, second
    )


@settings(max_examples=40, deadline=None)
@given(first=helper_names, second=helper_names)
def test_a_flagged_test_is_the_one_renaming_breaks(first, second):
    code = IMPLEMENTATION_TEST.format(helper=first)
    result = lint.lint_test_code(code, "python", INTERFACE_TEST.briefing)
    assert [(f.category, f.line) for f in result.findings] == [("name_expectation", 1)]
    assert result.interface_style == "internal_api"
    assert run_test_against(code, first)
    assert run_test_against(code, second) == (first == second)


JS_RESERVED = frozenset(
    [
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "let",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "enum",
        "await",
        "implements",
        "interface",
        "package",
        "private",
        "protected",
        "public",
        "static",
    ]
)
RENAMABLE = [
    ("py_name_expectation", "cents_to_dollars"),
    ("py_name_expectation", "round_half_up"),
    ("py_cart_methods", "apply_discount"),
    ("js_name_expectation", "centsToDollars"),
    ("js_internal_mock", "roundCents"),
    ("ts_name_expectation", "applyDiscount"),
    ("ts_name_expectation", "LineItem"),
]


@settings(max_examples=30, deadline=None)
@given(case=st.sampled_from(RENAMABLE), new_name=helper_names)
def test_the_lint_depends_on_whether_a_name_is_briefed_not_on_the_name(case, new_name):
    fixture = next(f for f in FIXTURES if f.name == case[0])
    assume(new_name not in fixture.code and new_name not in JS_RESERVED)
    assume(not lint.briefing_contract(fixture.briefing).names_identifier(new_name))
    renamed = fixture.code.replace(case[1], new_name)
    before = lint.lint_test_code(fixture.code, fixture.language, fixture.briefing)
    after = lint.lint_test_code(renamed, fixture.language, fixture.briefing)
    assert {(f.category, f.line) for f in after.findings} == {
        (f.category, f.line) for f in before.findings
    }
    assert after.interface_style == before.interface_style


# --- the command line ----------------------------------------------------------------------


def write_challenge(folder, briefing: str, files: dict[str, str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "briefing.md").write_text(briefing)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


def fixture_named(name: str) -> LintFixture:
    return next(f for f in ALL_FIXTURES if f.name == name)


def test_cli_exits_1_with_file_line_messages(tmp_path, capsys) -> None:
    flagged, clean = fixture_named("py_exact_output_format"), fixture_named("js_negative_cli")
    write_challenge(
        tmp_path / "price",
        flagged.briefing,
        {
            "tests/test_total.py": flagged.code,
            "solution.py": "def format_total(c):\n    return 'x'\n",
            "node_modules/x/y.test.js": "expect(a).toBe('$1.00');\n",
        },
    )
    write_challenge(tmp_path / "wc", clean.briefing, {"wc.test.js": clean.code})
    code = lint.main([str(tmp_path / "price"), str(tmp_path / "wc")])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    expected = sorted(expected_findings(flagged), key=lambda pair: pair[1])
    assert [line.split(": ")[0:2] for line in out] == [
        [f"{tmp_path / 'price' / 'tests' / 'test_total.py'}:{number}", category]
        for category, number in expected
    ]


def test_cli_exits_0_on_a_clean_folder(tmp_path, capsys) -> None:
    clean = fixture_named("ts_negative_briefing_names")
    write_challenge(tmp_path, clean.briefing, {"__tests__/cart.ts": clean.code})
    assert lint.main([str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ([], "required"),
        (["{tmp}/absent"], "is not a folder"),
        (["{tmp}"], "has no briefing"),
        (["{tmp}", "--briefing", "{tmp}/none.md"], "cannot read the briefing"),
        (["{tmp}", "--no-such-option"], "unrecognized arguments"),
    ],
)
def test_cli_exits_2_with_one_sentence(tmp_path, capsys, arguments, words) -> None:
    (tmp_path / "test_x.py").write_text("assert 1\n")
    assert lint.main([argument.format(tmp=tmp_path) for argument in arguments]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_cli_without_test_files_is_a_usage_error(tmp_path, capsys) -> None:
    write_challenge(tmp_path, "`f()`", {"solution.py": "def f():\n    pass\n"})
    assert lint.main([str(tmp_path)]) == 2
    assert "has no test file" in capsys.readouterr().err


# --- the UDF ------------------------------------------------------------------------------


def test_udf_equals_the_pure_lint_row_by_row() -> None:
    import duckdb
    from challenge_fairness.registry import register_udfs

    connection = duckdb.connect()
    register_udfs(connection)
    rows = [(f.code, f.language, f.briefing) for f in ALL_FIXTURES[:8]]
    rows += [
        (None, None, None),
        ("  ", "python", None),
        ("x = 1", "ruby", "b"),
        ("x = 1", None, None),
    ]
    connection.execute(
        "create table cases (n integer, code varchar, language varchar, briefing varchar)"
    )
    connection.executemany(
        "insert into cases values (?, ?, ?, ?)", [(n, *row) for n, row in enumerate(rows)]
    )
    results = connection.execute(
        "select n, cf_lint_test_code(code, language, briefing) from cases order by n"
    ).fetchall()
    assert len(results) == len(rows)
    for (n, got), (code, language, briefing) in zip(results, rows, strict=True):
        expected = lint.lint_test_code(code, language, briefing)
        assert got["status"] == expected.status, n
        assert got["language"] == expected.language
        assert got["is_language_inferred"] == expected.is_language_inferred
        assert got["interface_style"] == expected.interface_style
        assert [(f["category"], f["line"], f["snippet"]) for f in got["findings"]] == [
            (f.category, f.line, f.snippet) for f in expected.findings
        ]

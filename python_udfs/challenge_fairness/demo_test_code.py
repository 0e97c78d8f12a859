"""The demo platform's test code (optional columns test_cases.test_code and .language).

The test cases of a few challenges get source code: interface tests (a command line run
through a subprocess) in Python, JavaScript and TypeScript, one with its language left NULL
(inferred), and three planted tests of the implementation: the DIF-planted test case
(`DETECTOR_PLANTS['test_case_dif']`) expects a function name and an exact formatted total,
so its finding and its DIF are one review-queue item; two others, without DIF, read the
file layout and mock a library (the gated categories).
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

TEST_CODE_CHALLENGES = ("ch-s05", "ch-s07")

PLANTED_TEST_CODE: dict[str, tuple[str, str, list[tuple[str, int]]]] = {
    # test case -> (language, code, [(category, line)] the lint must report)
    "ch-s05-tc3": (
        "python",
        """from solution import format_invoice_total


def test_invoice_total():
    assert format_invoice_total([1234.5]) == "Total: 1,234.50 EUR"
""",
        [("name_expectation", 1), ("exact_output_format", 5)],
    ),
    "ch-s05-tc5": (
        "javascript",
        """const { spawnSync } = require('child_process');
jest.mock('lodash');

test('ch-s05-tc5', () => {
  const result = spawnSync('node', ['solution.js'], { input: 'case 5' });
  expect(result.status).toBe(0);
});
""",
        [("library_usage", 2)],
    ),
    "ch-s07-tc2": (
        "typescript",
        """import { existsSync } from 'fs';
import { spawnSync } from 'child_process';

it('ch-s07-tc2', () => {
  expect(existsSync('app/page.tsx')).toBe(true);
  expect(spawnSync('npm', ['run', 'build']).status).toBe(0);
});
""",
        [("implementation_structure", 5)],
    ),
}

_INTERFACE_TESTS = {
    "python": """import subprocess
import sys


def test_{name}():
    result = subprocess.run(
        [sys.executable, "solution.py"], input={input}, capture_output=True, text=True
    )
    assert result.returncode == 0
    assert result.stdout.strip()
""",
    "javascript": """const {{ spawnSync }} = require('child_process');

test('{case}', () => {{
  const result = spawnSync('node', ['solution.js'], {{ input: {input} }});
  expect(result.status).toBe(0);
}});
""",
    "typescript": """import {{ spawnSync }} from 'child_process';

it('{case}', () => {{
  const result = spawnSync('node', ['dist/solution.js'], {{ input: {input} }});
  expect(result.status).toBe(0);
  expect(result.stdout.toString().trim().length).toBeGreaterThan(0);
}});
""",
}


def add_test_code(tables: dict[str, pa.Table]) -> tuple[dict[str, pa.Table], dict[str, Any]]:
    """Add test_code and language to test_cases (NULL outside TEST_CODE_CHALLENGES); the truth."""
    tables = dict(tables)
    cases = tables["test_cases"]
    codes: list[str | None] = []
    languages: list[str | None] = []
    languages_cycle = ("python", "javascript", "typescript")
    for number, (case_id, challenge_id, input_text) in enumerate(
        zip(
            cases.column("test_case_id").to_pylist(),
            cases.column("challenge_id").to_pylist(),
            cases.column("input_text").to_pylist(),
            strict=True,
        )
    ):
        if case_id in PLANTED_TEST_CODE:
            language, code, _ = PLANTED_TEST_CODE[case_id]
            codes.append(code)
            languages.append(language)
        elif challenge_id in TEST_CODE_CHALLENGES:
            language = languages_cycle[number % 3]
            codes.append(
                _INTERFACE_TESTS[language].format(
                    name=case_id.replace("-", "_"), case=case_id, input=json.dumps(input_text)
                )
            )
            # one test case's language is left to the lint to infer
            languages.append(None if case_id == "ch-s07-tc1" else language)
        else:
            codes.append(None)
            languages.append(None)
    tables["test_cases"] = cases.append_column(
        "test_code", pa.array(codes, pa.string())
    ).append_column("language", pa.array(languages, pa.string()))
    truth = {
        "challenges": list(TEST_CODE_CHALLENGES),
        "findings": sorted(
            [case_id, category, line]
            for case_id, (_, _, found) in PLANTED_TEST_CODE.items()
            for category, line in found
        ),
    }
    return tables, truth

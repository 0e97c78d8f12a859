"""Arrow adapter of the test-code lint (challenge_fairness.test_code_lint): one SQL row per
test case, its findings as a list of structs."""

from __future__ import annotations

import pyarrow as pa

from challenge_fairness.registry import UdfSpec
from challenge_fairness.test_code_lint import lint_test_code

FINDING_TYPE = pa.struct(
    [
        ("category", pa.string()),
        ("line", pa.int64()),
        ("snippet", pa.string()),
        ("message", pa.string()),
        ("suggested_rewrite", pa.string()),
    ]
)
LINT_TYPE = pa.struct(
    [
        ("status", pa.string()),
        ("reason", pa.string()),
        ("language", pa.string()),
        ("is_language_inferred", pa.bool_()),
        ("interface_style", pa.string()),
        ("findings", pa.list_(FINDING_TYPE)),
    ]
)


def lint_test_code_udf(
    test_code: pa.ChunkedArray, language: pa.ChunkedArray, briefing_text: pa.ChunkedArray
) -> pa.StructArray:
    """cf_lint_test_code(test_code, language, briefing_text) per test case (NULL code:
    status no_code; NULL briefing: no name is the briefing's)."""
    rows = zip(test_code.to_pylist(), language.to_pylist(), briefing_text.to_pylist(), strict=True)
    results = []
    for code, label, briefing in rows:
        result = lint_test_code(code, label, briefing)
        results.append(
            {
                "status": result.status,
                "reason": result.reason,
                "language": result.language,
                "is_language_inferred": result.is_language_inferred,
                "interface_style": result.interface_style,
                "findings": [
                    {
                        "category": finding.category,
                        "line": finding.line,
                        "snippet": finding.snippet,
                        "message": finding.message,
                        "suggested_rewrite": finding.suggested_rewrite,
                    }
                    for finding in result.findings
                ],
            }
        )
    return pa.array(results, type=LINT_TYPE)


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec("cf_lint_test_code", lint_test_code_udf, ("VARCHAR", "VARCHAR", "VARCHAR"), LINT_TYPE),
)

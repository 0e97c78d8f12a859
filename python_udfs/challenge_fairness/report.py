"""The fairness report people read: one self-contained, offline HTML file built from the marts.

python -m challenge_fairness.report DATABASE [--out target/fairness_report.html]

Reads the public marts from the DuckDB file (read-only) and writes ONE HTML file with inline
CSS and inline SVG plots (matplotlib): no script, font, style sheet or image is fetched from
anywhere. A section whose mart was not built says so instead of failing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import html
import io
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import jinja2
import matplotlib
import numpy as np
import pandas as pd
from markupsafe import Markup

matplotlib.use("Agg")
from matplotlib.colors import BoundaryNorm, ListedColormap, TwoSlopeNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402

from challenge_fairness import leaderboard_report  # noqa: E402
from challenge_fairness.cli_guard import (  # noqa: E402
    check_report_target,
    run_cli,
    terminal_safe,
)
from challenge_fairness.marts_database import (  # noqa: E402
    MartsUnavailable,
    connect_read_only,
    existing_tables,
    missing_marts,
    unbuilt_message,
)
from challenge_fairness.summary import BLOCKING_FINDINGS  # noqa: E402

TEMPLATE_DIR = Path(__file__).with_name("templates")
TEMPLATE_NAME = "fairness_report.html.j2"

# Marts the report reads.
PLATFORM_SCORE = "rpt_platform_fairness_score"
REVIEW_QUEUE = "rpt_review_queue"
VERDICTS = "fct_challenge_verdicts"
EFFECTS = "fct_family_adjusted_effects"
COMBINATION_DIFFICULTY = "fct_combination_difficulty"
VERDICT_HISTORY = "fct_challenge_verdict_history"
MONTHLY_REPORT = "rpt_monthly_bias_report"
GATE_RESULTS = "fct_fairness_gate_results"
GATE_FINDINGS = "fct_fairness_gate_findings"
SOURCE_COUNTS = "fct_source_row_counts"
REJECTED_ROWS = "fct_rejected_rows"
DETECTOR_MARTS = (
    "fct_challenge_contamination",
    "fct_challenge_instance_overlap",
    "fct_test_case_bias",
    "fct_test_code_lint",
    "fct_rubric_item_bias",
    "fct_experiment_results",
    "fct_challenge_irt",
    "fct_api_memorization",
    "fct_approach_bias",
)
MARTS_READ = (
    VERDICTS,
    EFFECTS,
    REVIEW_QUEUE,
    GATE_RESULTS,
    PLATFORM_SCORE,
    COMBINATION_DIFFICULTY,
    VERDICT_HISTORY,
    MONTHLY_REPORT,
    SOURCE_COUNTS,
    REJECTED_ROWS,
    "fct_challenge_attempts_needed",
    leaderboard_report.LEADERBOARD,
    *DETECTOR_MARTS,
)

# Okabe & Ito (2008) colour-blind-safe palette.
OKABE_ITO = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#000000",
)
VERDICT_COLOURS = {
    "pass": "#009E73",
    "flagged": "#D55E00",
    "insufficient_evidence": "#F0E442",
    "not_testable": "#BBBBBB",
}
NO_DATA_COLOUR = "#FFFFFF"
LEAD_COLOUR = "#D55E00"
OTHER_COLOUR = "#56B4E9"
MIN_HEATMAP_LIMIT = 10.0  # points: the colour scale spans at least +-10 (few shades for noise)
MAX_HISTORY_ROWS_ALL = 40  # up to this many challenges the history grid shows them all

SVG_STYLE: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",  # text stays text: searchable, accessible, smaller
    "svg.hashsalt": "challenge_fairness",  # stable element ids, reproducible output
    "font.family": ["DejaVu Sans", "Liberation Sans", "Arial", "sans-serif"],
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.titleweight": "bold",
}


@dataclass
class Plot:
    """One inline SVG plot with the attributes tests and readers find it by."""

    kind: str
    svg: Markup
    caption: str
    challenge_id: str | None = None
    template_id: str | None = None
    notes: list[str] = field(default_factory=list)
    collapsed: bool = False


@dataclass
class Table:
    """A table of already formatted cells (text, or markup built with escaping)."""

    name: str
    columns: list[str]
    rows: list[list[Any]]
    caption: str = ""
    collapsed: bool = False  # behind a <details> whose summary is `summary` (or the caption)
    summary: str = ""


@dataclass
class Section:
    """One report section: text, tables and plots, or a notice of what is missing."""

    key: str
    title: str
    intro: str = ""
    headline: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)
    tiles: list[tuple[str, str, str]] = field(default_factory=list)  # label, value, verdict
    tables: list[Table] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    missing_marts: list[str] = field(default_factory=list)
    error: str | None = None


# ----------------------------------------------------------------------------------------
# Formatting helpers


def _is_missing(value: Any) -> bool:
    """True for None, NaN, NaT and pandas NA."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _is_true(value: Any) -> bool:
    """True only for a present, true boolean."""
    return not _is_missing(value) and bool(value)


def fmt_number(value: Any, pattern: str = "{:.1f}") -> str:
    """A number formatted with `pattern`, or an em dash when missing."""
    return "—" if _is_missing(value) else pattern.format(float(value))


def fmt_p(value: Any) -> str:
    """A p- or q-value: fixed for moderate values, scientific for tiny ones."""
    if _is_missing(value):
        return "—"
    number = float(value)
    return f"{number:.3f}" if number >= 0.001 else f"{number:.2e}"


def fmt_date(value: Any) -> str:
    """A date as YYYY-MM-DD, or an em dash."""
    return "—" if _is_missing(value) else pd.Timestamp(value).strftime("%Y-%m-%d")


def fmt_text(value: Any) -> str:
    """Text, or an em dash when missing."""
    return "—" if _is_missing(value) else str(value)


def fmt_interval(low: Any, high: Any) -> str:
    """An interval in points, e.g. '+4.1 to +9.8'."""
    if _is_missing(low) or _is_missing(high):
        return "—"
    return f"{float(low):+.1f} to {float(high):+.1f}"


def window_label(start: Any) -> str:
    """Short label of a window by its start date."""
    return fmt_date(start)


# ----------------------------------------------------------------------------------------
# SVG output


def figure_to_svg(figure: Figure, title: str) -> Markup:
    """The figure as an inline <svg> element: no XML prolog, DTD, metadata or namespaces
    that name external addresses, with an accessible <title>."""
    buffer = io.StringIO()
    with matplotlib.rc_context(SVG_STYLE):
        figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.DOTALL)
    text = re.sub(r'\s+xmlns(:[A-Za-z]+)?="[^"]*"', "", text)
    text = re.sub(r"<svg\b", '<svg role="img"', text, count=1)
    opening_end = text.index(">") + 1
    text = text[:opening_end] + f"<title>{html.escape(title)}</title>" + text[opening_end:]
    return Markup(text)  # noqa: S704 - matplotlib output with escaped title


def _new_figure(width: float, height: float) -> Figure:
    """A matplotlib figure under the report's style (no pyplot state)."""
    with matplotlib.rc_context(SVG_STYLE):
        return Figure(figsize=(width, height), layout="constrained")


# ----------------------------------------------------------------------------------------
# Reading the marts


class MartReader:
    """Read-only access to the marts of one DuckDB file."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, schema: str = "main") -> None:
        self.connection = connection
        self.schema = schema
        self.tables = existing_tables(connection, schema)

    def has(self, mart: str) -> bool:
        """The mart exists in the database."""
        return mart in self.tables

    def read(self, mart: str, order_by: str | None = None) -> pd.DataFrame:
        """All rows of a mart as a DataFrame (optionally ordered)."""
        quoted = '"' + mart.replace('"', '""') + '"'
        schema = '"' + self.schema.replace('"', '""') + '"'
        sql = f"select * from {schema}.{quoted}"
        if order_by:
            sql += f" order by {order_by}"
        return self.connection.execute(sql).df()


def read_or_notice(
    reader: MartReader, section: Section, mart: str, empty: str, order_by: str | None = None
) -> pd.DataFrame | None:
    """The mart's rows, or None after noting on the section that it is missing or empty."""
    if not reader.has(mart):
        section.missing_marts.append(mart)
        return None
    frame = reader.read(mart, order_by=order_by)
    if frame.empty:
        section.notices.append(empty)
        return None
    return frame


# ----------------------------------------------------------------------------------------
# Cell markup: identifiers never break inside a word, long text folds away


def ident(value: Any) -> Markup:
    """An identifier (challenge, family, cause) that never breaks mid-word."""
    return Markup('<code class="id">{}</code>').format(fmt_text(value))


def id_list(value: Any, limit: int = 4) -> Markup:
    """A comma-separated list of identifiers; long lists fold into a <details>."""
    items = [item.strip() for item in fmt_text(value).split(",") if item.strip()]
    shown = Markup(", ").join(ident(item) for item in items[:limit])
    if len(items) <= limit:
        return shown
    rest = Markup(", ").join(ident(item) for item in items[limit:])
    return Markup("{} <details class='more'><summary>+{} more</summary>{}</details>").format(
        shown, len(items) - limit, rest
    )


def action_badge(action: Any) -> Markup:
    """The recommended action as a coloured badge."""
    text = fmt_text(action)
    return Markup('<span class="action action-{}">{}</span>').format(
        text.replace("_", "-"), text.replace("_", " ")
    )


def folded(summary_text: str, body: Any) -> Markup:
    """Long text behind a one-line <details> summary."""
    return Markup("<details class='why'><summary>{}</summary>{}</details>").format(
        summary_text, fmt_text(body)
    )


# ----------------------------------------------------------------------------------------
# (a) First screen: what is biased, and what to do


TOP_ITEMS = 5
VERDICT_LABELS = {
    "flagged": "flagged",
    "insufficient_evidence": "uncertain or too few attempts",
    "pass": "pass",
    "not_testable": "not testable",
}


def answer_section(reader: MartReader) -> Section:
    """Verdict counts, the gate, and the top items of the review queue."""
    section = Section(key="answer", title="What is biased, and what to do")
    if reader.has(VERDICTS):
        counts = reader.read(VERDICTS)["verdict"].value_counts()
        for verdict, label in VERDICT_LABELS.items():
            section.tiles.append((label, str(int(counts.get(verdict, 0))), verdict))
        flagged = int(counts.get("flagged", 0))
        section.headline = (
            f"{flagged} of {int(counts.sum())} challenges are biased for or against a model "
            "family (ability-adjusted, false discoveries controlled)."
            if flagged
            else f"No challenge is biased: none of {int(counts.sum())} is flagged."
        )
    else:
        section.missing_marts.append(VERDICTS)
    blocked_by: list[str] = []
    if reader.has(GATE_FINDINGS):
        findings = reader.read(GATE_FINDINGS, order_by="finding_number")
        blocking = findings[findings["finding_kind"].isin(list(BLOCKING_FINDINGS))]
        if not blocking.empty:
            blocked_by = list(dict.fromkeys(blocking["check_name"]))
            section.headline = (
                f"The gate failed the build on {len(blocking)} input or suite problem(s), "
                "whatever the severity: fix them before reading these verdicts."
            )
            section.notices += [
                f"{BLOCKING_FINDINGS[kind]} [{check}] {message}"
                for kind, check, message in zip(
                    blocking["finding_kind"],
                    blocking["check_name"],
                    blocking["message"],
                    strict=True,
                )
            ]
    if reader.has(GATE_RESULTS):
        gate = reader.read(GATE_RESULTS)  # one row per expectation; a suite may have several
        failing = gate[~gate["success"].fillna(False).astype(bool)]
        suites = gate["suite_name"].nunique()
        if blocked_by:
            section.facts.append(("fairness gate", f"FAILED on {', '.join(blocked_by)}"))
        elif failing.empty:
            section.facts.append(("fairness gate", f"all {suites} suites pass"))
        else:
            mode = "warnings (severity warn)" if set(failing["severity"]) == {"warn"} else "FAILED"
            section.facts.append(
                (
                    "fairness gate",
                    f"{failing['suite_name'].nunique()} of {suites} suites with {mode}",
                )
            )
    if reader.has(PLATFORM_SCORE):
        scores = reader.read(PLATFORM_SCORE, order_by="window_start")
        if not scores.empty:
            latest = scores.iloc[-1]
            section.facts.append(
                (
                    f"fairness score {fmt_date(latest['window_start'])}",
                    f"{fmt_number(_percent(latest['platform_fairness_score']), '{:.0f}')} %",
                )
            )
    leaderboard_fact = leaderboard_report.first_screen_fact(reader)
    if leaderboard_fact is not None:
        section.facts.append(leaderboard_fact)
    if not reader.has(REVIEW_QUEUE):
        section.missing_marts.append(REVIEW_QUEUE)
        return section
    queue = _latest_queue(reader)
    if queue.empty:
        section.notices.append("Nothing to review: the review queue is empty.")
        return section
    top = queue.head(TOP_ITEMS)
    section.tables.append(
        Table(
            name="top-actions",
            columns=["#", "Do this", "Cause", "Challenges", "Harm"],
            rows=[
                [
                    fmt_number(row["priority"], "{:.0f}"),
                    action_badge(row["recommended_action"]),
                    fmt_text(row["cause"]),
                    id_list(row["challenge_ids"], limit=3),
                    fmt_number(row["harm_score"], "{:,.0f}"),
                ]
                for _, row in top.iterrows()
            ],
            caption=(
                f"Top {len(top)} of {len(queue)} review items, week of "
                f"{fmt_date(queue['week_start'].iloc[0])} (one per root cause; "
                "harm = severity x attempts affected)"
            ),
        )
    )
    return section


def _latest_queue(reader: MartReader) -> pd.DataFrame:
    """The latest week's review queue, in priority order."""
    queue = reader.read(REVIEW_QUEUE, order_by="week_start desc, priority")
    if queue.empty:
        return queue
    return queue[queue["week_start"] == queue["week_start"].iloc[0]]


# ----------------------------------------------------------------------------------------
# (b) Ability-adjusted effects: what the verdict judged, with intervals and thresholds


DEFAULT_THRESHOLD = 10.0
THRESHOLD_PATTERN = re.compile(r"family_deviation_threshold = ([0-9.]+)")


def effects_section(reader: MartReader) -> Section:
    """Forest plot of the flagged (and uncertain) family effects with their intervals."""
    section = Section(
        key="adjusted-effects",
        title="Ability-adjusted family effects",
        intro=(
            "What the verdict judged: each family's score on a challenge against the other "
            "families, beyond what its ability elsewhere predicts, with its confidence "
            "interval. A family is flagged when the interval lies beyond the threshold "
            "(dashed lines) and the challenge survives false-discovery control; an interval "
            "crossing a threshold line is uncertain."
        ),
    )
    missing = [mart for mart in (EFFECTS, VERDICTS) if not reader.has(mart)]
    if missing:
        section.missing_marts.extend(missing)
        return section
    effects = reader.read(EFFECTS)
    verdicts = reader.read(VERDICTS)
    threshold = _family_threshold(verdicts)
    shown = effect_rows(effects, verdicts)
    if shown.empty:
        section.notices.append("No family effect is flagged or uncertain.")
        return section
    flagged = int(shown["is_flagged"].sum())
    section.headline = (
        f"{flagged} flagged family effect(s) on "
        f"{shown.loc[shown['is_flagged'], 'challenge_id'].nunique()} challenge(s); "
        f"{len(shown) - flagged} uncertain lead effect(s)."
    )
    section.plots.append(forest_plot(shown, threshold))
    return section


def _family_threshold(verdicts: pd.DataFrame) -> float:
    """family_deviation_threshold as stated in the verdict reasons (default 10)."""
    for reason in verdicts["reason"].dropna():
        match = THRESHOLD_PATTERN.search(str(reason))
        if match:
            return float(match.group(1).rstrip("."))
    return DEFAULT_THRESHOLD


def effect_rows(effects: pd.DataFrame, verdicts: pd.DataFrame) -> pd.DataFrame:
    """Flagged family effects, and the lead family of each uncertain tested challenge."""
    merged = effects.merge(verdicts[["challenge_id", "verdict", "lead_family"]], on="challenge_id")
    merged = merged[merged["adjusted_deviation"].notna()]
    is_flagged = merged["is_flagged"].fillna(False).astype(bool)
    is_uncertain_lead = (
        (merged["verdict"] == "insufficient_evidence")
        & merged["is_challenge_tested"].fillna(False).astype(bool)
        & (merged["model_family"] == merged["lead_family"])
    )
    shown = merged[is_flagged | is_uncertain_lead].copy()
    shown["is_flagged"] = shown["is_flagged"].fillna(False).astype(bool)
    return shown.sort_values(["adjusted_deviation", "challenge_id"]).reset_index(drop=True)


def forest_plot(rows: pd.DataFrame, threshold: float) -> Plot:
    """One line per (challenge, family): the adjusted effect and its interval."""
    labels = [
        f"{c}  ·  {f}" for c, f in zip(rows["challenge_id"], rows["model_family"], strict=True)
    ]
    effects = rows["adjusted_deviation"].to_numpy(dtype=float)
    lows = rows["ci_low"].to_numpy(dtype=float, na_value=np.nan)
    highs = rows["ci_high"].to_numpy(dtype=float, na_value=np.nan)
    flagged = rows["is_flagged"].to_numpy(dtype=bool)
    positions = np.arange(len(rows))
    figure = _new_figure(9.0, 0.24 * len(rows) + 1.5)
    axes = figure.add_subplot()
    limit = max(threshold * 1.5, float(np.nanmax(np.abs(np.r_[lows, highs, effects]))) + 2)
    axes.axvspan(-threshold, threshold, color="#f1f1f1", zorder=0)
    for x in (-threshold, threshold):
        axes.axvline(x, color="#555555", linestyle="--", linewidth=1)
    axes.axvline(0, color="#999999", linewidth=0.8)
    colours = [LEAD_COLOUR if flag else "#777777" for flag in flagged]
    axes.hlines(positions, lows, highs, colors=colours, linewidth=2)
    axes.scatter(effects, positions, c=colours, s=28, zorder=3)
    axes.set_yticks(positions, labels)
    axes.set_xlim(-limit, limit)
    axes.set_ylim(-0.7, len(rows) - 0.3)
    axes.set_xlabel("Adjusted effect against the other families (points)")
    title = "Ability-adjusted family effects with confidence intervals"
    axes.set_title(title)
    figure.legend(
        handles=[
            Line2D([], [], color=LEAD_COLOUR, marker="o", label="flagged family"),
            Line2D([], [], color="#777777", marker="o", label="uncertain (lead family)"),
            Line2D([], [], color="#555555", linestyle="--", label=f"threshold ±{threshold:g}"),
        ],
        loc="outside lower center",
        ncols=3,
        frameon=False,
    )
    return Plot(
        kind="adjusted-effects-forest",
        svg=figure_to_svg(figure, title),
        caption=(
            f"{len(rows)} effect(s); dot = adjusted effect, bar = its interval; grey band = "
            f"within ±{threshold:g} points (family_deviation_threshold)."
        ),
    )


# ----------------------------------------------------------------------------------------
# (c) The whole review queue


def review_queue_section(reader: MartReader) -> Section:
    """This week's review queue: one item per root cause, most harmful first."""
    section = Section(
        key="review-queue",
        title="Review queue: one item per root cause",
        intro=(
            "Items whose challenges' own evidence shows a bias or defect come first, then "
            "platform-level trends (rewrite, watch), then fixes to confirm; within each, the "
            "larger harm first (severity, |effect| / threshold, times the attempts affected)."
        ),
    )
    if not reader.has(REVIEW_QUEUE):
        section.missing_marts.append(REVIEW_QUEUE)
        return section
    queue = _latest_queue(reader)
    if queue.empty:
        section.notices.append("Nothing to review: the review queue is empty.")
        return section
    section.headline = (
        f"{len(queue)} item(s) to review in the week of {fmt_date(queue['week_start'].iloc[0])}."
    )
    section.tables.append(
        Table(
            name="review-queue",
            columns=["#", "Action", "Cause", "Challenges", "Harm", "Why and evidence"],
            rows=[
                [
                    fmt_number(row["priority"], "{:.0f}"),
                    action_badge(row["recommended_action"]),
                    fmt_text(row["cause"]),
                    id_list(row["challenge_ids"]),
                    fmt_number(row["harm_score"], "{:,.0f}"),
                    Markup("{}{}").format(
                        folded("why", row["action_reason"]),
                        folded(
                            "evidence",
                            f"{fmt_text(row['lead_evidence'])} "
                            f"(per challenge: {fmt_text(row['challenge_actions'])})",
                        ),
                    ),
                ]
                for _, row in queue.iterrows()
            ],
            caption=f"Review queue, week of {fmt_date(queue['week_start'].iloc[0])}",
        )
    )
    return section


# ----------------------------------------------------------------------------------------
# (d) One compact section per detector


@dataclass
class DetectorView:
    """How one detector's mart is shown: which rows, which columns."""

    key: str
    title: str
    mart: str
    intro: str
    select: Callable[[pd.DataFrame], pd.DataFrame]
    columns: tuple[tuple[str, str, Callable[[Any], Any]], ...]
    empty: str


def _flag(column: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    return lambda frame: frame[frame[column].fillna(False).astype(bool)]


def _all_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame


def _long(summary_text: str) -> Callable[[Any], Any]:
    return lambda value: folded(summary_text, value)


DETECTOR_VIEWS = (
    DetectorView(
        "contamination",
        "Contamination: public code",
        "fct_challenge_contamination",
        "Challenges whose code matches a public reference document (models may have memorised it).",
        _flag("is_flagged"),
        (
            ("challenge_id", "Challenge", ident),
            ("best_document_id", "Reference document", ident),
            ("best_file_path", "File", ident),
            ("similarity", "Similarity", lambda v: fmt_number(v, "{:.2f}")),
            ("containment", "Containment", lambda v: fmt_number(v, "{:.2f}")),
            ("flag_rule", "Rule", fmt_text),
        ),
        "No challenge matches a reference document.",
    ),
    DetectorView(
        "instance-overlap",
        "Near-duplicate challenge instances",
        "fct_challenge_instance_overlap",
        "Pairs of challenges sharing most of their code, or a file contained in the other's code.",
        _all_rows,
        (
            ("challenge_a", "Challenge", ident),
            ("challenge_b", "Shares code with", ident),
            ("similarity", "Similarity", lambda v: fmt_number(v, "{:.2f}")),
            ("containment", "Containment", lambda v: fmt_number(v, "{:.2f}")),
            ("contained_file_path", "Shared file", ident),
            ("is_same_template", "Same template", lambda v: "yes" if _is_true(v) else "no"),
        ),
        "No two challenges share their code.",
    ),
    DetectorView(
        "test-case-dif",
        "Test-case DIF",
        "fct_test_case_bias",
        "Test cases passed at different rates by families whose attempts are equally good "
        "(Mantel-Haenszel D-DIF, ETS classes).",
        _flag("is_review_recommended"),
        (
            ("test_case_id", "Test case", ident),
            ("lead_family", "Family", ident),
            ("lead_d_dif", "D-DIF", lambda v: fmt_number(v, "{:+.2f}")),
            ("gcmh_q_value", "q", fmt_p),
            ("reason", "Reason", _long("reason")),
        ),
        "No test case functions differently by family.",
    ),
    DetectorView(
        "test-code-lint",
        "Test code that checks the implementation",
        "fct_test_code_lint",
        "Test cases whose code checks names, exact formats, the code's layout or a library "
        "instead of the behaviour (tree-sitter lint; works before any attempt).",
        lambda frame: frame[frame["finding_count"] > 0],
        (
            ("test_case_id", "Test case", ident),
            ("first_finding_line", "Line", lambda v: fmt_number(v, "{:.0f}")),
            ("first_finding_category", "Category", fmt_text),
            ("first_finding_snippet", "Code", fmt_text),
            ("first_finding_rewrite", "Rewrite", _long("rewrite")),
            ("finding_count", "Findings", lambda v: fmt_number(v, "{:.0f}")),
        ),
        "No test checks the implementation (or no test code was given).",
    ),
    DetectorView(
        "rubric-dif",
        "Rubric-item DIF",
        "fct_rubric_item_bias",
        "Rubric items earned at different rates by families whose attempts are equally good.",
        _flag("is_flagged"),
        (
            ("rubric_item_id", "Rubric item", ident),
            ("description", "Item", fmt_text),
            ("lead_family", "Family", ident),
            ("lead_d_dif", "D-DIF", lambda v: fmt_number(v, "{:+.2f}")),
            ("reason", "Reason", _long("reason")),
        ),
        "No rubric item functions differently by family.",
    ),
    DetectorView(
        "experiments",
        "A/B experiments",
        "fct_experiment_results",
        "Briefing or challenge rewrites tested against the original (variance of family "
        "means, overall mean, discrimination).",
        _all_rows,
        (
            ("experiment_id", "Experiment", ident),
            ("verdict", "Verdict", fmt_text),
            (
                "variance_reduction",
                "Variance reduction",
                lambda v: fmt_number(_percent(v), "{:.0f} %"),
            ),
            ("mean_change", "Mean change", lambda v: fmt_number(v, "{:+.1f}")),
            ("reason", "Reason", _long("reason")),
        ),
        "No A/B experiment on the platform.",
    ),
    DetectorView(
        "irt",
        "IRT calibration",
        "fct_challenge_irt",
        "Two-parameter IRT per challenge: the least discriminating challenges (they separate "
        "strong from weak agents least) and any fit problems.",
        lambda frame: frame.sort_values(["discrimination"], na_position="first").head(8),
        (
            ("challenge_id", "Challenge", ident),
            ("discrimination", "Discrimination", lambda v: fmt_number(v, "{:.2f}")),
            ("difficulty", "Difficulty", lambda v: fmt_number(v, "{:+.2f}")),
            ("pass_rate", "Pass rate", lambda v: fmt_number(_percent(v), "{:.0f} %")),
            ("fit_status", "Fit", fmt_text),
        ),
        "No challenge was calibrated.",
    ),
    DetectorView(
        "other-detectors-api",
        "API memorisation",
        "fct_api_memorization",
        "APIs whose challenges newer models score better on, beyond their general progress "
        "(points per year of training cutoff).",
        _flag("is_flagged"),
        (
            ("tag", "API", ident),
            ("tagged_challenges", "Challenges", lambda v: fmt_number(v, "{:.0f}")),
            ("slope_difference", "Slope", lambda v: fmt_number(v, "{:+.2f}")),
            ("ci_low", "CI low", lambda v: fmt_number(v, "{:+.2f}")),
            ("q_value", "q", fmt_p),
        ),
        "No API shows memorisation.",
    ),
    DetectorView(
        "other-detectors-approach",
        "Approach bias",
        "fct_approach_bias",
        "Valid solution approaches scored differently within model families.",
        _flag("is_flagged"),
        (
            ("challenge_id", "Challenge", ident),
            ("approach_a", "Approach", ident),
            ("approach_b", "Against", ident),
            ("stratified_gap", "Gap", lambda v: fmt_number(v, "{:+.1f}")),
            ("q_value", "q", fmt_p),
        ),
        "No approach is scored differently.",
    ),
)


def detector_section(reader: MartReader, view: DetectorView) -> Section:
    """A compact table of one detector's findings (folded when long)."""
    section = Section(key=view.key, title=view.title, intro=view.intro)
    if not reader.has(view.mart):
        section.missing_marts.append(view.mart)
        return section
    rows = view.select(reader.read(view.mart))
    if rows.empty:
        section.notices.append(view.empty)
        return section
    section.headline = f"{len(rows)} row(s) from {view.mart}."
    section.tables.append(
        Table(
            name=view.key,
            columns=[label for _, label, _ in view.columns],
            rows=[
                [render(row[column]) for column, _, render in view.columns]
                for _, row in rows.iterrows()
            ],
            collapsed=len(rows) > FOLD_ROWS,
        )
    )
    return section


FOLD_ROWS = 6


def gate_section(reader: MartReader) -> Section:
    """The gate's suites: passed, warning (severity warn) or failed (severity error)."""
    section = Section(
        key="gate",
        title="Gate results",
        intro=(
            "The Great Expectations suites run inside dbt build. Under severity 'warn' a "
            "suite with findings is a warning and the build goes on; under 'error' it fails "
            "the build."
        ),
    )
    gate = read_or_notice(
        reader, section, GATE_RESULTS, "No gate suite ran.", order_by="suite_name"
    )
    if gate is None:
        return section

    def status(row: pd.Series) -> str:
        if _is_true(row["success"]):
            return "passed"
        return "warning" if row["severity"] == "warn" else "FAILED"

    section.tables.append(
        Table(
            name="gate",
            columns=["Suite", "Result", "Failing rows", "Details"],
            rows=[
                [
                    ident(row["suite_name"]),
                    status(row),
                    fmt_number(row["failing_rows"], "{:.0f}"),
                    folded("messages", row["failure_message"])
                    if not _is_missing(row["failure_message"])
                    else "—",
                ]
                for _, row in gate.iterrows()
            ],
        )
    )
    return section


def rejected_section(reader: MartReader) -> Section:
    """Rows read, kept and rejected per source table, with the rejection reasons."""
    section = Section(
        key="rejected-rows",
        title="Rejected rows",
        intro="Nothing is lost: raw = clean + rejected, and every rejected row has a reason.",
    )
    missing = [mart for mart in (SOURCE_COUNTS, REJECTED_ROWS) if not reader.has(mart)]
    if missing:
        section.missing_marts.extend(missing)
        return section
    counts = reader.read(SOURCE_COUNTS, order_by="source_table")
    rejected = reader.read(REJECTED_ROWS)
    total = int(counts["rejected_rows"].sum()) if not counts.empty else 0
    section.headline = f"{total} row(s) rejected across {len(counts)} source table(s)."
    section.tables.append(
        Table(
            name="source-rows",
            columns=["Source table", "Raw", "Clean", "Rejected"],
            rows=[
                [
                    ident(row["source_table"]),
                    fmt_number(row["raw_rows"], "{:,.0f}"),
                    fmt_number(row["clean_rows"], "{:,.0f}"),
                    fmt_number(row["rejected_rows"], "{:,.0f}"),
                ]
                for _, row in counts.iterrows()
            ],
            collapsed=True,
            summary=f"{len(counts)} source tables",
        )
    )
    if not rejected.empty:
        reasons = (
            rejected.groupby(["source_table", "rejection_reason"]).size().reset_index(name="rows")
        )
        section.tables.append(
            Table(
                name="rejection-reasons",
                columns=["Source table", "Reason", "Rows"],
                rows=[
                    [ident(row["source_table"]), ident(row["rejection_reason"]), str(row["rows"])]
                    for _, row in reasons.iterrows()
                ],
                collapsed=len(reasons) > FOLD_ROWS,
                summary=f"{len(reasons)} rejection reasons",
            )
        )
    return section


# ----------------------------------------------------------------------------------------
# (e) Hook: attempts each family still needs (rendered only when that mart exists)


ATTEMPTS_NEEDED = "fct_challenge_attempts_needed"


def attempts_needed_section(reader: MartReader) -> Section:
    """Undecided all-time verdicts and the attempts each family still needs to settle them."""
    section = Section(
        key="attempts-needed",
        title="Undecided challenges: attempts still needed",
        intro=(
            "Challenges whose verdict is insufficient evidence, with how many more scored "
            "attempts would give each family's ability-adjusted contrast the target power to "
            "detect a threshold-sized bias at the current false-discovery level (the "
            "verdict's own variance model). 'Too thin' challenges miss the minimum attempts; "
            "'tested' ones were judged, but an interval straddles the threshold."
        ),
    )
    frame = read_or_notice(
        reader,
        section,
        ATTEMPTS_NEEDED,
        "No undecided challenge: every verdict is decided.",
        order_by="challenge_id, model_family",
    )
    if frame is None:
        return section
    all_time = frame[frame["verdict_window"] == "all"]
    windows = len(frame) - len(all_time)
    if all_time.empty:
        section.notices.append("Every all-time verdict is decided.")
    rows = []
    for challenge_id, plan in all_time.groupby("challenge_id", sort=True):
        first = plan.iloc[0]
        total = first["challenge_additional_attempts"]
        per_family = first["challenge_plan_family_attempts"]
        challenge_plan = (
            f"about {int(total):,} more in all (each family to about {int(per_family):,})"
            if not _is_missing(total)
            else fmt_text(first["challenge_plan_reason"])
        )
        recommendations = [
            fmt_text(text) for text in plan["recommendation"] if not _is_missing(text)
        ]
        rows.append(
            [
                ident(challenge_id),
                "too thin" if first["eligibility"] != "tested" else "tested, undecided",
                challenge_plan,
                "; ".join(recommendations) or "—",
            ]
        )
    if rows:
        section.headline = (
            f"{len(rows)} challenge(s) cannot be judged yet; the plan below says which "
            "family's attempts settle each."
        )
        section.tables.append(
            Table(
                name="attempts-needed",
                columns=["Challenge", "Verdict status", "Plan for the challenge", "Per family"],
                rows=rows,
                collapsed=len(rows) > 8,
                summary=f"{len(rows)} undecided challenges",
            )
        )
    if windows:
        section.notices.append(
            f"{windows} more rows give the same plan per history window ({ATTEMPTS_NEEDED})."
        )
    return section


# ----------------------------------------------------------------------------------------
# (f) Platform fairness score over time


def trend_section(reader: MartReader) -> Section:
    """The platform fairness score per window."""
    section = Section(
        key="fairness-trend",
        title="Is the platform getting fairer?",
        intro=(
            "The platform fairness score of a window is the share of its eligible challenges "
            "that pass (rpt_platform_fairness_score); eligible challenges met the data "
            "requirements in that window."
        ),
    )
    scores = read_or_notice(
        reader,
        section,
        PLATFORM_SCORE,
        f"{PLATFORM_SCORE} has no windows yet.",
        order_by="window_start",
    )
    if scores is None:
        return section
    latest = scores.iloc[-1]
    section.headline = (
        f"Platform fairness score "
        f"{fmt_number(_percent(latest['platform_fairness_score']), '{:.1f}')} % "
        f"in the window {fmt_date(latest['window_start'])} to {fmt_date(latest['window_end'])}"
        f" (change {fmt_number(_percent(latest['score_change']), '{:+.1f}')} points): "
        f"{fmt_number(latest['passing_challenges'], '{:.0f}')} of "
        f"{fmt_number(latest['eligible_challenges'], '{:.0f}')} eligible challenges pass, "
        f"{fmt_number(latest['flagged_challenges'], '{:.0f}')} flagged, "
        f"{fmt_number(latest['uncertain_challenges'], '{:.0f}')} uncertain; "
        f"{fmt_number(latest['fixed_challenges'], '{:.0f}')} fixed and "
        f"{fmt_number(latest['drifted_challenges'], '{:.0f}')} drifted."
    )
    section.plots.append(fairness_trend_plot(scores))
    return section


def _percent(value: Any) -> Any:
    return None if _is_missing(value) else 100.0 * float(value)


def fairness_trend_plot(scores: pd.DataFrame) -> Plot:
    """Line of the score per window over bars of flagged challenges."""
    starts = [pd.Timestamp(value) for value in scores["window_start"]]
    positions = np.arange(len(starts))
    score_values = np.array(
        [np.nan if _is_missing(v) else 100.0 * float(v) for v in scores["platform_fairness_score"]]
    )
    flagged = np.array(
        [0.0 if _is_missing(v) else float(v) for v in scores["flagged_challenges"]], dtype=float
    )
    figure = _new_figure(7.5, 3.4)
    axes = figure.add_subplot()
    counts_axes = axes.twinx()
    counts_axes.bar(
        positions, flagged, width=0.5, color="#D55E00", alpha=0.35, label="flagged challenges"
    )
    counts_axes.set_ylabel("Flagged challenges")
    counts_axes.set_ylim(0, max(1.0, float(flagged.max()) * 1.6))
    axes.set_zorder(counts_axes.get_zorder() + 1)
    axes.patch.set_visible(False)
    axes.plot(
        positions,
        score_values,
        color="#0072B2",
        marker="o",
        linewidth=2,
        label="platform fairness score",
    )
    for x, y in zip(positions, score_values, strict=True):
        if not np.isnan(y):
            axes.annotate(
                f"{y:.0f}%", (x, y), textcoords="offset points", xytext=(0, 6), ha="center"
            )
    axes.set_ylim(0, 108)
    axes.set_xticks(positions, [start.strftime("%Y-%m-%d") for start in starts])
    axes.tick_params(axis="x", labelrotation=30)
    axes.set_xlabel("Window start")
    axes.set_ylabel("Eligible challenges passing (%)")
    axes.set_title("Platform fairness score by window")
    handles = axes.get_legend_handles_labels()[0] + counts_axes.get_legend_handles_labels()[0]
    figure.legend(handles=handles, loc="outside lower center", ncols=2, frameon=False)
    title = "Platform fairness score by window"
    return Plot(
        kind="fairness-score-trend",
        svg=figure_to_svg(figure, title),
        caption=(
            "Share of eligible challenges that pass, per window (line, left axis) and "
            "flagged challenges per window (bars, right axis)."
        ),
    )


# ----------------------------------------------------------------------------------------
# (h) Combination difficulty heatmaps (templates without a flagged combination folded)


def combination_section(reader: MartReader) -> Section:
    """Per template, how much easier or harder each variable combination is."""
    section = Section(
        key="combination-difficulty",
        title="Combination difficulty by template",
        intro=(
            "Each cell is a variable combination's mean score minus its template's mean of "
            "combination means, in points: positive (purple) easier, negative (orange) harder. "
            "Outlined cells are flagged (beyond combination_deviation_threshold)."
        ),
    )
    combinations = read_or_notice(
        reader,
        section,
        COMBINATION_DIFFICULTY,
        "No templated challenge has scored attempts.",
        order_by="template_id, variable_combination",
    )
    if combinations is None:
        return section
    flagged = int(combinations["is_flagged"].fillna(False).astype(bool).sum())
    section.headline = (
        f"{combinations['template_id'].nunique()} template(s), {len(combinations)} "
        f"combination(s), {flagged} flagged."
    )
    deviations = combinations["deviation"].to_numpy(dtype=float, na_value=np.nan)
    finite = deviations[np.isfinite(deviations)]
    limit = max(MIN_HEATMAP_LIMIT, float(np.abs(finite).max()) if finite.size else 0.0)
    for template_id, rows in combinations.groupby("template_id", sort=True):
        plot = combination_heatmap(str(template_id), rows, limit)
        plot.collapsed = not rows["is_flagged"].fillna(False).astype(bool).any()
        section.plots.append(plot)
    return section


def parse_combination(text: str) -> dict[str, str]:
    """A variable combination (canonical JSON object) as {variable: value text}."""
    try:
        parsed = json.loads(text)
    except (TypeError, ValueError):
        return {"combination": str(text)}
    if not isinstance(parsed, dict):
        return {"combination": str(text)}
    return {str(key): _value_text(value) for key, value in parsed.items()}


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def heatmap_layout(
    combinations: Sequence[dict[str, str]],
) -> tuple[list[str], list[str], list[tuple[int, int]], str, str]:
    """Grid rows, columns and each combination's (row, column) cell, with the axis names: a
    2-D grid of values when every combination has the same two variables, else a strip
    with one row per combination."""
    keys = {tuple(sorted(combination)) for combination in combinations}
    if len(keys) == 1 and len(next(iter(keys))) == 2:
        row_key, column_key = next(iter(keys))
        row_values = sorted({c[row_key] for c in combinations})
        column_values = sorted({c[column_key] for c in combinations})
        cells = [
            (row_values.index(c[row_key]), column_values.index(c[column_key])) for c in combinations
        ]
        return row_values, column_values, cells, row_key, column_key
    labels = [", ".join(f"{k}={v}" for k, v in sorted(c.items())) or "{}" for c in combinations]
    return labels, [""], [(index, 0) for index in range(len(labels))], "combination", ""


def combination_heatmap(template_id: str, rows: pd.DataFrame, limit: float) -> Plot:
    """Heatmap of one template's combination deviations (2-D grid or strip), colours on a
    scale of +-`limit` points shared by every template."""
    parsed = [parse_combination(text) for text in rows["variable_combination"]]
    row_labels, column_labels, cells, row_name, column_name = heatmap_layout(parsed)
    grid = np.full((len(row_labels), len(column_labels)), np.nan)
    flags = np.zeros_like(grid, dtype=bool)
    deviations = rows["deviation"].to_numpy(dtype=float, na_value=np.nan)
    is_flagged = rows["is_flagged"].fillna(False).astype(bool).to_numpy()
    for (r, c), deviation, flag in zip(cells, deviations, is_flagged, strict=True):
        grid[r, c] = deviation
        flags[r, c] = flag
    is_strip = column_name == ""
    width = 7.5 if is_strip else min(11.0, max(5.0, 1.1 * len(column_labels) + 3.5))
    height = max(2.8, (0.32 if is_strip else 0.6) * len(row_labels) + 1.9)
    figure = _new_figure(width, height)
    axes = figure.add_subplot()
    image = axes.imshow(
        np.ma.masked_invalid(grid),
        cmap="PuOr",
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit),
        aspect="auto",
    )
    for r in range(grid.shape[0]):
        for c in range(grid.shape[1]):
            if np.isfinite(grid[r, c]):
                strong = abs(grid[r, c]) > 0.6 * limit
                axes.text(
                    c,
                    r,
                    f"{grid[r, c]:+.1f}",
                    ha="center",
                    va="center",
                    color="white" if strong else "black",
                    fontweight="bold" if flags[r, c] else "normal",
                )
            if flags[r, c]:
                axes.add_patch(
                    Rectangle(
                        (c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=2.5
                    )
                )
    axes.set_xticks(np.arange(len(column_labels)), column_labels)
    axes.set_yticks(np.arange(len(row_labels)), row_labels)
    if is_strip:
        axes.tick_params(axis="x", length=0)
    axes.set_xlabel(column_name)
    axes.set_ylabel(row_name)
    title = f"{template_id}: combination difficulty"
    axes.set_title(title)
    colourbar = figure.colorbar(image, ax=axes, shrink=0.9)
    colourbar.set_label("Points easier (+) / harder (-)\nthan the template mean")
    figure.legend(
        handles=[Patch(fill=False, edgecolor="black", linewidth=2.5, label="flagged combination")],
        loc="outside lower right",
        frameon=False,
    )
    return Plot(
        kind="combination-heatmap",
        svg=figure_to_svg(figure, title),
        caption=(
            f"{template_id}: {len(rows)} combination(s), "
            f"{int(is_flagged.sum())} flagged; largest |deviation| "
            f"{fmt_number(np.nanmax(np.abs(deviations)) if deviations.size else None)} points."
        ),
        template_id=template_id,
    )


# ----------------------------------------------------------------------------------------
# (e) Verdict history


def history_section(reader: MartReader) -> Section:
    """Challenge x window grid of verdicts, drift and fixes marked."""
    section = Section(
        key="verdict-history",
        title="Verdict history over time",
        intro=(
            "Each challenge's verdict per window, computed from that window's attempts only. "
            "A triangle marks drift (flagged after a pass), a circle a fix (pass after a flag)."
        ),
    )
    history = read_or_notice(
        reader,
        section,
        VERDICT_HISTORY,
        f"{VERDICT_HISTORY} has no windows yet.",
        order_by="challenge_id, window_start",
    )
    if history is None:
        return section
    drift = history["is_drift"].fillna(False).astype(bool)
    fixed = history["is_fixed"].fillna(False).astype(bool)
    interesting = history.loc[
        (history["verdict"] == "flagged") | drift | fixed, "challenge_id"
    ].unique()
    all_challenges = history["challenge_id"].unique()
    shown = all_challenges if len(all_challenges) <= MAX_HISTORY_ROWS_ALL else interesting
    section.headline = (
        f"{int(drift.sum())} drift window(s), {int(fixed.sum())} fix(es) across "
        f"{history['window_start'].nunique()} window(s)."
    )
    if len(shown) < len(all_challenges):
        section.notices.append(
            f"Showing the {len(shown)} challenge(s) flagged, drifted or fixed in some window; "
            f"{len(all_challenges) - len(shown)} other challenge(s) are left out."
        )
    if len(shown) == 0:
        section.notices.append("No challenge was flagged in any window.")
        return section
    section.plots.append(history_grid_plot(history[history["challenge_id"].isin(shown)]))
    return section


def history_grid_plot(history: pd.DataFrame) -> Plot:
    """The verdict grid: rows challenges, columns windows, colour = verdict."""
    verdicts = list(VERDICT_COLOURS)
    challenges = sorted(history["challenge_id"].astype(str).unique(), reverse=True)
    windows = sorted(pd.Timestamp(value) for value in history["window_start"].unique())
    grid = np.full((len(challenges), len(windows)), -1, dtype=float)
    row_of = {challenge: index for index, challenge in enumerate(challenges)}
    column_of = {window: index for index, window in enumerate(windows)}
    drift_points: list[tuple[int, int]] = []
    fixed_points: list[tuple[int, int]] = []
    for _, row in history.iterrows():
        r = row_of[str(row["challenge_id"])]
        c = column_of[pd.Timestamp(row["window_start"])]
        verdict = str(row["verdict"])
        grid[r, c] = verdicts.index(verdict) if verdict in verdicts else -1
        if _is_true(row["is_drift"]):
            drift_points.append((r, c))
        if _is_true(row["is_fixed"]):
            fixed_points.append((r, c))
    colours = ListedColormap([NO_DATA_COLOUR, *VERDICT_COLOURS.values()])
    norm = BoundaryNorm(np.arange(-1.5, len(verdicts)), colours.N)
    figure = _new_figure(min(11.0, 0.7 * len(windows) + 4.5), 0.28 * len(challenges) + 2.0)
    axes = figure.add_subplot()
    axes.imshow(grid, cmap=colours, norm=norm, aspect="auto")
    axes.set_xticks(np.arange(len(windows)) + 0.5, minor=True)
    axes.set_yticks(np.arange(len(challenges)) + 0.5, minor=True)
    axes.grid(which="minor", color="white", linewidth=1.5)
    axes.tick_params(which="minor", length=0)
    if drift_points:
        axes.scatter(
            [c for _, c in drift_points],
            [r for r, _ in drift_points],
            marker="^",
            s=60,
            color="black",
            zorder=3,
        )
    if fixed_points:
        axes.scatter(
            [c for _, c in fixed_points],
            [r for r, _ in fixed_points],
            marker="o",
            s=50,
            facecolor="white",
            edgecolor="black",
            zorder=3,
        )
    axes.set_xticks(np.arange(len(windows)), [w.strftime("%Y-%m-%d") for w in windows])
    axes.tick_params(axis="x", labelrotation=30)
    axes.set_yticks(np.arange(len(challenges)), challenges)
    axes.set_xlabel("Window start")
    axes.set_ylabel("Challenge")
    title = "Verdict per challenge and window"
    axes.set_title(title)
    handles: list[Any] = [
        Patch(facecolor=colour, edgecolor="#555555", label=verdict.replace("_", " "))
        for verdict, colour in VERDICT_COLOURS.items()
    ]
    handles += [
        Line2D([], [], marker="^", color="black", linestyle="none", label="drift"),
        Line2D(
            [],
            [],
            marker="o",
            markerfacecolor="white",
            markeredgecolor="black",
            linestyle="none",
            label="fixed",
        ),
    ]
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=True)
    return Plot(
        kind="verdict-history",
        svg=figure_to_svg(figure, title),
        caption=(
            f"{len(challenges)} challenge(s) x {len(windows)} window(s); "
            f"{len(drift_points)} drift window(s), {len(fixed_points)} fix(es)."
        ),
    )


# ----------------------------------------------------------------------------------------
# (g) Monthly report tables


ITEM_ORDER = {"newly_flagged": 0, "still_flagged": 1, "fixed": 2}


def _change_text(row: pd.Series) -> str:
    """For a fix or drift: the family whose bias changed, before -> after."""
    if _is_missing(row.get("changed_family")):
        return "—"
    before = row.get("changed_family_effect_before")
    after = row.get("changed_family_effect_after")
    return (
        f"{row['changed_family']}: "
        f"{'no attempts' if _is_missing(before) else fmt_number(before, '{:+.1f}')} -> "
        f"{'no attempts' if _is_missing(after) else fmt_number(after, '{:+.1f}')}"
    )


MONTHLY_COLUMNS: tuple[tuple[str, str, Callable[[pd.Series], Any]], ...] = (
    ("item_status", "Status", lambda row: fmt_text(row["item_status"]).replace("_", " ")),
    ("challenge_id", "Challenge", lambda row: ident(row["challenge_id"])),
    ("lead_family", "Lead family", lambda row: ident(row["lead_family"])),
    (
        "lead_adjusted_deviation",
        "Adjusted effect",
        lambda row: fmt_number(row["lead_adjusted_deviation"], "{:+.1f}"),
    ),
    ("interval", "Interval", lambda row: fmt_interval(row["lead_ci_low"], row["lead_ci_high"])),
    ("changed_family", "Changed family (before -> after)", _change_text),
    ("q_value", "q", lambda row: fmt_p(row["q_value"])),
)


def monthly_section(reader: MartReader) -> Section:
    """Per window: newly flagged, still flagged and fixed challenges (latest window open)."""
    section = Section(
        key="monthly-report",
        title="Monthly bias report",
        intro=(
            "Per window, the challenges newly flagged, still flagged, and fixed; a fix or drift "
            "names the family whose bias changed, with its effect before and after."
        ),
    )
    report = read_or_notice(
        reader,
        section,
        MONTHLY_REPORT,
        "No challenge was flagged or fixed in any window.",
        order_by="window_start desc, challenge_id",
    )
    if report is None:
        return section
    for index, (window_start, rows) in enumerate(report.groupby("window_start", sort=False)):
        ordered = rows.assign(
            _order=rows["item_status"].map(ITEM_ORDER).fillna(len(ITEM_ORDER))
        ).sort_values(["_order", "challenge_id"])
        first = ordered.iloc[0]
        caption = (
            f"Window {fmt_date(window_start)} to {fmt_date(first['window_end'])}: platform "
            f"fairness score {fmt_number(_percent(first['platform_fairness_score']))} %, "
            f"{len(ordered)} item(s)"
        )
        section.tables.append(
            Table(
                name="monthly-report",
                columns=[label for _, label, _ in MONTHLY_COLUMNS],
                rows=[
                    [render(row) for _, _, render in MONTHLY_COLUMNS]
                    for _, row in ordered.iterrows()
                ],
                caption=caption,
                collapsed=index > 0,
                summary=caption,
            )
        )
    return section


# ----------------------------------------------------------------------------------------
# The page


SECTION_BUILDERS: tuple[tuple[str, str, Callable[[MartReader], Section | None]], ...] = (
    ("answer", "What is biased, and what to do", answer_section),
    ("adjusted-effects", "Ability-adjusted family effects", effects_section),
    ("review-queue", "Review queue", review_queue_section),
    ("leaderboard", "Leaderboard impact", leaderboard_report.leaderboard_section),
    *(
        (view.key, view.title, (lambda reader, view=view: detector_section(reader, view)))
        for view in DETECTOR_VIEWS
    ),
    ("gate", "Gate results", gate_section),
    ("rejected-rows", "Rejected rows", rejected_section),
    ("attempts-needed", "Attempts still needed", attempts_needed_section),
    ("combination-difficulty", "Combination difficulty", combination_section),
    ("fairness-trend", "Is the platform getting fairer?", trend_section),
    ("verdict-history", "Verdict history", history_section),
    ("monthly-report", "Monthly bias report", monthly_section),
)


def build_sections(reader: MartReader) -> list[Section]:
    """Every section; one that fails to read its mart shows the error instead."""
    sections = []
    for key, title, builder in SECTION_BUILDERS:
        try:
            section = builder(reader)
        except Exception as error:  # a mart with unexpected columns must not sink the report
            message = f"{type(error).__name__}: {error}"
            print(
                terminal_safe(f"fairness report: section '{key}' failed: {message}"),
                file=sys.stderr,
            )
            section = Section(key=key, title=title, error=message)
        if section is not None:
            sections.append(section)
    return sections


def _shown_text(value: Any) -> Any:
    """Text from the data with its control characters escaped (cli_guard.terminal_safe): a
    newline or bidi control in an id cannot break or reorder a line of the report. Markup
    the report built (SVG, links) passes as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return terminal_safe(value)
    return value


def render_report(database: Path, schema: str = "main") -> str:
    """The report HTML of the marts in `database` (MartsUnavailable when unreadable)."""
    with connect_read_only(database) as connection:
        sections = build_sections(MartReader(connection, schema))
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown_text,
    )
    return environment.get_template(TEMPLATE_NAME).render(
        sections=sections,
        database_name=database.name,
        generated_at=dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        verdict_colours=VERDICT_COLOURS,
    )


def write_report(database: Path, out: Path, schema: str = "main") -> Path:
    """Render the report of `database` into the file `out` (folders created)."""
    text = render_report(database, schema)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def absent_marts(database: Path, schema: str = "main") -> list[str]:
    """The marts the report reads that `database` lacks (MartsUnavailable when unreadable)."""
    with connect_read_only(database) as connection:
        return missing_marts(existing_tables(connection, schema), MARTS_READ)


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m challenge_fairness.report DATABASE --out FILE. Exit 0 when every
    mart is there, 1 when the report was written without some (named), 2 when the database
    cannot be read or holds none of them, or --out is refused or cannot be written (one
    sentence: cli_guard)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("database", type=Path, help="DuckDB file holding the built marts")
    parser.add_argument("--out", type=Path, default=Path("target/fairness_report.html"))
    parser.add_argument("--schema", default="main", help="schema of the marts (default main)")
    parser.add_argument(
        "--force", action="store_true", help="replace an --out file this package did not write"
    )
    args = parser.parse_args(argv)
    return run_cli(
        "challenge_fairness.report",
        "write the report",
        lambda: _write_and_tell(args.database, args.out, args.schema, args.force),
        args.database,
    )


def _write_and_tell(database: Path, out: Path, schema: str, force: bool) -> int:
    check_report_target(out, database, force)
    absent = absent_marts(database, schema)
    if VERDICTS in absent:
        raise MartsUnavailable(unbuilt_message(database, schema, absent))
    path = write_report(database, out, schema)
    print(f"Fairness report written to {path.resolve()}")
    if absent:
        print(
            f"challenge_fairness.report: written without {len(absent)} mart(s) that were not "
            f"built: {', '.join(absent)} (their sections say so)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

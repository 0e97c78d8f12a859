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
from matplotlib.cbook import boxplot_stats  # noqa: E402
from matplotlib.colors import BoundaryNorm, ListedColormap, TwoSlopeNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402
from matplotlib.typing import RcKeyType  # noqa: E402

TEMPLATE_DIR = Path(__file__).with_name("templates")
TEMPLATE_NAME = "fairness_report.html.j2"

# Marts the report reads (names are the interfaces agreed for F4).
PLATFORM_SCORE = "rpt_platform_fairness_score"
REVIEW_QUEUE = "rpt_review_queue"
VERDICTS = "fct_challenge_verdicts"
SCORE_DISTRIBUTIONS = "rpt_flagged_challenge_score_distributions"
COMBINATION_DIFFICULTY = "fct_combination_difficulty"
VERDICT_HISTORY = "fct_challenge_verdict_history"
MONTHLY_REPORT = "rpt_monthly_bias_report"
MARTS_READ = (
    PLATFORM_SCORE,
    REVIEW_QUEUE,
    VERDICTS,
    SCORE_DISTRIBUTIONS,
    COMBINATION_DIFFICULTY,
    VERDICT_HISTORY,
    MONTHLY_REPORT,
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


@dataclass
class Table:
    """A table of already formatted cells."""

    name: str
    columns: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Section:
    """One report section: text, tables and plots, or a notice of what is missing."""

    key: str
    title: str
    intro: str = ""
    headline: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)
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
        rows = connection.execute(
            """
            select table_name from information_schema.tables
            where table_schema = ? and table_catalog = current_database()
            """,
            [schema],
        ).fetchall()
        self.tables = {str(row[0]) for row in rows}

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


# ----------------------------------------------------------------------------------------
# (a) Headline: the platform fairness score and its trend


def headline_section(reader: MartReader) -> Section:
    """Latest platform fairness score, its change, its trend; all-time verdict counts."""
    section = Section(
        key="headline",
        title="Is the platform getting fairer?",
        intro=(
            "The platform fairness score of a window is the share of its eligible challenges "
            "that pass (passing_challenges / eligible_challenges in rpt_platform_fairness_score). "
            "Eligible challenges met the data requirements and were tested in that window: "
            "they pass, are flagged, or are uncertain because an interval straddles the "
            "threshold."
        ),
    )
    if reader.has(VERDICTS):
        verdicts = reader.read(VERDICTS)
        counts = verdicts["verdict"].value_counts()
        for verdict in ("flagged", "pass", "insufficient_evidence", "not_testable"):
            section.facts.append(
                (f"all-time {verdict.replace('_', ' ')}", str(int(counts.get(verdict, 0))))
            )
    else:
        section.missing_marts.append(VERDICTS)
    if not reader.has(PLATFORM_SCORE):
        section.missing_marts.append(PLATFORM_SCORE)
        return section
    scores = reader.read(PLATFORM_SCORE, order_by="window_start")
    if scores.empty:
        section.notices.append(f"{PLATFORM_SCORE} has no windows yet.")
        return section
    latest = scores.iloc[-1]
    score = latest["platform_fairness_score"]
    section.headline = (
        f"Platform fairness score {fmt_number(_percent(score), '{:.1f}')} % "
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
# (b) What to fix this week


REVIEW_COLUMNS = (
    ("priority", "Priority", lambda v: fmt_number(v, "{:.0f}")),
    ("challenge_id", "Challenge", fmt_text),
    ("template_id", "Template", fmt_text),
    ("recommended_action", "Action", lambda v: fmt_text(v).replace("_", " ")),
    ("action_reason", "Why", fmt_text),
    ("detectors", "Detectors", fmt_text),
    ("findings", "Findings", lambda v: fmt_number(v, "{:.0f}")),
    ("lead_evidence", "Lead evidence", fmt_text),
    ("verdict", "Verdict", lambda v: fmt_text(v).replace("_", " ")),
)


def review_queue_section(reader: MartReader) -> Section:
    """This week's review queue: what to fix, how and why."""
    section = Section(
        key="review-queue",
        title="What to fix this week",
        intro=(
            "Challenges to review, most urgent first, with the action the evidence points to "
            "(test-case DIF points at the tests, briefing-style sensitivity at the briefing)."
        ),
    )
    if not reader.has(REVIEW_QUEUE):
        section.missing_marts.append(REVIEW_QUEUE)
        return section
    queue = reader.read(REVIEW_QUEUE, order_by="week_start desc, priority, challenge_id")
    if queue.empty:
        section.notices.append("Nothing to review: the review queue is empty.")
        return section
    latest_week = queue["week_start"].iloc[0]
    this_week = queue[queue["week_start"] == latest_week]
    section.headline = (
        f"{len(this_week)} challenge(s) to review in the week of {fmt_date(latest_week)}."
    )
    section.tables.append(
        Table(
            name="review-queue",
            columns=[label for _, label, _ in REVIEW_COLUMNS],
            rows=[
                [render(row[column]) for column, _, render in REVIEW_COLUMNS]
                for _, row in this_week.iterrows()
            ],
            caption=f"Review queue, week of {fmt_date(latest_week)}",
        )
    )
    return section


# ----------------------------------------------------------------------------------------
# (c) Flagged challenges: score distributions by family


def flagged_section(reader: MartReader) -> Section:
    """Per flagged challenge, box plots of the scores of each family, with the verdict."""
    section = Section(
        key="flagged-challenges",
        title="Flagged challenges: score distributions by model family",
        intro=(
            "Each flagged challenge with the scores of every model family (box: quartiles; "
            "whiskers: 1.5 IQR; diamond: mean). The lead family is the flagged family with the "
            "largest ability-adjusted effect; its interval is the verdict's evidence."
        ),
    )
    missing = [mart for mart in (VERDICTS, SCORE_DISTRIBUTIONS) if not reader.has(mart)]
    if missing:
        section.missing_marts.extend(missing)
        return section
    verdicts = reader.read(VERDICTS, order_by="q_value, challenge_id")
    flagged = verdicts[verdicts["verdict"] == "flagged"]
    distributions = reader.read(SCORE_DISTRIBUTIONS, order_by="challenge_id, model_family, score")
    if flagged.empty:
        section.notices.append("No challenge is flagged.")
        return section
    section.headline = f"{len(flagged)} flagged challenge(s)."
    for _, verdict in flagged.iterrows():
        challenge_id = str(verdict["challenge_id"])
        rows = distributions[distributions["challenge_id"] == challenge_id]
        if rows.empty:
            section.notices.append(f"{challenge_id}: no scored attempts in {SCORE_DISTRIBUTIONS}.")
            continue
        section.plots.append(score_distribution_plot(verdict, rows))
    return section


def expand_counts(scores: Sequence[float], counts: Sequence[int]) -> np.ndarray:
    """The individual scores from (distinct score, count) pairs."""
    return np.repeat(np.asarray(scores, dtype=float), np.asarray(counts, dtype=np.int64))


def score_distribution_plot(verdict: pd.Series, rows: pd.DataFrame) -> Plot:
    """Horizontal box plots of one flagged challenge's scores by family."""
    challenge_id = str(verdict["challenge_id"])
    lead_family = None if _is_missing(verdict["lead_family"]) else str(verdict["lead_family"])
    families = sorted(rows["model_family"].unique(), reverse=True)
    samples = []
    labels = []
    flagged_flags = []
    for family in families:
        family_rows = rows[rows["model_family"] == family]
        sample = expand_counts(family_rows["score"].tolist(), family_rows["attempts"].tolist())
        samples.append(sample)
        labels.append(f"{family} (n={sample.size})")
        flagged_flags.append(bool(family_rows["is_flagged_family"].any()))
    figure = _new_figure(7.5, 0.45 * len(families) + 1.6)
    axes = figure.add_subplot()
    statistics = boxplot_stats(samples, whis=1.5)
    for stats in statistics:  # one marker per distinct outlying score keeps the SVG small
        stats["fliers"] = np.unique(stats["fliers"])
    boxes = axes.bxp(
        statistics,
        orientation="horizontal",
        patch_artist=True,
        widths=0.6,
        showmeans=True,
        positions=np.arange(1, len(families) + 1),
        meanprops={"marker": "D", "markerfacecolor": "black", "markeredgecolor": "black"},
        medianprops={"color": "black"},
        flierprops={"marker": ".", "markersize": 4, "alpha": 0.6},
    )
    for patch, family, is_flagged in zip(boxes["boxes"], families, flagged_flags, strict=True):
        colour = LEAD_COLOUR if family == lead_family or is_flagged else OTHER_COLOUR
        patch.set_facecolor(colour)
        patch.set_alpha(0.8)
        if family == lead_family:
            patch.set_hatch("//")
    axes.set_yticks(np.arange(1, len(families) + 1), labels)
    axes.set_xlim(-2, 102)
    axes.set_xlabel("Score (0-100)")
    axes.set_ylabel("Model family")
    title = f"{challenge_id}: scores by model family"
    axes.set_title(title)
    axes.legend(
        handles=[
            Patch(facecolor=LEAD_COLOUR, hatch="//", alpha=0.8, label="lead family (flagged)"),
            Patch(facecolor=OTHER_COLOUR, alpha=0.8, label="other families"),
            Line2D([], [], marker="D", color="black", linestyle="none", label="mean"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        frameon=True,
    )
    level = verdict.get("interval_level")
    level_text = "" if _is_missing(level) else f"{100 * float(level):.0f}% "
    evidence = (
        f"Lead family {fmt_text(lead_family)}: ability-adjusted deviation "
        f"{fmt_number(verdict['lead_adjusted_deviation'], '{:+.1f}')} points "
        f"({level_text}CI {fmt_interval(verdict['lead_ci_low'], verdict['lead_ci_high'])}), "
        f"q = {fmt_p(verdict['q_value'])}."
    )
    return Plot(
        kind="score-distribution",
        svg=figure_to_svg(figure, title),
        caption=f"{fmt_text(verdict['reason'])}",
        challenge_id=challenge_id,
        template_id=fmt_text(verdict.get("template_id")),
        notes=[evidence],
    )


# ----------------------------------------------------------------------------------------
# (d) Combination difficulty heatmaps


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
    if not reader.has(COMBINATION_DIFFICULTY):
        section.missing_marts.append(COMBINATION_DIFFICULTY)
        return section
    combinations = reader.read(COMBINATION_DIFFICULTY, order_by="template_id, variable_combination")
    if combinations.empty:
        section.notices.append("No templated challenge has scored attempts.")
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
        section.plots.append(combination_heatmap(str(template_id), rows, limit))
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
    if not reader.has(VERDICT_HISTORY):
        section.missing_marts.append(VERDICT_HISTORY)
        return section
    history = reader.read(VERDICT_HISTORY, order_by="challenge_id, window_start")
    if history.empty:
        section.notices.append(f"{VERDICT_HISTORY} has no windows yet.")
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
# (f) Monthly report tables


ITEM_ORDER = {"newly_flagged": 0, "still_flagged": 1, "fixed": 2}
MONTHLY_COLUMNS = (
    ("item_status", "Status", lambda v: fmt_text(v).replace("_", " ")),
    ("challenge_id", "Challenge", fmt_text),
    ("template_id", "Template", fmt_text),
    ("lead_family", "Lead family", fmt_text),
    ("lead_adjusted_deviation", "Adjusted deviation", lambda v: fmt_number(v, "{:+.1f}")),
    ("interval", "Interval", None),
    ("q_value", "q", fmt_p),
    ("reason", "Reason", fmt_text),
)


def monthly_section(reader: MartReader) -> Section:
    """Per window: newly flagged, still flagged and fixed challenges."""
    section = Section(
        key="monthly-report",
        title="Monthly bias report",
        intro="Per window, the challenges newly flagged, still flagged, and fixed.",
    )
    if not reader.has(MONTHLY_REPORT):
        section.missing_marts.append(MONTHLY_REPORT)
        return section
    report = reader.read(MONTHLY_REPORT, order_by="window_start desc, challenge_id")
    if report.empty:
        section.notices.append("No challenge was flagged or fixed in any window.")
        return section
    for window_start, rows in report.groupby("window_start", sort=False):
        ordered = rows.assign(
            _order=rows["item_status"].map(ITEM_ORDER).fillna(len(ITEM_ORDER))
        ).sort_values(["_order", "challenge_id"])
        first = ordered.iloc[0]
        caption = (
            f"Window {fmt_date(window_start)} to {fmt_date(first['window_end'])}: platform "
            f"fairness score {fmt_number(_percent(first['platform_fairness_score']))} %"
        )
        table_rows = []
        for _, row in ordered.iterrows():
            cells = []
            for column, _, render in MONTHLY_COLUMNS:
                if column == "interval":
                    cells.append(fmt_interval(row["lead_ci_low"], row["lead_ci_high"]))
                elif render is not None:
                    cells.append(render(row[column]))
            table_rows.append(cells)
        section.tables.append(
            Table(
                name="monthly-report",
                columns=[label for _, label, _ in MONTHLY_COLUMNS],
                rows=table_rows,
                caption=caption,
            )
        )
    return section


# ----------------------------------------------------------------------------------------
# The page


SECTION_BUILDERS: tuple[tuple[str, str, Callable[[MartReader], Section]], ...] = (
    ("headline", "Is the platform getting fairer?", headline_section),
    ("review-queue", "What to fix this week", review_queue_section),
    ("flagged-challenges", "Flagged challenges", flagged_section),
    ("combination-difficulty", "Combination difficulty", combination_section),
    ("verdict-history", "Verdict history", history_section),
    ("monthly-report", "Monthly bias report", monthly_section),
)


def build_sections(reader: MartReader) -> list[Section]:
    """Every section; one that fails to read its mart shows the error instead."""
    sections = []
    for key, title, builder in SECTION_BUILDERS:
        try:
            sections.append(builder(reader))
        except Exception as error:  # a mart with unexpected columns must not sink the report
            message = f"{type(error).__name__}: {error}"
            print(f"fairness report: section '{key}' failed: {message}", file=sys.stderr)
            sections.append(Section(key=key, title=title, error=message))
    return sections


def render_report(database: Path, schema: str = "main") -> str:
    """The report HTML of the marts in `database`."""
    with duckdb.connect(str(database), read_only=True) as connection:
        sections = build_sections(MartReader(connection, schema))
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
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


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m challenge_fairness.report DATABASE --out FILE."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("database", type=Path, help="DuckDB file holding the built marts")
    parser.add_argument("--out", type=Path, default=Path("target/fairness_report.html"))
    parser.add_argument("--schema", default="main", help="schema of the marts (default main)")
    args = parser.parse_args(argv)
    if not args.database.is_file():
        print(f"fairness report: no DuckDB file at {args.database}", file=sys.stderr)
        return 2
    path = write_report(args.database, args.out, args.schema)
    print(f"Fairness report written to {path.resolve()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

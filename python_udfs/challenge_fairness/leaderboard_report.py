"""The leaderboard impact in the summary and the report: how many agents bias moves, and a
slope chart of actual against bias-adjusted rank (fct_leaderboard)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb
import pandas as pd

if TYPE_CHECKING:
    from challenge_fairness.report import MartReader, Section

LEADERBOARD = "fct_leaderboard"
MOVED_COLOUR = "#D55E00"
BEYOND_COLOUR = "#CC0000"
STILL_COLOUR = "#BBBBBB"


def _true(value: Any) -> bool:
    """True for a true boolean (NULL, NA and False are not)."""
    return value is not None and not pd.isna(value) and bool(value)


def moved_counts(leaderboard: pd.DataFrame) -> tuple[int, int, int, int]:
    """(ranked agents, agents the bias-adjusted leaderboard moves, of them beyond chance,
    the largest move in places)."""
    ranked = leaderboard[leaderboard["rank"].notna()]
    change = ranked["rank_change_bias_adjusted"].fillna(0).astype(int)
    moved = int((change != 0).sum())
    beyond = int(ranked["is_change_bias_adjusted_beyond_chance"].fillna(False).astype(bool).sum())
    largest = int(change.abs().max()) if len(change) else 0
    return len(ranked), moved, beyond, largest


def headline(leaderboard: pd.DataFrame) -> str:
    """One sentence: how many agents the flagged bias moves on the leaderboard."""
    ranked, moved, beyond, largest = moved_counts(leaderboard)
    if ranked == 0:
        reasons = leaderboard["reason"].dropna().unique()
        why = f" ({reasons[0]})" if len(reasons) else ""
        return f"no leaderboard could be ranked{why}"
    if moved == 0:
        return f"bias moves none of the {ranked} ranked agents"
    return (
        f"bias moves {moved} of {ranked} ranked agents, up to {largest} place(s);"
        f" {beyond} beyond chance"
    )


def summary_lines(connection: duckdb.DuckDBPyConnection, schema: str) -> list[str]:
    """The summary's leaderboard block: the count, then the agents moved beyond chance."""
    leaderboard = connection.sql(f"select * from {schema}.{LEADERBOARD} order by rank").df()
    lines = [f"Leaderboard ({LEADERBOARD}): {headline(leaderboard)}"]
    beyond = leaderboard[
        leaderboard["is_change_bias_adjusted_beyond_chance"].fillna(False).astype(bool)
    ]
    for _, row in beyond.iterrows():
        lines.append(
            f"  {row['agent_id']} ({row['model_family']}): rank {int(row['rank'])} ->"
            f" {int(row['rank_bias_adjusted'])} bias-adjusted (change"
            f" {int(row['rank_change_bias_adjusted']):+d}, interval"
            f" {int(row['change_bias_adjusted_ci_low']):+d} to"
            f" {int(row['change_bias_adjusted_ci_high']):+d})"
        )
    return lines


def first_screen_fact(reader: MartReader) -> tuple[str, str] | None:
    """('leaderboard', sentence) for the report's first screen, or None without the mart."""
    if not reader.has(LEADERBOARD):
        return None
    return ("leaderboard", headline(reader.read(LEADERBOARD)))


def slope_chart(ranked: pd.DataFrame) -> Any:
    """Actual rank (left) against bias-adjusted rank (right), one line per agent; the
    agents that move in colour, those beyond chance bold and labelled."""
    from challenge_fairness.report import Plot, _new_figure, figure_to_svg

    agents = len(ranked)
    figure = _new_figure(6.5, 0.16 * agents + 1.8)
    axes = figure.add_subplot()
    for _, row in ranked.sort_values("rank").iterrows():
        before, after = float(row["rank"]), float(row["rank_bias_adjusted"])
        beyond = _true(row["is_change_bias_adjusted_beyond_chance"])
        moved = before != after
        colour = BEYOND_COLOUR if beyond else MOVED_COLOUR if moved else STILL_COLOUR
        axes.plot([0, 1], [before, after], color=colour, linewidth=2.2 if beyond else 1.0)
        if moved or beyond:
            label = f"{row['agent_id']} ({row['model_family']})"
            axes.text(-0.03, before, label, ha="right", va="center", fontsize=7, color=colour)
            axes.text(1.03, after, f"{int(after)}", ha="left", va="center", fontsize=7)
    axes.set_xlim(-0.6, 1.2)
    axes.set_ylim(agents + 0.5, 0.5)
    axes.set_xticks([0, 1], ["actual rank", "bias-adjusted rank"])
    axes.set_ylabel("rank (1 = best)")
    title = "Leaderboard: actual against bias-adjusted rank"
    axes.set_title(title)
    return Plot(
        kind="leaderboard-slope",
        svg=figure_to_svg(figure, title),
        caption=(
            "One line per ranked agent; coloured: its rank changes when the flagged family "
            "effects are taken out; bold red: the change is beyond chance (its paired "
            "bootstrap interval excludes 0)."
        ),
    )


def leaderboard_section(reader: MartReader) -> Section:
    """The leaderboard impact: the count, the slope chart and the agents that move."""
    from challenge_fairness.report import Section, Table, fmt_number, fmt_text, ident

    section = Section(
        key="leaderboard",
        title="Leaderboard impact",
        intro=(
            "Which ranks the flagged bias moves: the leaderboard as the platform computes it "
            "(var leaderboard_score), against the same leaderboard with each flagged "
            "family's ability-adjusted effect taken out of its agents' scores on the flagged "
            "challenges. Rank intervals come from a seeded bootstrap over challenges."
        ),
    )
    if not reader.has(LEADERBOARD):
        section.missing_marts.append(LEADERBOARD)
        return section
    leaderboard = reader.read(LEADERBOARD, order_by="rank nulls last, agent_id")
    section.headline = headline(leaderboard).capitalize() + "."
    ranked = leaderboard[leaderboard["rank"].notna() & leaderboard["rank_bias_adjusted"].notna()]
    if ranked.empty:
        section.notices.append("No ranked agent: " + headline(leaderboard) + ".")
        return section
    section.plots.append(slope_chart(ranked))
    moved = ranked[ranked["rank_change_bias_adjusted"].fillna(0).astype(int) != 0]
    if not moved.empty:
        section.tables.append(
            Table(
                name="leaderboard-moves",
                columns=[
                    "Agent",
                    "Family",
                    "Rank (interval)",
                    "Bias-adjusted",
                    "Change (interval)",
                    "Beyond chance",
                ],
                rows=[
                    [
                        ident(row["agent_id"]),
                        ident(row["model_family"]),
                        f"{fmt_number(row['rank'], '{:.0f}')} "
                        f"({fmt_number(row['rank_ci_low'], '{:.0f}')}-"
                        f"{fmt_number(row['rank_ci_high'], '{:.0f}')})",
                        fmt_number(row["rank_bias_adjusted"], "{:.0f}"),
                        f"{fmt_number(row['rank_change_bias_adjusted'], '{:+.0f}')} "
                        f"({fmt_number(row['change_bias_adjusted_ci_low'], '{:+.0f}')} to "
                        f"{fmt_number(row['change_bias_adjusted_ci_high'], '{:+.0f}')})",
                        fmt_text(
                            "yes" if _true(row["is_change_bias_adjusted_beyond_chance"]) else "no"
                        ),
                    ]
                    for _, row in moved.iterrows()
                ],
                caption=(
                    f"{len(moved)} agent(s) whose rank changes (positive: the bias lifted it)"
                ),
            )
        )
    return section

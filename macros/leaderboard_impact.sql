{#
    The leaderboard, its bootstrap rank intervals and its two counterfactuals (flagged
    challenges removed; flagged family effects subtracted) over agent x challenge cells
    (challenge_fairness.detectors.leaderboard): one struct (status, reason, ranked_agents,
    challenges, flagged_challenges, agents[], challenge_impacts[]). The list arguments are
    one element per cell, in one order (agent, challenge) so the result is byte-stable.
#}
{% macro leaderboard_impact(
    agent_ids, challenge_ids, attempts, score_sums, adjustments, is_flagged,
    method, min_challenges, min_cell_attempts, level, resamples, seed
) -%}
    {{ return(adapter.dispatch('leaderboard_impact', 'challenge_fairness')(
        agent_ids, challenge_ids, attempts, score_sums, adjustments, is_flagged,
        method, min_challenges, min_cell_attempts, level, resamples, seed)) }}
{%- endmacro %}

{% macro duckdb__leaderboard_impact(
    agent_ids, challenge_ids, attempts, score_sums, adjustments, is_flagged,
    method, min_challenges, min_cell_attempts, level, resamples, seed
) -%}
    cf_leaderboard_impact(
        {{ agent_ids }}, {{ challenge_ids }}, {{ attempts }}, {{ score_sums }},
        {{ adjustments }}, {{ is_flagged }}, {{ method }}, cast({{ min_challenges }} as bigint),
        cast({{ min_cell_attempts }} as bigint), cast({{ level }} as double),
        cast({{ resamples }} as bigint), cast({{ seed }} as bigint)
    )
{%- endmacro %}

{% macro default__leaderboard_impact(
    agent_ids, challenge_ids, attempts, score_sums, adjustments, is_flagged,
    method, min_challenges, min_cell_attempts, level, resamples, seed
) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("leaderboard_impact: no UDF for adapter " ~ target.type ~ ": the statistics run on DuckDB (docs/spark.md)") }}{% endif %}
{%- endmacro %}

{#
    The attempts a test result or rubric score is validated against: every valid attempt
    (a row of base_platform__attempts clean by its own rules and not rejected after
    staging, in int_keyed__rows_rejected), in this run's scan or not, with the
    columns those checks use and `is_in_scan` (macro attempt_in_scan). A row of an attempt
    left out of a scan as of var bias_scan_date is valid, and kept out of the scan.
    `only_ids` (a select of attempt ids), when given, keeps those attempts only: an
    incremental run validates a few rows, and the join then reads a few attempts instead
    of building a table of every attempt.
    `recent_after` (an attempt source_row_number, a constant the scan can skip by), with
    `only_ids`, says where those attempts most likely are: the attempts past that row (new
    since the caller's last run) are looked up first, where the scan skips to them, and
    only the ids not found there among every attempt. A valid attempt has one clean row,
    so the two parts never return an attempt twice; the result does not depend on it.

    The result is the build side of a join with every test result or rubric score, a hash
    table of every valid attempt: it is kept narrow, so that DuckDB can spill it under a
    small memory cap (at 100M attempts and 1GB, the wider table with the challenge id and
    the score failed with two threads). The challenge is its `challenge_number` (macro
    challenge_numbers); `score_band` true gives the attempt's DIF score band (macro
    dif_score_band, a TINYINT) instead of its `score`, and `agent_number` true the agent's
    `agent_number` (macro agent_numbers) instead of its id: at 1M attempts the agent ids
    were 16 MB of a table that had to fit in 64MB.
#}
{% macro attempts_to_validate_against(only_ids=none, recent_after=none, score_band=false, agent_number=false) -%}
    {%- set columns -%}
        attempts.attempt_id,
        challenge_numbers.challenge_number,
        {% if agent_number -%}
        agent_numbers.agent_number,
        {%- else -%}
        attempts.agent_id,
        {%- endif %}
        {% if score_band -%}
        cast({{ challenge_fairness.dif_score_band('attempts.score') }} as tinyint) as score_band,
        {%- else -%}
        attempts.score,
        {%- endif %}
        {{ challenge_fairness.attempt_in_scan('attempts.submitted_at') }} as is_in_scan
    {%- endset -%}
    {%- set attempts_joined %}
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ challenge_fairness.challenge_numbers() }} as challenge_numbers
        on attempts.challenge_id = challenge_numbers.challenge_id
    {%- if agent_number %}
    left join {{ challenge_fairness.agent_numbers() }} as agent_numbers
        on attempts.agent_id = agent_numbers.agent_id
    {%- endif %}
    left join {{ challenge_fairness.rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
    {%- endset -%}
    {%- if only_ids and recent_after is not none -%}
    select {{ columns }}
    {{- attempts_joined }}
        and attempts.source_row_number > {{ recent_after }}
        and attempts.attempt_id in ({{ only_ids }})
    union all
    select {{ columns }}
    {{- attempts_joined }}
        and attempts.attempt_id in (
            {{ only_ids }}
            except
            {{ attempt_ids_validated_after(recent_after) }}
        )
    {%- else -%}
    select {{ columns }}
    {{- attempts_joined }}
    {%- if only_ids %}
        and attempts.attempt_id in ({{ only_ids }})
    {%- endif %}
    {%- endif %}
{%- endmacro %}

{#
    The ids of the valid attempts past attempt row `row_number` (a constant): the attempts
    new since a caller's last run, when that is the largest attempt row it had seen.
#}
{% macro attempt_ids_validated_after(row_number) -%}
    select attempts.attempt_id
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ challenge_fairness.rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
        and attempts.source_row_number > {{ row_number }}
{%- endmacro %}

{#
    Each clean challenge's `challenge_number`, an INTEGER in the order of challenge_id: a
    join that only compares challenges can carry it instead of the id (a few bytes instead
    of a string per row).
#}
{% macro challenge_numbers() -%}
    {{ return(challenge_fairness._numbered(ref('stg_platform__challenges'), 'challenge_id', 'challenge_number')) }}
{%- endmacro %}

{#- Each clean agent's `agent_number`, an INTEGER in the order of agent_id (as above). -#}
{% macro agent_numbers() -%}
    {{ return(challenge_fairness._numbered(ref('int_keyed__agents'), 'agent_id', 'agent_number')) }}
{%- endmacro %}

{#- The rows of `relation` numbered 1, 2, ... in the order of `id_column`. -#}
{% macro _numbered(relation, id_column, number_column) -%}
    {%- set numbered -%}
    (
        select
            numbered.{{ id_column }},
            cast(row_number() over (order by numbered.{{ id_column }}) as integer) as {{ number_column }}
        from {{ relation }} as numbered
    )
    {%- endset -%}
    {{ return(numbered) }}
{%- endmacro %}

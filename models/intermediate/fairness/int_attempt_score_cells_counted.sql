{#
    The attempt-grain fact: the clean attempts of this run's scan counted per cell
    (challenge, agent, verdict window, score): window_start is the first day of the
    verdict_history_window holding submitted_at, NULL without a timestamp; score NULL when
    unscored. Every count the verdict chain and the agent x challenge summary need is a
    sum of these cells, so the attempts are scanned once for both; the cells are bounded
    by challenges x agents x windows x distinct scores, however many attempts there are.

    Incremental, equal to a full recount. A run recounts only the cells of the attempts
    validated after its last run (base_platform__attempts.validated_at: new rows, and rows
    whose status changed; their values never change, that model checks), and every cell
    when the vars it counts under changed (bias_scan_date, verdict_history_window:
    `counted_under`) or the staged attempts were rebuilt before it. Cells are keyed by `cell_hash` (a 64-bit hash of the cell); a recount takes
    every cell with a touched hash, so two cells sharing a hash are recounted together. A
    cell whose recount is 0 is written with 0 attempts and deleted by the post-hook.
#}
{{ config(
    materialized='incremental',
    incremental_strategy='delete+insert',
    unique_key='cell_hash',
    on_schema_change='fail',
    post_hook="delete from {{ this }} where attempts = 0",
) }}
{%- set counted_under = sql_string_literal(
    'bias_scan_date=' ~ (var('bias_scan_date', none) or '') ~ ';verdict_history_window='
    ~ verdict_history_window()) %}
{%- set cell = 'challenge_id, agent_id, window_start, score' %}
with

attempts as (
    select
        challenge_id,
        agent_id,
        {{ verdict_window_start('submitted_at') }} as window_start,
        score
    from {{ ref('stg_platform__attempts') }}
),

validations as (
    select max(validated_at) as last_validated_at
    from {{ ref('base_platform__attempts') }}
),

{% if is_incremental() %}
{#- Nothing here needs the whole table twice: it is read where needed, not via a CTE. #}
folded as (
    select
        max(through_validated_at) as through_validated_at,
        min(counted_under) = max(counted_under)
            and min(counted_under) = {{ counted_under }} as same_vars
    from {{ this }}
),

recount_all as (
    select
        coalesce(
            not folded.same_vars
            or folded.through_validated_at > validations.last_validated_at,
            true
        ) as is_full
    from folded
    cross join validations
),

touched as (
    select distinct hash({{ cell }}) as cell_hash
    from (
        select
            challenge_id,
            agent_id,
            {{ verdict_window_start('submitted_at') }} as window_start,
            score
        from {{ ref('base_platform__attempts') }}
        where validated_at > (select through_validated_at from folded)
    ) as validated
),
{% endif %}

counted as (
    select
        hash({{ cell }}) as cell_hash,
        {{ cell }},
        count(*) as attempts
    from attempts
    {% if is_incremental() -%}
    where (select is_full from recount_all)
        or hash({{ cell }}) in (select cell_hash from touched)
    {%- endif %}
    group by {{ cell }}
)

{%- set columns = 'cell_hash, challenge_id, agent_id, window_start, score, attempts' %}

select
    cast(cell_hash as ubigint) as cell_hash,
    cast(challenge_id as varchar) as challenge_id,
    cast(agent_id as varchar) as agent_id,
    cast(window_start as date) as window_start,
    cast(score as double) as score,
    cast(attempts as bigint) as attempts,
    (select last_validated_at from validations) as through_validated_at,
    cast({{ counted_under }} as varchar) as counted_under
from (
    select {{ columns }} from counted
    {% if is_incremental() -%}
    union all
    {#- cells that are empty now: written with 0 attempts, so that the delete of this
        run's keys removes them, then deleted by the post-hook #}
    select {{ columns | replace('attempts', '0 as attempts') }}
    from {{ this }}
    where ((select is_full from recount_all) or cell_hash in (select cell_hash from touched))
        and cell_hash not in (select cell_hash from counted)
    {%- endif %}
) as cells

{#
    The cross-table key checks, in one place, after staging: every raw row of the fully
    staged platform tables that is rejected, with the first rule it breaks, its id and its
    raw record. Staging (the base models) applies the rules of each table alone; here a
    row clean by those is checked against the clean rows of the tables it names, in the
    order the names depend on each other:
    - an agent whose model is not a clean model: `unknown_model_id`;
    - an attempt whose challenge is not a clean challenge (`unknown_challenge_id`), else
      whose agent is not a clean agent (`unknown_agent_id`): these rank after the
      attempt's id, duplicate and blank-id rules and before its score and timestamp rules,
      so a row breaking both gets the key reason;
    - a test case, challenge file or rubric item whose challenge is not a clean challenge
      (`unknown_challenge_id`), ranked after the row's id rules.
    A row rejected by a rule of its own table that ranks first keeps that reason. The raw
    record of a row rejected here is its staged one, or, for an attempt, challenge file or
    rubric item (large tables store no record for a row clean in staging), the typed
    values with the raw ones a type does not give back (macro raw_value_rebuilt).
    The test results and rubric scores, checked against the clean attempts, are checked
    where they are read (int_keyed__test_results_checked, int_keyed__rubric_scores_checked).

    Incremental (strategy `replace`: the select is the whole table), equal to a full build.
    The small tables are checked in full every run; of the attempts, a run checks only
    those whose outcome can change, when the staged challenges, agents and models are
    those the last run checked against (macro key_checks_checked_up_to; otherwise every
    attempt): the attempts staged since (past `checked_up_to`), those rejected in staging
    now, and those rejected here before. Every other attempt was clean by both then, and
    still is: its row never changes (base_platform__attempts checks that), nor did what
    its keys are checked against.
#}
{{ config(
    incremental_strategy='replace',
    on_schema_change='fail',
    post_hook="{{ key_checks_recorded() }}",
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{#- the rules of an attempt's own table ranked before its key checks #}
{%- set attempt_rules_first = [
    'null_attempt_id', 'conflicting_attempt_id', 'duplicate_attempt_id',
    'null_challenge_id', 'null_agent_id',
] %}
with

clean_models as (
    select model_id
    from {{ ref('base_platform__models') }}
    where rejection_reason is null
),

clean_challenges as (
    select challenge_id
    from {{ ref('base_platform__challenges') }}
    where rejection_reason is null
),

agents_checked as (
    select
        agents.source_row_number,
        agents.agent_id,
        case
            when agents.rejection_reason is not null then agents.rejection_reason
            when clean_models.model_id is null then 'unknown_model_id'
        end as rejection_reason,
        agents.raw_record
    from {{ ref('base_platform__agents') }} as agents
    left join clean_models
        on agents.model_id = clean_models.model_id
),

clean_agents as (
    select agent_id
    from agents_checked
    where rejection_reason is null
),

{#- the largest attempt row number checked by the last run, when it still holds #}
{%- set checked_up_to = key_checks_checked_up_to() %}
{%- if checked_up_to is not none %}
{#- The attempts whose outcome can change: staged since the last run, rejected in staging
    now, or rejected here before. Two branches: an OR with the last one made a mark join
    over every attempt (0.68 s at 100M, against 0.01 s for the first two and 0.03 s for a
    semi join on 50 rows rejected before, 0.2 s on 1,000 to 20,000). #}
{%- set attempt_keys -%}
    select
        attempts.source_row_number,
        attempts.challenge_id,
        attempts.agent_id,
        attempts.rejection_reason
    from {{ ref('base_platform__attempts') }} as attempts
{%- endset %}
attempts_to_check as (
    {{ attempt_keys }}
    where
        attempts.source_row_number > {{ checked_up_to }}
        or attempts.rejection_reason is not null
    union all
    {{ attempt_keys }}
    where
        attempts.source_row_number <= {{ checked_up_to }}
        and attempts.rejection_reason is null
        and attempts.source_row_number in (
            select rejected_before.source_row_number
            from {{ this }} as rejected_before
            where rejected_before.source_table = 'attempts'
        )
),
{%- endif %}

{# Every attempt row is probed (two hash joins on small tables) on its keys alone; the few
   rejected ones are then read whole by row number, so the wide columns (raw_record, the
   raw values) of 100M clean rows are never read: 0.8 s against 2.0 to 2.4 s at 100M. #}
attempts_checked as (
    select
        attempts.source_row_number,
        case
            {#- `is not null` first: alone, the IN list became a join over every row
                (0.8 s against 0.6 s at 100M) #}
            when attempts.rejection_reason is not null
                and attempts.rejection_reason
                in ({{ "'" ~ attempt_rules_first | join("', '") ~ "'" }})
                then attempts.rejection_reason
            when clean_challenges.challenge_id is null then 'unknown_challenge_id'
            when clean_agents.agent_id is null then 'unknown_agent_id'
            else attempts.rejection_reason
        end as rejection_reason
    {%- set attempts_read = 'attempts_to_check' if checked_up_to is not none
        else ref('base_platform__attempts') %}
    from {{ attempts_read }} as attempts
    left join clean_challenges
        on attempts.challenge_id = clean_challenges.challenge_id
    left join clean_agents
        on attempts.agent_id = clean_agents.agent_id
),

attempts_rejected as (
    select
        attempts.source_row_number,
        attempts.attempt_id,
        attempts.challenge_id,
        attempts.agent_id,
        {{ raw_value_rebuilt(
            'attempts.raw_score', 'attempts.score', 'attempts', 'score', 'double'
        ) }} as score,
        {{ raw_value_rebuilt(
            'attempts.raw_submitted_at', 'attempts.submitted_at', 'attempts', 'submitted_at',
            'timestamp'
        ) }} as submitted_at,
        attempts.raw_record,
        key_checks.rejection_reason
    from {{ ref('base_platform__attempts') }} as attempts
    inner join attempts_checked as key_checks
        on attempts.source_row_number = key_checks.source_row_number
    where key_checks.rejection_reason is not null
),

{#- a row of a table naming a challenge: its own reason, else the challenge's, else clean #}
{%- set challenge_children = {
    'test_cases': ['null_test_case_id', 'conflicting_test_case_id', 'duplicate_test_case_id',
                   'null_challenge_id'],
    'challenge_files': ['null_challenge_id', 'null_file_path', 'conflicting_file_path',
                        'duplicate_file_path'],
    'rubric_items': ['null_rubric_item_id', 'conflicting_rubric_item_id',
                     'duplicate_rubric_item_id', 'null_challenge_id'],
} %}
{% for table_name, rules_first in challenge_children.items() %}
{{ table_name }}_checked as (
    select
        staged.*,
        case
            when staged.rejection_reason in ({{ "'" ~ rules_first | join("', '") ~ "'" }})
                then staged.rejection_reason
            when clean_challenges.challenge_id is null then 'unknown_challenge_id'
            else staged.rejection_reason
        end as final_reason
    from {{ ref('base_platform__' ~ table_name) }} as staged
    left join clean_challenges
        on staged.challenge_id = clean_challenges.challenge_id
),

{% endfor %}
rubric_items_rejected as (
    select
        source_row_number,
        rubric_item_id,
        challenge_id,
        description,
        {{ raw_value_rebuilt(
            'raw_max_points', 'max_points', 'rubric_items', 'max_points', 'double'
        ) }} as max_points,
        raw_record,
        final_reason
    from rubric_items_checked
    where final_reason is not null
),

rejected as (
    select
        'attempts' as source_table,
        source_row_number,
        attempt_id as record_id,
        rejection_reason,
        coalesce(
            raw_record,
            {{ record_to_json(
                ['attempt_id', 'challenge_id', 'agent_id', 'score', 'submitted_at'],
                'attempts_rejected'
            ) }}
        ) as raw_record
    from attempts_rejected
    union all
    {%- for table_name in ['challenges', 'models', 'reference_corpus'] %}
    {%- set key = {'challenges': 'challenge_id', 'models': 'model_id',
                   'reference_corpus': 'document_id'}[table_name] %}
    select
        '{{ table_name }}' as source_table,
        source_row_number,
        {{ key }} as record_id,
        rejection_reason,
        raw_record
    from {{ ref('base_platform__' ~ table_name) }}
    where rejection_reason is not null
    union all
    {%- endfor %}
    select
        'agents' as source_table,
        source_row_number,
        agent_id as record_id,
        rejection_reason,
        raw_record
    from agents_checked
    where rejection_reason is not null
    union all
    select
        'test_cases' as source_table,
        source_row_number,
        test_case_id as record_id,
        final_reason as rejection_reason,
        raw_record
    from test_cases_checked
    where final_reason is not null
    union all
    select
        'challenge_files' as source_table,
        source_row_number,
        coalesce(challenge_id, '') || ' / ' || coalesce(file_path, '') as record_id,
        final_reason as rejection_reason,
        coalesce(
            raw_record,
            {{ record_to_json(
                ['challenge_id', 'file_path', 'content'], 'challenge_files_checked'
            ) }}
        ) as raw_record
    from challenge_files_checked
    where final_reason is not null
    union all
    select
        'rubric_items' as source_table,
        source_row_number,
        rubric_item_id as record_id,
        final_reason as rejection_reason,
        coalesce(
            raw_record,
            {{ record_to_json(
                ['rubric_item_id', 'challenge_id', 'description', 'max_points'],
                'rubric_items_rejected'
            ) }}
        ) as raw_record
    from rubric_items_rejected
)

select
    cast(source_table as string) as source_table,
    cast(source_row_number as bigint) as source_row_number,
    cast(record_id as string) as record_id,
    cast(rejection_reason as string) as rejection_reason,
    cast(raw_record as string) as raw_record
from rejected
{%- endif %}

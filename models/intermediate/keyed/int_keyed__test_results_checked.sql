{#
    The raw test results validated and compressed: each raw row is typed and checked
    against the first rule it breaks, then
    - a rejected row is kept as it is (its source_row_number, attempt_id, raw_record and
      rejection_reason; `results` = 1), and
    - the clean rows are counted per (test case, agent, score band of the attempt,
      is_in_scan, passed): `results` rows each, source_row_number and attempt_id NULL.
    So the largest raw table is never copied row by row: its clean rows become one fact
    every test-case detector reads (int_keyed__test_results). `test_results` is
    optional: when the platform has no such table this model is empty.

    The key is (attempt_id, test_case_id), compared column by column (macro
    key_duplicates). `passed` must read as a boolean (true/false, t/f, 1/0, yes/no). The
    join that finds the attempt also gives its agent and score band (macro dif_score_band);
    the band is NULL for a result of an unscored attempt (it takes no part in the DIF).
    `is_in_scan` says whether the attempt is in this run's scan (macro attempt_in_scan;
    NULL for a rejected row). Rows conserved: raw rows = sum(results) (fct_source_row_counts).
    The rows are counted on numbers (the test case's and the agent's, the rule's position)
    and the ids put back on the counts, so that the count on top of the join with every
    attempt spills under a small memory cap; a rejected row's ids and raw record are read
    again from its raw row.

    Incremental (strategy `fold`, macros/materializations/incremental_fold.sql), equal to a
    full refresh. The raw table is an append-only log; the watermark is the largest
    source_row_number folded (`last_source_row_number`). A run validates again only the
    raw rows whose outcome can change, and folds the difference into the counts:
    - the new rows, every row rejected before, and every row sharing an attempt id with
      those (so every copy of their keys), except the ids of attempts new since the last
      run (past `last_attempt_row_number`), which no row validated before can share
      unless it was rejected or its attempt is rejected now;
    - every row of an attempt that is rejected now (a correction of an attempt makes its
      earlier clean copy conflicting); a row that was clean leaves its group (-1), with
      the values of the attempt it was counted with, the attempt's first copy (a clean
      attempt's row never changes: base_platform__attempts checks that);
    - every row, when what a result is validated with (`validated_with`: var bias_scan_date,
      var dif_score_bands, the clean test cases) changed.
    The rows clean before are checked, not trusted: the run stops, asking for
    `--full-refresh`, when they are no longer in the raw table (their count) or, with var
    check_history true, not as they were folded (the sum of their hashes, `row_checksum`).
#}
-- depends_on: {{ ref('stg_platform__appended_files') }}
{{ config(
    materialized='incremental',
    incremental_strategy='fold',
    unique_key='source_row_number',
    fold_measures=['results', 'row_checksum'],
    fold_maxima=['last_source_row_number', 'last_attempt_row_number'],
    on_schema_change='fail',
    pre_hook="{{ spill_safe_threads_start(ref('base_platform__attempts')) }}",
    post_hook="{{ spill_safe_threads_end() }}",
) }}
{{ scan_stage_config('incremental') }}
{%- if scan_stage_from_files() %}
{{ scan_stage_files() }}
{%- else %}
{%- set raw_test_results = ref('base_platform__test_results') %}
{%- set validated_with -%}
    {{ sql_string_literal(
        'bias_scan_date=' ~ (var('bias_scan_date', none) or '')
        ~ ';dif_score_bands=' ~ validated_var('dif_score_bands')
        ~ ';checksum=typed;test_cases=') }}
    || (
        select cast(count(*) as string) || ':'
            || cast(coalesce({{ checksum_sum(row_hash(['test_case_id', 'challenge_id'])) }}, 0) as string)
        from {{ ref('int_keyed__test_cases') }}
    )
{%- endset %}
{#- The attempts new since the last run: most new results are theirs, and no result
    validated before can share an id with them unless it was rejected, or its attempt
    (then rejected now: in also_ids). Looked up first, where the scan skips to them. #}
{%- set new_attempts_after = stored_maximum('last_attempt_row_number') %}
{#- A delta, unless the stored counts were validated otherwise (then all rows again). #}
{%- set changed_rows_only = folds_changed_rows('validated_with', validated_with) %}
with

{% if changed_rows_only %}
{# Also validated again: the results of an attempt that is not clean (now); a result that
   was clean leaves the clean side. #}
{{ revalidated_rows(
    raw_test_results,
    id_column='attempt_id',
    columns=['attempt_id', 'test_case_id', 'passed'],
    checksum=raw_row_checksum('test_results', 'raw'),
    also_ids='select record_id from ' ~ ref('int_keyed__rows_rejected') ~ " where source_table = 'attempts'",
    rejected_before='source_row_number is not null',
    watermark_column='last_source_row_number',
    ids_without_history=none if new_attempts_after is none
        else attempt_ids_validated_after(new_attempts_after),
    stores_rows=false,
    raw_table='test_results',
) }},

duplicates as (
    {{ key_duplicates('source', ['attempt_id', 'test_case_id'], ['passed']) }}
),

{# Every row counted before is still in the raw table as it was counted. #}
previous_kept as (
    select
        coalesce(sum(results), 0) as kept_rows,
        sum(row_checksum) as checksum
    from {{ this }}
    where source_row_number is null
),
{% else %}
source as (
    select * from {{ raw_test_results }}
),

{#- Materialised apart, so that this grouping over every raw row does not hold its memory
    while the join below runs (which would then spill). #}
duplicates as {{ materialized_cte() }} (
    {{ key_duplicates(raw_test_results, ['attempt_id', 'test_case_id'], ['passed']) }}
),
{% endif %}

attempts as (
    {{ attempts_to_validate_against(
        'select cast(attempt_id as string) from source' if changed_rows_only else none,
        recent_after=new_attempts_after if changed_rows_only else none,
        score_band=true,
        agent_number=true) }}
),

test_cases as (
    select
        test_cases.test_case_id,
        cast(row_number() over (order by test_cases.test_case_id) as integer) as test_case_number,
        challenge_numbers.challenge_number
    from {{ ref('int_keyed__test_cases') }} as test_cases
    left join {{ challenge_fairness.challenge_numbers() }} as challenge_numbers
        on test_cases.challenge_id = challenge_numbers.challenge_id
),

agents as (
    select * from {{ challenge_fairness.agent_numbers() }} as agent_numbers
),

typed as (
    select
        source.source_row_number,
        {{ raw_typed('test_results', 'attempt_id') }} as attempt_id,
        {{ raw_typed('test_results', 'test_case_id') }} as test_case_id,
        source.passed as raw_passed,
        {{ raw_typed('test_results', 'passed') }} as passed,
        {{ raw_row_checksum('test_results', 'source') }} as row_checksum,
        duplicates.duplicate_kind
    from source
    left join duplicates
        on source.source_row_number = duplicates.source_row_number
),

{#- The rules a result breaks, first one first: its rejection reason is the name, coded
    as its position here while the rows are counted. #}
{%- set result_rules = [
    ('null_attempt_id',
     "attempts.attempt_id is null and nullif(trim(typed.attempt_id), '') is null"),
    ('null_test_case_id',
     "test_cases.test_case_id is null and nullif(trim(typed.test_case_id), '') is null"),
    ('conflicting_test_result_id', "typed.duplicate_kind = 'conflicting'"),
    ('duplicate_test_result_id', "typed.duplicate_kind = 'duplicate'"),
    ('unknown_attempt_id', 'attempts.attempt_id is null'),
    ('unknown_test_case_id', 'test_cases.test_case_id is null'),
    ('test_case_of_other_challenge', 'test_cases.challenge_number <> attempts.challenge_number'),
    ('null_passed', 'typed.raw_passed is null'),
    ('passed_not_boolean', 'typed.passed is null'),
] %}
checked as (
    select
        typed.source_row_number,
        typed.passed,
        test_cases.test_case_number,
        attempts.agent_number,
        cast(attempts.score_band as tinyint) as score_band,
        attempts.is_in_scan,
        {#- A found attempt or test case has a non-blank id: trim only the others. #}
        case
            {%- for rule, condition in result_rules %}
            when {{ condition }} then {{ loop.index }}
            {%- endfor %}
        end as rejection_code,
        typed.row_checksum
    from typed
    left join attempts
        on typed.attempt_id = attempts.attempt_id
    left join test_cases
        on typed.test_case_id = test_cases.test_case_id
),

{#- Counted on small numbers only: the count over every result runs on top of the join with
    the attempts, and a row as narrow as this lets both spill under a small memory cap (at
    100M attempts, 144 agents and 1GB, counting on the text ids ran out of memory). A
    rejected row is a group of its own (its source_row_number); clean rows have none. #}
counted as {{ materialized_cte() }} (
    select
        case when rejection_code is not null then source_row_number end as source_row_number,
        case when rejection_code is null then test_case_number end as test_case_number,
        case when rejection_code is null then agent_number end as agent_number,
        case when rejection_code is null then score_band end as score_band,
        case when rejection_code is null then is_in_scan end as is_in_scan,
        passed,
        rejection_code,
        count(*) as results,
        {{ checksum_sum('case when rejection_code is null then row_checksum end') }}
            as row_checksum,
        max(source_row_number) as last_source_row_number
    from checked
    group by
        case when rejection_code is not null then source_row_number end,
        case when rejection_code is null then test_case_number end,
        case when rejection_code is null then agent_number end,
        case when rejection_code is null then score_band end,
        case when rejection_code is null then is_in_scan end,
        passed,
        rejection_code
),

{# A rejected row keeps its identity, read again from its raw row: few rows, which the
   scan skips to (none: the join stops at once). A full build reads the raw relation
   itself: a second reference to `source` would materialise every raw row. #}
rejected_rows as (
    select
        source.source_row_number,
        {{ raw_typed('test_results', 'attempt_id') }} as attempt_id,
        {{ raw_typed('test_results', 'test_case_id') }} as test_case_id,
        source.passed as raw_passed
    from {{ 'source' if changed_rows_only else raw_test_results }} as source
    where
        source.source_row_number in (
            select counted.source_row_number
            from counted
            where counted.source_row_number is not null
        )
),

{# Clean rows keep only what the detectors count by. #}
compressed as (
    select
        counted.source_row_number,
        rejected.attempt_id,
        coalesce(rejected.test_case_id, test_cases.test_case_id) as test_case_id,
        agents.agent_id,
        cast(counted.score_band as bigint) as score_band,
        counted.is_in_scan,
        counted.passed,
        case counted.rejection_code
            {%- for rule, condition in result_rules %}
            when {{ loop.index }} then '{{ rule }}'
            {%- endfor %}
        end as rejection_reason,
        case
            when counted.rejection_code is not null then
                {{ record_to_json(
                    {'attempt_id': 'attempt_id', 'test_case_id': 'test_case_id', 'passed': 'raw_passed'},
                    'rejected'
                ) }}
        end as raw_record,
        counted.results,
        counted.row_checksum,
        counted.last_source_row_number,
        (
            select max(attempts.source_row_number)
            from {{ ref('base_platform__attempts') }} as attempts
        ) as last_attempt_row_number,
        {{ validated_with }} as validated_with
    from counted
    left join test_cases
        on counted.test_case_number = test_cases.test_case_number
    left join agents
        on counted.agent_number = agents.agent_number
    left join rejected_rows as rejected
        on counted.source_row_number = rejected.source_row_number
)
{%- if changed_rows_only %},

{# The rows of this run that were counted before leave the group they were counted in. #}
counted_before as (
    select
        typed.test_case_id,
        typed.attempt_id,
        typed.passed,
        typed.row_checksum
    from typed
    where typed.source_row_number in (
        select batch_row_number from scanned where clean_rows = 1 and batch_row_number is not null
    )
),

first_copies as (
    select
        attempt_id,
        arg_min(agent_id, source_row_number) as agent_id,
        arg_min(score, source_row_number) as score,
        arg_min(submitted_at, source_row_number) as submitted_at
    from {{ ref('base_platform__attempts') }}
    where attempt_id in (select attempt_id from counted_before)
    group by attempt_id
),

uncounted as (
    select
        cast(null as bigint) as source_row_number,
        cast(null as string) as attempt_id,
        counted_before.test_case_id,
        first_copies.agent_id,
        {{ challenge_fairness.dif_score_band('first_copies.score') }} as score_band,
        {{ challenge_fairness.attempt_in_scan('first_copies.submitted_at') }} as is_in_scan,
        counted_before.passed,
        cast(null as string) as rejection_reason,
        cast(null as string) as raw_record,
        -count(*) as results,
        -sum(counted_before.row_checksum) as row_checksum,
        cast(null as bigint) as last_source_row_number,
        cast(null as bigint) as last_attempt_row_number,
        {{ validated_with }} as validated_with
    from counted_before
    inner join first_copies
        on counted_before.attempt_id = first_copies.attempt_id
    group by all
)

select * from compressed
union all
select * from uncounted

{# Reached only when a row counted before changed in the raw table, or the attempt id of a
   row rejected before was edited (its new id's other rows are not read again). #}
union all
{{ raw_rows_changed_guard('int_keyed__test_results_checked', 'raw test results', 14) }}
{%- elif is_incremental() %}

{# Validated otherwise before: every stored count leaves, every row is counted again. #}
select * from compressed
union all
select * replace (-results as results, -row_checksum as row_checksum)
from {{ this }}
where source_row_number is null
{%- else %}

select * from compressed
{%- endif %}
{%- endif %}

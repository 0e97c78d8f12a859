{#
    One row per input rule of the fairness gate (and per table it checks): is the input
    usable enough for the gate to mean anything? A failed rule that no var allows fails the
    build whatever `fairness_gate_severity` (test fairness_gate_input_usable on
    fct_fairness_gate_findings): unusable input is not a fairness warning.
      - required_table_unusable: a required table has no clean row (empty, or every row
        rejected: e.g. every agent references an unknown model).
      - rejected_share_above_limit: more than `fairness_gate_max_rejected_share` of the raw
        attempts were rejected. Attempts only: a rejected challenge, agent or model row
        rejects its attempts too (unknown_<id>), so its weight shows here, while one bad
        row of a 13-row models table (8 %) moves nothing.
      - optional_table_unusable: an optional table is present but more than
        `fairness_gate_max_optional_rejected_share` of its rows (or all) were rejected: the
        detectors that need it are unavailable (fct_detector_coverage says why).
      - scores_not_points: every clean scored attempt scores between 0 and 1, some above 0
        (fractions, or pass/fail coded 0/1): scores are points 0..100, and no effect on
        such a scale could reach family_deviation_threshold (unless
        `fairness_gate_allow_unit_scores`).
      - family_labels_ambiguous: two clean model_family labels differ only in case,
        Unicode composition or surrounding white space ('GPT' and 'gpt '): they are judged
        as two families, each with part of the attempts (unless
        `fairness_gate_allow_similar_family_labels`).
      - no_testable_challenge: no challenge could be tested (unless
        `fairness_gate_allow_no_testable_challenges`).
      - no_gate_suites: `fairness_gate_suites` is empty (unless
        `fairness_gate_allow_empty_suites`).
#}
{#- Types and ranges of these vars are checked with every var (macros/config/var_spec.sql). -#}
{%- set max_share = challenge_fairness.validated_var('fairness_gate_max_rejected_share') -%}
{%- set max_optional_share = challenge_fairness.validated_var('fairness_gate_max_optional_rejected_share') -%}
{%- set allowed = {} -%}
{%- for name in [
    'fairness_gate_allow_unit_scores',
    'fairness_gate_allow_similar_family_labels',
    'fairness_gate_allow_no_testable_challenges',
    'fairness_gate_allow_empty_suites',
] -%}
{%- do allowed.update({name: challenge_fairness.validated_var(name)}) -%}
{%- endfor -%}
{%- set suites = challenge_fairness.gate_suite_names() -%}
with

row_counts as (
    select * from {{ ref('fct_source_row_counts') }}
),

rejected_rows as (
    select * from {{ ref('fct_rejected_rows') }}
),

challenges_tested as (
    select * from {{ ref('int_challenges_tested') }}
    where verdict_window = 'all'
),

models as (
    select * from {{ ref('stg_platform__models') }}
),

score_counts as (
    select * from {{ ref('int_attempt_scores_counted') }}
    where verdict_window = 'all'
        and score is not null
),

reasons_counted as (
    select
        source_table,
        rejection_reason,
        count(*) as rejected_rows
    from rejected_rows
    group by source_table, rejection_reason
),

reasons_listed as (
    select
        source_table,
        string_agg(
            rejection_reason || ' ' || rejected_rows, ', '
            order by rejected_rows desc, rejection_reason
        ) as reasons
    from reasons_counted
    group by source_table
),

required_tables_checked as (
    select
        'required_table_unusable' as check_name,
        row_counts.source_table as checked_object,
        row_counts.clean_rows = 0 as is_failed,
        false as is_allowed,
        cast(row_counts.clean_rows as double) as observed_value,
        cast(null as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        case
            when row_counts.raw_rows = 0
                then 'required table ' || row_counts.source_table
                    || ' is empty: there is nothing to judge'
            else 'every row of required table ' || row_counts.source_table || ' was rejected ('
                || row_counts.raw_rows || ' raw = 0 clean + ' || row_counts.rejected_rows
                || ' rejected: ' || coalesce(reasons_listed.reasons, 'no reason recorded')
                || '); see fct_rejected_rows'
        end as message
    from row_counts
    left join reasons_listed
        on row_counts.source_table = reasons_listed.source_table
    where row_counts.source_table in ('attempts', 'challenges', 'agents', 'models')
),

rejected_share_checked as (
    select
        'rejected_share_above_limit' as check_name,
        row_counts.source_table as checked_object,
        row_counts.rejected_rows > {{ max_share }} * row_counts.raw_rows as is_failed,
        false as is_allowed,
        row_counts.rejected_rows / row_counts.raw_rows as observed_value,
        cast({{ max_share }} as double) as threshold,
        'fairness_gate_max_rejected_share' as threshold_parameter,
        round(100 * row_counts.rejected_rows / row_counts.raw_rows, 1) || ' % of the '
        || row_counts.raw_rows || ' raw ' || row_counts.source_table || ' rows were rejected ('
        || row_counts.rejected_rows
        || ': '
        || coalesce(reasons_listed.reasons, 'no reason recorded')
        || '), above fairness_gate_max_rejected_share = {{ max_share }}; see fct_rejected_rows'
            as message
    from row_counts
    left join reasons_listed
        on row_counts.source_table = reasons_listed.source_table
    where row_counts.source_table = 'attempts'
        and row_counts.raw_rows > 0
        and row_counts.clean_rows > 0
),

optional_tables_checked as (
    select
        'optional_table_unusable' as check_name,
        row_counts.source_table as checked_object,
        row_counts.rejected_rows > {{ max_optional_share }} * row_counts.raw_rows as is_failed,
        false as is_allowed,
        row_counts.rejected_rows / row_counts.raw_rows as observed_value,
        cast({{ max_optional_share }} as double) as threshold,
        'fairness_gate_max_optional_rejected_share' as threshold_parameter,
        'optional table ' || row_counts.source_table || ' is unusable: '
        || row_counts.rejected_rows || ' of its ' || row_counts.raw_rows
        || ' raw rows were rejected (' || coalesce(reasons_listed.reasons, 'no reason recorded')
        || '), above fairness_gate_max_optional_rejected_share = {{ max_optional_share }};'
        || ' its detectors are'
        || ' unavailable (fct_detector_coverage); fix the rows or leave the table out'
            as message
    from row_counts
    left join reasons_listed
        on row_counts.source_table = reasons_listed.source_table
    where row_counts.source_table not in ('attempts', 'challenges', 'agents', 'models')
        and row_counts.raw_rows > 0
),

score_range as (
    select
        max(score) as highest_score,
        coalesce(sum(attempts), 0) as scored_attempts
    from score_counts
),

score_scale_checked as (
    select
        'scores_not_points' as check_name,
        'attempts' as checked_object,
        coalesce(highest_score > 0 and highest_score <= 1, false) as is_failed,
        {{ allowed['fairness_gate_allow_unit_scores'] }} as is_allowed,
        highest_score as observed_value,
        cast(1 as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        'every one of the ' || scored_attempts || ' clean scored attempts scores between 0 and 1'
        || ' (the highest ' || {{ format_number('highest_score', '%g') }} || '): scores are read'
        || ' as points from 0 to 100 (pass/fail as 0 or 100), and no family effect on this scale'
        || ' can reach family_deviation_threshold = {{ var("family_deviation_threshold") }};'
        || ' multiply the scores by 100, or set fairness_gate_allow_unit_scores: true if they'
        || ' are points' as message
    from score_range
    {#- no scored attempt: nothing to read the scale from (the required-table rule speaks) #}
    where highest_score is not null
),

family_labels as (
    select
        lower(trim(nfc_normalize(model_family))) as folded_label,
        model_family,
        string_agg(model_id, ', ' order by model_id) as model_ids
    from models
    group by lower(trim(nfc_normalize(model_family))), model_family
),

ambiguous_labels as (
    select
        folded_label,
        string_agg(
            '"' || model_family || '" (' || model_ids || ')', ' and ' order by model_family
        ) as described
    from family_labels
    group by folded_label
    having count(*) > 1
),

family_labels_checked as (
    select
        'family_labels_ambiguous' as check_name,
        'models' as checked_object,
        count(*) > 0 as is_failed,
        {{ allowed['fairness_gate_allow_similar_family_labels'] }} as is_allowed,
        cast(count(*) as double) as observed_value,
        cast(null as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        case
            when count(*) = 0 then 'no two model_family labels differ only in case or spaces'
            else 'model families ' || string_agg(described, '; ' order by folded_label)
                || ' differ only in case, Unicode composition or surrounding spaces: they are'
                || ' judged as different families, each with part of the attempts; give each'
                || ' family one label in the models table, or set'
                || ' fairness_gate_allow_similar_family_labels: true if they are different'
                || ' families'
        end as message
    from ambiguous_labels
),

eligibility_counted as (
    select
        eligibility,
        count(*) as challenges
    from challenges_tested
    group by eligibility
),

testable_checked as (
    select
        'no_testable_challenge' as check_name,
        'challenges' as checked_object,
        coalesce(sum(challenges) filter (where eligibility = 'tested'), 0) = 0 as is_failed,
        {{ allowed['fairness_gate_allow_no_testable_challenges'] }} as is_allowed,
        cast(coalesce(sum(challenges) filter (where eligibility = 'tested'), 0) as double)
            as observed_value,
        cast(null as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        'no challenge could be tested: of ' || coalesce(sum(challenges), 0)
        || ' clean challenges, none has eligibility tested ('
        || coalesce(string_agg(eligibility || ' ' || challenges, ', ' order by eligibility), 'none')
        || '; see int_challenges_tested.eligibility_reason, and the vars min_attempts and'
        || ' min_family_attempts);'
        || ' set fairness_gate_allow_no_testable_challenges: true to accept this'
            as message
    from eligibility_counted
),

suites_checked as (
    select
        'no_gate_suites' as check_name,
        'fairness_gate_suites' as checked_object,
        {{ (suites | length) == 0 }} as is_failed,
        {{ allowed['fairness_gate_allow_empty_suites'] }} as is_allowed,
        cast({{ suites | length }} as double) as observed_value,
        cast(null as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        'var fairness_gate_suites is empty: the gate would check nothing; name the suites to'
        || ' run, or set fairness_gate_allow_empty_suites: true to accept this' as message
),

checked as (
    select * from required_tables_checked
    union all
    select * from rejected_share_checked
    union all
    select * from optional_tables_checked
    union all
    select * from score_scale_checked
    union all
    select * from family_labels_checked
    union all
    select * from testable_checked
    union all
    select * from suites_checked
)

select * from checked

{#
    One row per finding of the fairness gate, the unit CI reports and counts:
      - fairness_finding: a mart row that broke a gate expectation (the suite ran);
        its severity is `fairness_gate_severity`.
      - suite_error: a suite that could not run (unknown suite, malformed or invalid file,
        missing column, bad parameter); always severity error.
      - unusable_input: an input rule of int_fairness_gate_inputs_checked that failed and
        that no var allows; always severity error.
    finding_number orders them deterministically (errors first, then by suite and message).
#}
with

validations as (
    select * from {{ ref('int_fairness_expectations_validated') }}
),

inputs_checked as (
    select * from {{ ref('int_fairness_gate_inputs_checked') }}
),

fairness_findings as (
    select
        'fairness_finding' as finding_kind,
        cast(validations.suite_name as varchar) as check_name,
        cast(validations.mart_name as varchar) as checked_object,
        found.finding ->> 'subject' as subject,
        found.finding ->> 'model_family' as model_family,
        try_cast(found.finding ->> 'value' as double) as value,
        cast(validations.threshold as double) as threshold,
        cast(validations.threshold_parameter as varchar) as threshold_parameter,
        cast(validations.severity as varchar) as severity,
        found.finding ->> 'message' as message
    from validations
    cross join unnest(cast(cast(validations.findings as json) as json[])) as found (finding)
    where cast(validations.status as varchar) = 'failed'
),

suite_errors as (
    select
        'suite_error' as finding_kind,
        cast(suite_name as varchar) as check_name,
        cast(mart_name as varchar) as checked_object,
        cast(null as varchar) as subject,
        cast(null as varchar) as model_family,
        cast(null as double) as value,
        cast(null as double) as threshold,
        cast(null as varchar) as threshold_parameter,
        'error' as severity,
        cast(failure_message as varchar) as message
    from validations
    where cast(status as varchar) = 'error'
),

input_problems as (
    select
        'unusable_input' as finding_kind,
        check_name,
        checked_object,
        cast(null as varchar) as subject,
        cast(null as varchar) as model_family,
        observed_value as value,
        threshold,
        threshold_parameter,
        'error' as severity,
        message
    from inputs_checked
    where is_failed and not is_allowed
),

unioned as (
    select * from input_problems
    union all
    select * from suite_errors
    union all
    select * from fairness_findings
),

numbered as (
    select
        row_number() over (
            order by
                case finding_kind
                    when 'unusable_input' then 1 when 'suite_error' then 2 else 3
                end,
                case check_name
                    when 'required_table_unusable' then 1
                    when 'rejected_share_above_limit' then 2
                    when 'no_testable_challenge' then 3
                    when 'no_gate_suites' then 4
                end,
                check_name, message, subject, model_family
        ) as finding_number,
        *
    from unioned
)

select
    cast(finding_number as bigint) as finding_number,
    cast(finding_kind as varchar) as finding_kind,
    cast(check_name as varchar) as check_name,
    cast(checked_object as varchar) as checked_object,
    cast(subject as varchar) as subject,
    cast(model_family as varchar) as model_family,
    cast(value as double) as value,
    cast(threshold as double) as threshold,
    cast(threshold_parameter as varchar) as threshold_parameter,
    cast(severity as varchar) as severity,
    cast(message as varchar) as message
from numbered

{#
    One row per finding of the fairness gate, the unit CI reports and counts:
      - fairness_finding: a mart row that broke a gate expectation (the suite ran);
        its severity is `fairness_gate_severity`.
      - suite_error: a suite that could not run (unknown suite, malformed or invalid file,
        missing column, bad parameter); always severity error.
      - unusable_input: an input rule of int_fairness_gate_inputs_checked that failed and
        that no var allows; always severity error.

    A fairness finding names its root cause (cause_id, cause, recommended_action): the
    cause of the finding of its detector it corresponds to in int_bias_evidence_unioned
    (the review queue's causes), found by the keys its suite declares (`meta.finding.
    evidence`: the finding id, the challenge, the template content or the cause id), else
    the suite's own cause for it (`meta.finding.cause_id`), else the suite and subject.
    So the family bias on the six plain briefings of a template, found by three suites,
    is one cause, not eighteen lines.

    finding_number orders them deterministically: input, suite errors, then the fairness
    findings by cause (the causes with an action before those without, such as raw
    deviations the verdict does not flag; the causes with more findings first, then by
    decisive action), inside a cause one finding per suite in turn, by message.
#}
{%- set suite_detectors = [] %}
{%- for detector in challenge_fairness.detector_registry() %}
{%- for suite in detector.get('gate_suites', []) %}
{%- do suite_detectors.append(
    '(' ~ sql_string_literal(suite) ~ ', ' ~ sql_string_literal(detector['name']) ~ ')') %}
{%- endfor %}
{%- endfor %}
with

validations as (
    select * from {{ ref('int_fairness_expectations_validated') }}
),

inputs_checked as (
    select * from {{ ref('int_fairness_gate_inputs_checked') }}
),

evidence as (
    select * from {{ ref('int_bias_evidence_unioned') }}
),

challenges as (
    select * from {{ ref('stg_platform__challenges') }}
),

suite_detectors as (
    select
        declared.check_name,
        declared.detector
    from (
        values {{ suite_detectors | join(', ') }}
    ) as declared (check_name, detector)
),

found_findings as (
    select
        cast(validations.suite_name as varchar) as check_name,
        cast(validations.mart_name as varchar) as checked_object,
        found.finding ->> 'subject' as subject,
        found.finding ->> 'model_family' as model_family,
        try_cast(found.finding ->> 'value' as double) as value,
        cast(validations.threshold as double) as threshold,
        cast(validations.threshold_parameter as varchar) as threshold_parameter,
        cast(validations.severity as varchar) as severity,
        found.finding ->> 'message' as message,
        found.finding -> 'evidence' ->> 'finding_id' as evidence_finding_id,
        found.finding -> 'evidence' ->> 'challenge_id' as evidence_challenge_id,
        found.finding -> 'evidence' ->> 'template_id' as evidence_template_id,
        found.finding -> 'evidence' ->> 'variable_combination' as evidence_variable_combination,
        found.finding -> 'evidence' ->> 'cause_id' as evidence_cause_id,
        found.finding ->> 'cause_id' as own_cause_id,
        found.finding ->> 'cause' as own_cause
    from validations
    cross join unnest(cast(cast(validations.findings as json) as json[])) as found (finding)
    where cast(validations.status as varchar) = 'failed'
),

keyed_findings as (
    select
        row_number() over (order by check_name, message, subject, model_family) as finding_key,
        *
    from found_findings
),

{#- The detector findings each gate finding corresponds to: same detector, a compatible
    family, and one of the keys the suite declares. The decisive one (action precedence,
    then cause id) gives the cause. #}
evidence_matched as (
    select
        keyed_findings.finding_key,
        evidence.cause_id,
        evidence.cause,
        evidence.recommended_action,
        evidence.action_precedence,
        row_number() over (
            partition by keyed_findings.finding_key
            order by evidence.action_precedence, evidence.cause_id, evidence.finding_id
        ) as match_rank
    from keyed_findings
    inner join suite_detectors
        on keyed_findings.check_name = suite_detectors.check_name
    inner join evidence
        on suite_detectors.detector = evidence.detector
        and (
            keyed_findings.model_family is null
            or evidence.model_family is null
            or keyed_findings.model_family = evidence.model_family
        )
    left join challenges
        on evidence.challenge_id = challenges.challenge_id
    where evidence.finding_id = keyed_findings.evidence_finding_id
        or evidence.challenge_id = keyed_findings.evidence_challenge_id
        or evidence.cause_id = keyed_findings.evidence_cause_id
        or (
            challenges.template_id = keyed_findings.evidence_template_id
            and challenges.variable_combination = keyed_findings.evidence_variable_combination
        )
),

caused_findings as (
    select
        keyed_findings.*,
        coalesce(
            evidence_matched.cause_id,
            keyed_findings.own_cause_id,
            keyed_findings.check_name || ':' || coalesce(keyed_findings.subject, '')
        ) as cause_id,
        coalesce(
            evidence_matched.cause,
            keyed_findings.own_cause,
            'finding of ' || keyed_findings.check_name
            || coalesce(' on ' || keyed_findings.subject, '')
        ) as cause,
        evidence_matched.recommended_action,
        evidence_matched.action_precedence
    from keyed_findings
    left join evidence_matched
        on keyed_findings.finding_key = evidence_matched.finding_key
        and evidence_matched.match_rank = 1
),

{#- A cause's action: the decisive one among its findings'. #}
fairness_findings as (
    select
        'fairness_finding' as finding_kind,
        check_name,
        checked_object,
        subject,
        model_family,
        value,
        threshold,
        threshold_parameter,
        severity,
        message,
        cause_id,
        first_value(cause) over by_cause as cause,
        first_value(recommended_action) over by_cause as recommended_action,
        min(action_precedence) over (partition by cause_id) as cause_precedence,
        count(*) over (partition by cause_id) as cause_findings,
        row_number() over (
            partition by cause_id, check_name order by message, subject, model_family
        ) as rank_in_suite
    from caused_findings
    window by_cause as (
        partition by cause_id
        order by action_precedence nulls last, check_name, message
        rows between unbounded preceding and unbounded following
    )
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

{#- Errors and input rules have no cause. #}
unioned as (
    select
        errors.*,
        cast(null as varchar) as cause_id,
        cast(null as varchar) as cause,
        cast(null as varchar) as recommended_action,
        cast(null as bigint) as cause_precedence,
        cast(null as bigint) as cause_findings,
        cast(null as bigint) as rank_in_suite
    from (
        select * from input_problems
        union all
        select * from suite_errors
    ) as errors
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
                    when 'scores_not_points' then 3
                    when 'family_labels_ambiguous' then 4
                    when 'no_testable_challenge' then 5
                    when 'no_gate_suites' then 6
                end,
                cause_precedence is null,
                cause_findings desc,
                cause_precedence,
                cause_id,
                rank_in_suite,
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
    cast(message as varchar) as message,
    cast(cause_id as varchar) as cause_id,
    cast(cause as varchar) as cause,
    cast(recommended_action as varchar) as recommended_action
from numbered

{{
    config(
        materialized='incremental',
        incremental_strategy='delete+insert',
        unique_key=['scan_date', 'challenge_id', 'detector', 'finding_id'],
        on_schema_change='append_new_columns',
        pre_hook="{% if is_incremental() %}delete from {{ this }} where scan_date = (select scan_date from {{ ref('int_bias_scan_date') }}) or {{ challenge_fairness.outside_plausible_window('scan_date') }}{% endif %}"
    )
}}
{#
    The daily scan: every current finding, filed under the run's scan date. Incremental: a
    run adds (or, for a scan date already in the table, replaces: see the pre-hook) that
    date's scan and keeps the earlier ones; `--full-refresh` starts the history again.
    The pre-hook also drops scans filed outside the plausible window (vars
    earliest_plausible_timestamp, plausible_timestamp_days_ahead): a run on data with an
    outlier timestamp (before staging rejected it) cannot pin the history to year 9999.
#}
with

scan_dates as (
    select * from {{ ref('int_bias_scan_date') }}
),

findings as (
    select * from {{ ref('int_bias_evidence_unioned') }}
),

verdicts as (
    select * from {{ ref('fct_challenge_verdicts') }}
),

{% if is_incremental() %}
previous_findings as (
    select challenge_id, detector, finding_id
    from {{ this }}
    where scan_date = (
        select max(scan_date)
        from {{ this }}
        where scan_date < (select scan_date from scan_dates)
    )
),
{% endif %}

scanned as (
    select
        scan_dates.scan_date,
        findings.*,
        verdicts.verdict,
        {% if is_incremental() -%}
        previous_findings.finding_id is null as is_new
        {%- else -%}
        true as is_new
        {%- endif %}
    from findings
    cross join scan_dates
    left join verdicts
        on findings.challenge_id = verdicts.challenge_id
    {% if is_incremental() -%}
    left join previous_findings
        on findings.challenge_id = previous_findings.challenge_id
        and findings.detector = previous_findings.detector
        and findings.finding_id = previous_findings.finding_id
    {%- endif %}
)

select
    cast(scan_date as date) as scan_date,
    cast(challenge_id as varchar) as challenge_id,
    cast(template_id as varchar) as template_id,
    cast(detector as varchar) as detector,
    cast(finding_id as varchar) as finding_id,
    cast(model_family as varchar) as model_family,
    cast(effect as double) as effect,
    cast(effect_unit as varchar) as effect_unit,
    cast(ci_low as double) as ci_low,
    cast(ci_high as double) as ci_high,
    cast(q_value as double) as q_value,
    cast(threshold as double) as threshold,
    cast(severity as double) as severity,
    cast(evidence as varchar) as evidence,
    cast(recommended_action as varchar) as recommended_action,
    cast(action_precedence as bigint) as action_precedence,
    cast(action_reason as varchar) as action_reason,
    cast(verdict as varchar) as verdict,
    cast(is_new as boolean) as is_new,
    cast(cause_id as varchar) as cause_id,
    cast(cause as varchar) as cause,
    cast(challenge_attempts as bigint) as challenge_attempts
from scanned

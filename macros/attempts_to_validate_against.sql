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
#}
{% macro attempts_to_validate_against(only_ids=none, recent_after=none) -%}
    {%- set columns -%}
        attempts.attempt_id,
        attempts.challenge_id,
        attempts.agent_id,
        attempts.score,
        {{ challenge_fairness.attempt_in_scan('attempts.submitted_at') }} as is_in_scan
    {%- endset -%}
    {%- if only_ids and recent_after is not none -%}
    select {{ columns }}
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ challenge_fairness.rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
        and attempts.source_row_number > {{ recent_after }}
        and attempts.attempt_id in ({{ only_ids }})
    union all
    select {{ columns }}
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ challenge_fairness.rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
        and attempts.attempt_id in (
            {{ only_ids }}
            except
            {{ attempt_ids_validated_after(recent_after) }}
        )
    {%- else -%}
    select {{ columns }}
    from {{ ref('base_platform__attempts') }} as attempts
    left join {{ challenge_fairness.rejected_after_staging('attempts') }} as rejected
        on attempts.source_row_number = rejected.source_row_number
    where attempts.rejection_reason is null
        and rejected.source_row_number is null
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

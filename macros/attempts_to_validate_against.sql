{#
    The attempts a test result or rubric score is validated against: every valid attempt
    (base_platform__attempts without a rejection), in this run's scan or not, with the
    columns those checks use and `is_in_scan` (macro attempt_in_scan). A row of an attempt
    left out of a scan as of var bias_scan_date is valid, and kept out of the scan.
    `only_ids` (a select of attempt ids), when given, keeps those attempts only: an
    incremental run validates a few rows, and the join then reads a few attempts instead
    of building a table of every attempt.
#}
{% macro attempts_to_validate_against(only_ids=none) -%}
    select
        attempt_id,
        challenge_id,
        agent_id,
        score,
        {{ challenge_fairness.attempt_in_scan('submitted_at') }} as is_in_scan
    from {{ ref('base_platform__attempts') }}
    where rejection_reason is null
    {%- if only_ids %}
        and attempt_id in ({{ only_ids }})
    {%- endif %}
{%- endmacro %}

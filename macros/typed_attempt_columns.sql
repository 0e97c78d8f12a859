{#
    The raw attempt columns of `relation` (an alias) typed as base_platform__attempts
    validates them, with the raw score and timestamp beside their typed values. One
    definition for the rows the model validates and for the checksum of the rows it keeps,
    so that the two cannot drift apart.
#}
{% macro typed_attempt_columns(relation) -%}
    {{ relation }}.source_row_number,
    cast({{ relation }}.attempt_id as varchar) as attempt_id,
    cast({{ relation }}.challenge_id as varchar) as challenge_id,
    cast({{ relation }}.agent_id as varchar) as agent_id,
    {{ relation }}.score as raw_score,
    try_cast({{ relation }}.score as double) as score,
    {{ relation }}.submitted_at as raw_submitted_at,
    try_cast({{ relation }}.submitted_at as timestamp) as submitted_at
{%- endmacro %}

{#
    Every row-level assertion of one model in one test, read in one pass: the per-column
    not_null / accepted_range / accepted_values tests and the model's expression_is_true and
    unique / unique_combination tests, which were one dbt node (and one scan) each.

    Arguments (each optional, at least one given):
      unique_keys:     [[col, ...], ...]  each a combination that must not repeat (NULLs
                                          count as a value, as in `unique_combination`)
      not_null:        [col, ...]
      accepted_range:  {col: {min_value: x, max_value: y}}  non-NULL values within, inclusive
      accepted_values: {col: [v, ...]}    non-NULL values among these (quoted as strings)
      expressions:     ["<boolean SQL>", ...]  true on every row (NULL fails)
      row_count:       n                  the model has exactly n rows (the grain of a
                                          one-row model, e.g. one row per run)

    The test returns one row per broken assertion: `check_name` says which assertion
    (e.g. `accepted_range(score: 0..100)`), `failing_rows` how many rows break it (for a
    unique key, how many key values repeat; for row_count, how far the count is off). The failure count is the number of broken
    assertions; `dbt build --store-failures` keeps the rows. Portable SQL (CASE sums,
    GROUP BY / HAVING, UNION ALL), as on Spark and PostgreSQL; on DuckDB the repeated key
    hashes are found by a sort (macro repeated_values).
#}
{% test row_checks(model, unique_keys=[], not_null=[], accepted_range={}, accepted_values={}, expressions=[], row_count=none) %}
{%- set row_conditions = [] -%}
{%- for column in not_null -%}
    {%- do row_conditions.append(('not_null(' ~ column ~ ')', column ~ ' is null')) -%}
{%- endfor -%}
{%- for column, bounds in accepted_range.items() -%}
    {%- set low = bounds.get('min_value') -%}
    {%- set high = bounds.get('max_value') -%}
    {%- if low is none and high is none -%}
        {{ exceptions.raise_compiler_error(
            "row_checks: accepted_range of " ~ column ~ " needs min_value, max_value or both") }}
    {%- endif -%}
    {%- set outside = [] -%}
    {%- if low is not none %}{% do outside.append(column ~ ' < ' ~ low) %}{% endif -%}
    {%- if high is not none %}{% do outside.append(column ~ ' > ' ~ high) %}{% endif -%}
    {%- do row_conditions.append((
        'accepted_range(' ~ column ~ ': ' ~ (low if low is not none else '') ~ '..'
            ~ (high if high is not none else '') ~ ')',
        column ~ ' is not null and (' ~ (outside | join(' or ')) ~ ')')) -%}
{%- endfor -%}
{%- for column, values in accepted_values.items() -%}
    {%- set quoted = [] -%}
    {%- for value in values -%}
        {%- do quoted.append("'" ~ (value | string | replace("'", "''")) ~ "'") -%}
    {%- endfor -%}
    {%- do row_conditions.append((
        'accepted_values(' ~ column ~ ')',
        column ~ ' is not null and ' ~ column ~ ' not in (' ~ (quoted | join(', ')) ~ ')')) -%}
{%- endfor -%}
{%- for expression in expressions -%}
    {%- do row_conditions.append((
        'expression(' ~ (expression | trim | replace('\n', ' ')) ~ ')',
        'not coalesce((' ~ expression ~ '), false)')) -%}
{%- endfor -%}
{%- if row_count is not none -%}
    {%- do row_conditions.append(('row_count(' ~ row_count ~ ')', none)) -%}
{%- endif -%}
{%- if not row_conditions and not unique_keys -%}
    {{ exceptions.raise_compiler_error("row_checks on " ~ model ~ ": no assertion given") }}
{%- endif %}
with
{%- if row_conditions %}
row_failures as (
    select
    {%- for name, condition in row_conditions %}
        {%- if condition is none %}
        {#- row_count: how far the count is from n (0 when it holds) #}
        abs(count(*) - {{ row_count }}) as check_{{ loop.index }}
        {%- else %}
        sum(case when {{ condition }} then 1 else 0 end) as check_{{ loop.index }}
        {%- endif %}
        {{- ',' if not loop.last }}
    {%- endfor %}
    from {{ model }}
),
{%- endif %}
{#- A key repeats only where its hash does: the 64-bit hashes that repeat are found first
    (one number per row; macro repeated_values), and only the rows of repeated hashes are
    grouped on the key itself. #}
{%- for key in unique_keys %}
{%- set key_hash = challenge_fairness.row_hash(key) %}
repeated_key_{{ loop.index }} as (
    select count(*) as repeated_values
    from (
        select {{ key | join(', ') }}
        from {{ model }}
        where {{ key_hash }} in (
            {{ challenge_fairness.repeated_values(key_hash, model, 'true') | indent(12) }}
        )
        group by {{ key | join(', ') }}
        having count(*) > 1
    ) as repeats
),
{%- endfor %}
assertions as (
{%- for name, condition in row_conditions %}
    select {{ challenge_fairness.sql_string_literal(name) }} as check_name, check_{{ loop.index }} as failing_rows
    from row_failures
    {{- '\n    union all' if not loop.last or unique_keys }}
{%- endfor %}
{%- for key in unique_keys %}
    select {{ challenge_fairness.sql_string_literal('unique(' ~ (key | join(', ')) ~ ')') }} as check_name,
        repeated_values as failing_rows
    from repeated_key_{{ loop.index }}
    {{- '\n    union all' if not loop.last }}
{%- endfor %}
)

select check_name, failing_rows
from assertions
where failing_rows > 0
{% endtest %}

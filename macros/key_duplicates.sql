{#
    Rows of `relation` whose key (`key_columns`: one column name or a list of them) occurs
    more than once, classified: 'conflicting' when the copies differ in any of
    `compared_columns` (every copy is suspect), else 'duplicate' for every copy after the
    first by `source_row_number` (exact repeats, e.g. a log ingested twice: the first copy
    is kept). A key with a NULL part is no key: its rows are never returned.
    Returns a select with columns (source_row_number, key_copies, duplicate_kind), where
    `key_copies` is the number of rows of `relation` sharing the row's key (always > 1).

    `relation` is read up to three times. For a large one, pass a relation expression
    (e.g. `source_rows(...)`) rather than the name of a CTE the model reads again: DuckDB
    would materialise such a CTE in full.
    One pass over every row finds the 64-bit hashes of the key that repeat (macro
    row_hash; smaller than a text key, and no key string is ever built for a composite
    key; macro repeated_values); only the rows whose key hash repeats (none, on clean
    data) are read again and grouped by the key itself, so a hash collision of different
    keys is harmless. Copies differ when the min and max of their row hash differ (no
    count(distinct), which would cost a hash set per key).
#}
{% macro key_duplicates(relation, key_columns, compared_columns) -%}
    {%- set keys = [key_columns] if key_columns is string else key_columns -%}
    {%- if keys | length == 0 or compared_columns | length == 0 -%}
        {{ exceptions.raise_compiler_error(
            "key_duplicates: key_columns and compared_columns must not be empty") }}
    {%- endif -%}
    {%- set key_list = keys | join(', ') -%}
    {%- set key_hash = challenge_fairness.row_hash(keys) -%}
    {%- set row_hash = challenge_fairness.row_hash(compared_columns) -%}
    {%- set key_present -%}
        {%- for key in keys %}{{ key }} is not null{{ ' and ' if not loop.last }}{% endfor -%}
    {%- endset -%}
    select
        keyed.source_row_number,
        repeated_keys.key_copies,
        case
            when repeated_keys.has_variants then 'conflicting'
            when row_number() over (
                partition by {% for key in keys %}keyed.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
                order by keyed.source_row_number
            ) > 1 then 'duplicate'
        end as duplicate_kind
    from {{ relation }} as keyed
    inner join (
        select
            {{ key_list }},
            count(*) as key_copies,
            min({{ row_hash }}) <> max({{ row_hash }}) as has_variants
        from {{ relation }}
        where {{ key_present }}
            and {{ key_hash }} in (
                {{ challenge_fairness.repeated_values(key_hash, relation, key_present) | indent(16) }}
            )
        group by {{ key_list }}
        having count(*) > 1
    ) as repeated_keys
        on {% for key in keys %}keyed.{{ key }} = repeated_keys.{{ key }}{{ ' and ' if not loop.last }}{% endfor %}
{%- endmacro %}


{#
    The values of `expression` over the rows of `relation` where `condition` holds that
    occur more than once (a value repeated k times may be returned up to k - 1 times).
    DuckDB sorts the values and compares each with the one before it: over 20M distinct
    hashes on 2 cores that takes 1.2 s, where a grouping takes 1.7 to 6 s (a hash table of
    every distinct value, in fresh memory); over 200M, 13 s against 33 s, and under a 1GB
    cap, where both spill, 22 s against 20 s. Elsewhere one grouping: a window without
    partitions runs on one worker on Spark.
#}
{% macro repeated_values(expression, relation, condition) -%}
    {{ return(adapter.dispatch('repeated_values', 'challenge_fairness')(expression, relation, condition)) }}
{%- endmacro %}

{% macro default__repeated_values(expression, relation, condition) -%}
    select {{ expression }}
    from {{ relation }}
    where {{ condition }}
    group by {{ expression }}
    having count(*) > 1
{%- endmacro %}

{% macro duckdb__repeated_values(expression, relation, condition) -%}
    select repeated_value
    from (
        select
            repeated_value,
            lag(repeated_value) over (order by repeated_value) as previous_value
        from (
            select {{ expression }} as repeated_value
            from {{ relation }}
            where {{ condition }}
        ) as candidate_values
    ) as sorted_values
    where repeated_value = previous_value
{%- endmacro %}

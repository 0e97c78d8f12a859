{#
    Rows of `relation` whose `key_column` value occurs more than once, classified:
    'conflicting' when the copies differ in any of `compared_columns` (every copy is
    suspect), else 'duplicate' for every copy after the first by `source_row_number`
    (exact repeats, e.g. a log ingested twice: the first copy is kept).
    Returns a select with columns (source_row_number, duplicate_kind).
    One grouping pass: copies differ when the min and max of their row hash differ
    (no count(distinct), which would cost a hash set per key).
#}
{% macro key_duplicates(relation, key_column, compared_columns) -%}
    {%- if compared_columns | length == 0 -%}
        {{ exceptions.raise_compiler_error("key_duplicates: compared_columns must not be empty") }}
    {%- endif -%}
    select
        keyed.source_row_number,
        case
            when repeated_keys.has_variants then 'conflicting'
            when row_number() over (
                partition by keyed.{{ key_column }} order by keyed.source_row_number
            ) > 1 then 'duplicate'
        end as duplicate_kind
    from {{ relation }} as keyed
    inner join (
        select
            {{ key_column }},
            min(hash({{ compared_columns | join(', ') }}))
                <> max(hash({{ compared_columns | join(', ') }})) as has_variants
        from {{ relation }}
        where {{ key_column }} is not null
        group by {{ key_column }}
        having count(*) > 1
    ) as repeated_keys
        on keyed.{{ key_column }} = repeated_keys.{{ key_column }}
{%- endmacro %}

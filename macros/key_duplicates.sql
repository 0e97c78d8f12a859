{#
    Rows of `relation` whose `key_column` value occurs more than once, classified:
    'conflicting' when the copies differ in any of `compared_columns` (every copy is
    suspect), else 'duplicate' for every copy after the first by `source_row_number`
    (exact repeats, e.g. a log ingested twice: the first copy is kept).
    Returns a select with columns (source_row_number, key_copies, duplicate_kind), where
    `key_copies` is the number of rows of `relation` sharing the row's key (always > 1).

    `relation` is read up to three times. For a large one, pass a relation expression
    (e.g. `source_rows(...)`) rather than the name of a CTE the model reads again: DuckDB
    would materialise such a CTE in full.
    One grouping pass over every row, on the 64-bit hash of the key (cheaper to group and
    smaller than a text key); only the rows whose key hash repeats (none, on clean data)
    are read again and grouped by the key itself, so a hash collision of different keys
    is harmless. Copies differ when the min and max of their row hash differ (no
    count(distinct), which would cost a hash set per key).
#}
{% macro key_duplicates(relation, key_column, compared_columns) -%}
    {%- if compared_columns | length == 0 -%}
        {{ exceptions.raise_compiler_error("key_duplicates: compared_columns must not be empty") }}
    {%- endif -%}
    select
        keyed.source_row_number,
        repeated_keys.key_copies,
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
            count(*) as key_copies,
            min(hash({{ compared_columns | join(', ') }}))
                <> max(hash({{ compared_columns | join(', ') }})) as has_variants
        from {{ relation }}
        where {{ key_column }} is not null
            and hash({{ key_column }}) in (
                select hash({{ key_column }})
                from {{ relation }}
                where {{ key_column }} is not null
                group by hash({{ key_column }})
                having count(*) > 1
            )
        group by {{ key_column }}
        having count(*) > 1
    ) as repeated_keys
        on keyed.{{ key_column }} = repeated_keys.{{ key_column }}
{%- endmacro %}

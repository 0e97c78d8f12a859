{#
    One row per match of a regular expression in a text, set-based: `relation` holds one
    row per (text, pattern) pair to search (e.g. briefings cross joined with rules), with
    `key_columns` identifying the pair. Returns a select of the key columns plus
    `match_index` (1, 2, ... in text order), `matched_text` and `match_position` (1-based
    character position of the match in the text). Matches do not overlap (leftmost-first,
    as RE2 scans); empty matches are dropped (rule seeds are tested not to match '').
    The position of the i-th match is 1 + the length of the text before it, which is the
    text pieces between the earlier matches (split on the same pattern) plus the earlier
    matches themselves, so repeated identical matches get their own positions.
#}
{% macro regex_match_rows(relation, key_columns, text_column, pattern_column) -%}
    {{ return(adapter.dispatch('regex_match_rows', 'challenge_fairness')(
        relation, key_columns, text_column, pattern_column)) }}
{%- endmacro %}

{% macro default__regex_match_rows(relation, key_columns, text_column, pattern_column) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error(
        "regex_match_rows: no implementation for adapter " ~ target.type
        ~ " (needs regexp_extract_all and regexp_split_to_array)") }}{% endif %}
{%- endmacro %}

{% macro duckdb__regex_match_rows(relation, key_columns, text_column, pattern_column) -%}
    select
        {%- for column in key_columns %}
        {{ column }},
        {%- endfor %}
        match_index,
        matches[match_index] as matched_text,
        cast(
            1
            + list_sum(list_transform(pieces[1:match_index], lambda piece: length(piece)))
            + coalesce(
                list_sum(list_transform(matches[1:match_index - 1], lambda m: length(m))), 0
            )
            as bigint
        ) as match_position
    from (
        select
            {%- for column in key_columns %}
            {{ column }},
            {%- endfor %}
            matches,
            pieces,
            unnest(generate_series(1, len(matches))) as match_index
        from (
            select
                {%- for column in key_columns %}
                {{ column }},
                {%- endfor %}
                regexp_extract_all({{ text_column }}, {{ pattern_column }}) as matches,
                regexp_split_to_array({{ text_column }}, {{ pattern_column }}) as pieces
            from {{ relation }}
            where regexp_matches({{ text_column }}, {{ pattern_column }})
        ) as searched
    ) as numbered
    where length(matches[match_index]) > 0
{%- endmacro %}

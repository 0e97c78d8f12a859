{#
    The types a raw contract column may have (docs/source_contract.md "Types"): the
    contract's own type, or a documented safe cast of it. Anything else (a BOOLEAN score
    read as 0/1 points, an epoch number as a timestamp, a list of ids) would be read
    silently wrong, so the run stops at start naming table, column, found and expected type.
    - VARCHAR: also JSON, UUID and integers (ids written as numbers);
    - VARCHAR[] (tags): also VARCHAR and JSON (text forms are parsed, macro parsed_tags);
    - DOUBLE: any integer, DECIMAL, FLOAT, and VARCHAR (text is parsed per row; a value
      that is not a number is rejected: score_not_numeric);
    - TIMESTAMP: TIMESTAMP_S/_MS/_NS, TIMESTAMP WITH TIME ZONE, DATE, VARCHAR (the rule of
      macro utc_timestamp);
    - DATE: the timestamp types and VARCHAR;
    - BOOLEAN (optional test_results.passed): also any integer and VARCHAR (true/false,
      t/f, 1/0, yes/no, parsed per row; anything else is rejected);
    - any column: NULL (an all-NULL column of a parquet file).
    Returns the problems as sentences ([] when every column is accepted).
#}
{% macro _raw_type_problems(table, where, columns_found, contract_columns) -%}
    {%- set integers = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT',
        'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT'] -%}
    {%- set timestamps = ['TIMESTAMP', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS',
        'TIMESTAMP WITH TIME ZONE', 'DATE', 'VARCHAR'] -%}
    {%- set accepted = {
        'VARCHAR': ['VARCHAR', 'JSON', 'UUID'] + integers,
        'VARCHAR[]': ['VARCHAR[]', 'VARCHAR', 'JSON'],
        'DOUBLE': ['DOUBLE', 'FLOAT', 'DECIMAL', 'VARCHAR'] + integers,
        'TIMESTAMP': timestamps,
        'DATE': timestamps,
        'BOOLEAN': ['BOOLEAN', 'VARCHAR'] + integers,
    } -%}
    {%- set problems = [] -%}
    {%- for column, expected in contract_columns if column in columns_found -%}
        {%- set found = columns_found[column] | upper -%}
        {%- set base = found.split('(')[0] | trim -%}
        {%- if base != 'NULL' and base not in accepted.get(expected, [expected]) -%}
            {%- do problems.append("column " ~ table ~ "." ~ column ~ " in " ~ where ~ " is "
                ~ found ~ ", expected " ~ expected ~ " (or " ~ (accepted[expected][1:] | join(', '))
                ~ "): convert it, e.g. cast(" ~ column ~ " as " ~ expected ~ ")") -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(problems) }}
{%- endmacro %}


{# {lower-cased column: DuckDB type} of the relation `relation_sql` (a table or read_parquet). #}
{% macro _raw_column_types(relation_sql) -%}
    {%- set described = run_query("describe select * from " ~ relation_sql) -%}
    {%- set types = {} -%}
    {%- for row in described.rows -%}
        {%- do types.update({row[0] | lower: row[1]}) -%}
    {%- endfor -%}
    {{ return(types) }}
{%- endmacro %}


{% macro _quoted_relation(database, schema, identifier) -%}
    {%- set parts = [] -%}
    {%- for part in [database, schema, identifier] if part -%}
        {%- do parts.append('"' ~ (part | replace('"', '""')) ~ '"') -%}
    {%- endfor -%}
    {{ return(parts | join('.')) }}
{%- endmacro %}

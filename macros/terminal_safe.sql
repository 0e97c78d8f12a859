{#
    `text` with every character that could move the cursor or the line (control characters,
    newlines, DEL, C1, line and paragraph separators, bidi controls) written as its Python
    escape ('\x1b', '\u202e'): a value from the data printed to a terminal or a log stays
    on its line and cannot forge one. Printable text is returned unchanged. The same rule
    as `challenge_fairness.cli_guard.terminal_safe` for the command lines.
#}
{% macro terminal_safe(text) -%}
    {%- set text = text | string -%}
    {%- if modules.re.search('[^ -~]', text) is none -%}
        {{ return(text) }}
    {%- endif -%}
    {%- set shown = [] -%}
    {%- for char in text -%}
        {%- do shown.append(char if char.isprintable() or char == ' '
            else char.encode('unicode_escape').decode('ascii')) -%}
    {%- endfor -%}
    {{ return(shown | join('')) }}
{%- endmacro %}

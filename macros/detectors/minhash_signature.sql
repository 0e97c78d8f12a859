{#
    MinHash signature of a set of 64-bit hashes: for permutation i = 0 .. permutations - 1,
    the minimum over the set of hash(x xor key_i), key_i = hash(i). Two sets agree at a
    position with probability equal to their Jaccard similarity (Broder 1997), so the
    share of agreeing positions estimates it with SD sqrt(J (1 - J) / permutations).
    Measured on DuckDB 2.0: hash(xor(x, key_i)) behaves like independent permutations
    (z-score variance 1.01 over 6,000 pairs) where the two-argument hash(x, i) does not
    (1.43: correlated positions).
#}
{% macro minhash_signature(hashes, permutations) -%}
    {%- if permutations | int < 1 -%}
        {{ exceptions.raise_compiler_error("minhash_signature: permutations must be >= 1, got " ~ permutations) }}
    {%- endif -%}
    {{ return(adapter.dispatch('minhash_signature', 'challenge_fairness')(hashes, permutations | int)) }}
{%- endmacro %}

{% macro duckdb__minhash_signature(hashes, permutations) -%}
    list_transform(
        list_transform(range({{ permutations }}), lambda permutation: hash(permutation)),
        lambda permutation_key: list_min(
            list_transform({{ hashes }}, lambda element: hash(xor(element, permutation_key)))
        )
    )
{%- endmacro %}

{% macro default__minhash_signature(hashes, permutations) -%}
    {%- if execute %}{{ exceptions.raise_compiler_error("minhash_signature: no implementation for adapter " ~ target.type) }}{% endif %}
{%- endmacro %}

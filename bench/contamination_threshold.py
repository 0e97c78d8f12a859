"""Evidence for `contamination_similarity_threshold` and `contamination_containment_threshold`:
Jaccard similarity and containment of token shingles between independent real code, and
between planted copies and their originals.

Real code: every pair of distinct modules of the running Python's standard library (all
``*.py`` files under the stdlib folder, tests and site-packages excluded), tokenised and
normalised like the SQL models (``contamination_fixtures.raw_tokens`` /
``normalised_tokens``), exact Jaccard over all pairs in DuckDB (a join on shingle hashes).
Prints quantiles by size class and the most similar pairs, which are the modules that
really share code (twins written from one another, compatibility shims), then the
containment of the smaller module in the larger one (|A n B| / |A|), overall and within
`contamination_containment_max_size_ratio` (normalised containment in a much larger text
is high by chance).
Synthetic: planted copies (each copy kind) and unrelated documents of
``contamination_fixtures``.

    .venv/bin/python bench/contamination_threshold.py [--shingle-tokens 5] [--limit 25]
"""

from __future__ import annotations

import argparse
import sysconfig
import time
from itertools import combinations
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from challenge_fairness.detectors import contamination_fixtures as fixtures

GENERATED = "encodings/"


def shingle_hashes(tokens: list[str], size: int) -> set[int]:
    """Hashes of the distinct runs of `size` tokens."""
    return {hash(tuple(tokens[i : i + size])) for i in range(len(tokens) - size + 1)}


def stdlib_modules() -> dict[str, str]:
    """Module path -> text of every stdlib module (no tests, no site-packages)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    modules = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith(("site-packages", "test/", "idlelib/idle_test", "lib2to3/tests")):
            continue
        if "/tests/" in relative or "/test/" in relative:
            continue
        modules[relative] = path.read_text(encoding="utf-8", errors="replace")
    return modules


def all_pairs(documents: dict[str, set[int]]) -> pd.DataFrame:
    """Exact Jaccard of every pair of documents sharing at least one shingle (DuckDB join)."""
    names = sorted(documents)
    rows = pd.DataFrame(
        [(i, h & 0x7FFFFFFFFFFFFFFF) for i, name in enumerate(names) for h in documents[name]],
        columns=["document", "shingle"],
    )
    sizes = pd.DataFrame(
        {"document": range(len(names)), "size": [len(documents[n]) for n in names]}
    )
    with duckdb.connect() as connection:
        connection.register("shingles", rows)
        connection.register("sizes", sizes)
        pairs = connection.sql(
            """
            select a.document as a, b.document as b, count(*) as shared
            from shingles as a
            inner join shingles as b on a.shingle = b.shingle and a.document < b.document
            group by all
            """
        ).df()
    pairs = pairs.merge(sizes.rename(columns={"document": "a", "size": "size_a"}), on="a")
    pairs = pairs.merge(sizes.rename(columns={"document": "b", "size": "size_b"}), on="b")
    pairs["jaccard"] = pairs["shared"] / (pairs["size_a"] + pairs["size_b"] - pairs["shared"])
    pairs["a"] = [names[i] for i in pairs["a"]]
    pairs["b"] = [names[i] for i in pairs["b"]]
    total = len(names) * (len(names) - 1) // 2
    print(f"  {len(names)} documents, {total} pairs, {len(pairs)} sharing a shingle")
    return pairs.assign(total_pairs=total)


def report(pairs: pd.DataFrame, label: str, limit: int) -> None:
    """Quantiles over all pairs (pairs sharing nothing count as 0) and the top pairs."""
    total = int(pairs["total_pairs"].iloc[0]) if len(pairs) else 0
    values = np.concatenate([pairs["jaccard"].to_numpy(), np.zeros(total - len(pairs))])
    quantiles = np.quantile(values, [0.5, 0.99, 0.999, 0.9999]) if total else []
    print(
        f"  {label}: median / 99% / 99.9% / 99.99% = " + " / ".join(f"{q:.3f}" for q in quantiles)
    )
    for minimum in (30, 100, 300):
        large = pairs[np.minimum(pairs["size_a"], pairs["size_b"]) >= minimum]
        above = large[large["jaccard"] > 0.5]
        largest = large["jaccard"].max()
        print(f"    both >= {minimum} shingles: {len(above)} pairs above 0.5, max {largest:.3f}")
    top = pairs.sort_values("jaccard", ascending=False).head(limit)
    print(top[["a", "b", "size_a", "size_b", "jaccard"]].to_string(index=False))
    smaller = np.minimum(pairs["size_a"], pairs["size_b"])
    larger = np.maximum(pairs["size_a"], pairs["size_b"])
    containment = pairs["shared"] / smaller
    for label_ratio, within in (
        ("any size ratio", larger > 0),
        ("ratio <= 4", larger <= 4 * smaller),
    ):
        values = containment[within & (smaller >= 50)]
        print(
            f"  {label}, containment of the smaller (>= 50 shingles), {label_ratio}: "
            f"99% / 99.9% = {np.quantile(values, 0.99):.3f} / {np.quantile(values, 0.999):.3f}, "
            f"above 0.7: {int((values > 0.7).sum())} of {len(values)} pairs"
        )


def main() -> None:
    """Print the evidence."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shingle-tokens", type=int, default=5)
    parser.add_argument("--limit", type=int, default=25)
    arguments = parser.parse_args()
    size = arguments.shingle_tokens

    started = time.perf_counter()
    modules = stdlib_modules()
    print(f"Standard library of {sysconfig.get_paths()['stdlib']}:")
    for label, tokeniser in (
        ("raw", fixtures.raw_tokens),
        ("normalised", fixtures.normalised_tokens),
    ):
        shingled = {name: shingle_hashes(tokeniser(text), size) for name, text in modules.items()}
        shingled = {name: shingles for name, shingles in shingled.items() if shingles}
        pairs = all_pairs(shingled)
        generated = pairs["a"].str.startswith(GENERATED) & pairs["b"].str.startswith(GENERATED)
        print(
            f"  {label}, {GENERATED}* codecs (generated from one template, share code by design):"
        )
        print(
            f"    {int(generated.sum())} pairs, {int((pairs[generated]['jaccard'] > 0.5).sum())}"
            " above 0.5"
        )
        independent = pairs[
            ~(pairs["a"].str.startswith(GENERATED) | pairs["b"].str.startswith(GENERATED))
        ]
        others = sum(not name.startswith(GENERATED) for name in shingled)
        report(independent.assign(total_pairs=others * (others - 1) // 2), label, arguments.limit)

    print("Synthetic code (contamination_fixtures), 300 unrelated documents:")
    rng = np.random.default_rng(1)
    documents = [fixtures.generate_code(rng) for _ in range(300)]
    for label, tokeniser in (
        ("raw", fixtures.raw_tokens),
        ("normalised", fixtures.normalised_tokens),
    ):
        sets = [shingle_hashes(tokeniser(d), size) for d in documents]
        values = [len(a & b) / len(a | b) for a, b in combinations(sets, 2)]
        print(
            f"  unrelated, {label}: median {np.median(values):.3f}, 99.9% "
            f"{np.quantile(values, 0.999):.3f}, max {max(values):.3f}"
        )
    for kind in fixtures.COPY_KINDS:
        similarities = []
        for document in documents[:100]:
            copy = fixtures.copy_code(document, kind, rng)
            pair = [
                [shingle_hashes(t(x), size) for x in (document, copy)]
                for t in (fixtures.raw_tokens, fixtures.normalised_tokens)
            ]
            similarities.append([len(a & b) / len(a | b) for a, b in pair])
        table = np.array(similarities)
        print(
            f"  {kind:11s} copies: raw min {table[:, 0].min():.3f} mean {table[:, 0].mean():.3f}; "
            f"normalised min {table[:, 1].min():.3f} mean {table[:, 1].mean():.3f}"
        )
    print(f"({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()

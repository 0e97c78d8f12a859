"""Lint a challenge's test code for tests of implementation rather than behaviour.

A test that checks function names, exact output strings, the solution's code layout or a
library choice favours the model families that default to those choices. This module parses
a test's source with tree-sitter (Python, JavaScript, TypeScript) and reports, per finding,
its category, line, snippet and a suggested rewrite, plus the test's interface style. The
names the challenge's briefing specifies are its contract and are never findings.

Pure Python (tree-sitter and its grammars): no duckdb, no dbt. The command line
(`python -m challenge_fairness.test_code_lint <challenge folder>`) runs it on a folder.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import NoReturn

import tree_sitter
import tree_sitter_javascript
import tree_sitter_python
import tree_sitter_typescript

CATEGORIES = (
    "name_expectation",
    "exact_output_format",
    "implementation_structure",
    "library_usage",
)
LANGUAGES = ("python", "javascript", "typescript")
INTERFACE_STYLES = ("http_client", "cli", "internal_api", "public_api", "unknown")
SNIPPET_CHARS = 200

# --- what the test imports -------------------------------------------------------------
# A module is the solution's when the test imports it by path (JavaScript: './x', '../x',
# '@/x', '~/x'; Python: a relative import, or a top-level name that is neither the standard
# library nor a test tool nor a known third-party library).
PY_TEST_MODULES = frozenset(
    {"pytest", "unittest", "hypothesis", "mock", "pytest_mock", "_pytest", "doctest", "conftest"}
)
PY_LIBRARIES = frozenset(
    [
        "requests",
        "httpx",
        "aiohttp",
        "urllib3",
        "fastapi",
        "starlette",
        "flask",
        "django",
        "werkzeug",
        "click",
        "typer",
        "numpy",
        "pandas",
        "scipy",
        "polars",
        "pyarrow",
        "sqlalchemy",
        "psycopg2",
        "psycopg",
        "pymongo",
        "redis",
        "boto3",
        "botocore",
        "stripe",
        "openai",
        "anthropic",
        "pydantic",
        "attrs",
        "marshmallow",
        "jinja2",
        "yaml",
        "toml",
        "tomli",
        "lxml",
        "bs4",
        "beautifulsoup4",
        "dateutil",
        "arrow",
        "pendulum",
        "pytz",
        "babel",
        "freezegun",
        "responses",
        "respx",
        "requests_mock",
        "moto",
        "faker",
        "tabulate",
        "rich",
        "colorama",
        "tqdm",
        "matplotlib",
        "sklearn",
        "torch",
        "tensorflow",
        "simplejson",
        "orjson",
        "ujson",
        "regex",
        "aiofiles",
        "uvicorn",
        "gunicorn",
        "celery",
        "kafka",
        "grpc",
        "google",
        "azure",
        "twilio",
        "sendgrid",
        "paramiko",
        "cryptography",
        "jwt",
        "passlib",
        "bcrypt",
        "pil",
        "PIL",
        "cv2",
        "networkx",
        "sympy",
        "numba",
        "dask",
        "duckdb",
        "sqlite_utils",
        "peewee",
        "tortoise",
    ]
)
PY_HTTP_CLIENTS = frozenset({"requests", "httpx", "aiohttp", "urllib3"})
PY_HTTP_TEST_CLIENTS = frozenset({"TestClient", "AsyncClient", "test_client", "Client"})
PY_CLI_RUNNERS = frozenset({"CliRunner"})
# Standard-library modules a test may stub to control the environment (not a library choice).
PY_ENVIRONMENT_MODULES = frozenset(
    {"builtins", "sys", "os", "time", "datetime", "random", "uuid", "io", "getpass", "secrets"}
)
JS_TEST_MODULES = frozenset(
    {
        "jest",
        "@jest/globals",
        "vitest",
        "mocha",
        "chai",
        "assert",
        "node:assert",
        "node:assert/strict",
        "assert/strict",
        "node:test",
        "sinon",
        "@testing-library/jest-dom",
        "expect",
        "uvu",
        "ava",
        "tap",
    }
)
JS_NODE_BUILTINS = frozenset(
    [
        "fs",
        "path",
        "os",
        "child_process",
        "http",
        "https",
        "url",
        "util",
        "events",
        "stream",
        "crypto",
        "zlib",
        "net",
        "dns",
        "readline",
        "process",
        "buffer",
        "querystring",
        "timers",
        "worker_threads",
        "fs/promises",
    ]
)
JS_ENVIRONMENT_MODULES = frozenset({"fs", "path", "os", "process", "timers", "readline"})
JS_HTTP_CLIENTS = frozenset({"supertest", "axios", "node-fetch", "undici", "got", "superagent"})
JS_CLI_MODULES = frozenset({"child_process", "execa"})
JS_MOCKERS = frozenset({"jest", "vi", "sinon", "td"})

# Members every function or class has (and mock set-up), never a name the solution chose.
CALLABLE_MEMBERS = frozenset(
    {
        "prototype",
        "name",
        "length",
        "call",
        "apply",
        "bind",
        "constructor",
        "toString",
        "mock",
        "mockReturnValue",
        "mockResolvedValue",
        "mockImplementation",
        "mockClear",
        "mockReset",
        "return_value",
        "side_effect",
    }
)
CALL_COUNT_ATTRIBUTES = frozenset(
    {
        "call_count",
        "call_args",
        "call_args_list",
        "assert_called",
        "assert_called_once",
        "assert_called_with",
        "assert_called_once_with",
        "assert_any_call",
        "assert_has_calls",
        "assert_not_called",
        "called",
        "toHaveBeenCalled",
        "toHaveBeenCalledTimes",
        "toHaveBeenCalledWith",
        "toBeCalled",
        "toBeCalledTimes",
        "toHaveBeenNthCalledWith",
        "calledOnce",
        "calledTwice",
        "callCount",
        "calledWith",
    }
)
EQUALITY_ASSERTIONS = frozenset(
    {
        "assertEqual",
        "assertEquals",
        "assert_equal",
        "assertMultiLineEqual",
        "toBe",
        "toEqual",
        "toStrictEqual",
        "equal",
        "strictEqual",
        "deepEqual",
        "deepStrictEqual",
        "eql",
        "equals",
        "toMatchInlineSnapshot",
    }
)
MESSAGE_ASSERTIONS = frozenset(
    {"toThrow", "toThrowError", "rejects", "assertRaisesRegex", "assertRaisesRegexp", "throws"}
)
PATH_PROBES = frozenset(
    {
        "exists",
        "isfile",
        "isdir",
        "is_file",
        "is_dir",
        "listdir",
        "scandir",
        "walk",
        "glob",
        "iglob",
        "existsSync",
        "statSync",
        "readdirSync",
        "accessSync",
        "lstatSync",
        "stat",
        "readdir",
        "access",
        "iterdir",
        "rglob",
    }
)
SOURCE_READERS = frozenset({"read_text", "read_bytes", "readFileSync", "readFile", "open"})
SOURCE_INTROSPECTION = frozenset(
    {
        ("inspect", "getsource"),
        ("inspect", "getsourcelines"),
        ("inspect", "getfile"),
        ("inspect", "getmembers"),
        ("ast", "parse"),
        ("dis", "dis"),
        ("dis", "get_instructions"),
    }
)
CODE_EXTENSIONS = (".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".vue", ".svelte")
DEPENDENCY_MANIFESTS = frozenset(
    {
        "package.json",
        "requirements.txt",
        "pyproject.toml",
        "Pipfile",
        "setup.py",
        "setup.cfg",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
    }
)

REWRITES = {
    "name": "call the entry point the briefing names (or name {name} in the briefing, making it "
    "part of the contract)",
    "import_module": "import the module the briefing names, not {name}",
    "private": "check what the object does through its public interface, not {name}",
    "mock_internal": "stub only the external boundary the briefing names, and check outputs "
    "or side effects instead of calls to {name}",
    "call_count": "assert on outputs or side effects, not on how often {name} is called",
    "read_source": "run the code and check its behaviour instead of reading its source",
    "layout": "exercise the entry point the briefing names; do not check the path {name}",
    "library_mock": "stub the boundary (the network, the clock) rather than the library {name}, "
    "or name {name} in the briefing",
    "library_assert": "check the behaviour; do not require the library {name}",
    "currency": "parse the amount (e.g. Decimal(text.strip('$').replace(',', ''))) and compare "
    "numbers",
    "number": "parse the number and compare values (with a tolerance), not its formatting",
    "padding": "compare the stripped or split fields, not the padding",
    "date": "parse the date and compare dates, not their formatting",
    "wording": "check the error type or a normalised keyword, not the exact wording",
}


@dataclass(frozen=True)
class Finding:
    """One thing a test checks about the implementation rather than the behaviour."""

    category: str
    line: int
    snippet: str
    message: str
    suggested_rewrite: str


@dataclass(frozen=True)
class LintResult:
    """What the lint found in one test's source."""

    status: str  # ok | partial_parse | no_code | unsupported_language
    reason: str | None
    language: str | None
    is_language_inferred: bool
    interface_style: str | None
    findings: tuple[Finding, ...] = ()


# --- the briefing's contract -----------------------------------------------------------

_CODE_SPAN = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.DOTALL)
_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_CALL_LIKE = re.compile(r"([A-Za-z_$][A-Za-z0-9_$.]*)\s*\(")
_CODE_LIKE = re.compile(
    r"(?<![\w$])([A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)+"
    r"|[A-Za-z$][A-Za-z0-9$]*_[A-Za-z0-9_$]+|[a-z$][a-z0-9$]*[A-Z][A-Za-z0-9$]*)(?![\w$])"
)
_WORD = re.compile(r"[A-Za-z0-9@][A-Za-z0-9_.@/-]*")


@dataclass(frozen=True)
class BriefingContract:
    """The identifiers, paths and words a briefing specifies."""

    names: frozenset[str]
    words: frozenset[str]
    text: str

    def names_identifier(self, name: str) -> bool:
        """True when the briefing names the identifier `name`."""
        return name in self.names

    def names_path(self, path: str) -> bool:
        """True when the briefing names the module or file path (as a whole: `app/main.py`
        names `app.main` and `app/main`, not `app/other`)."""
        if path in self.names:
            return True
        dotted = re.sub(r"^(?:\.{1,2}/)+", "", path).strip("/").replace("/", ".").lstrip(".")
        for suffix in CODE_EXTENSIONS:
            if dotted.endswith(suffix):
                dotted = dotted[: -len(suffix)]
        return bool(dotted) and dotted in self.names

    def names_library(self, library: str) -> bool:
        """True when the briefing mentions the library (or service) at all."""
        root = library.lstrip("@").split("/")[0].split(".")[0].lower()
        return library.lower() in self.words or root in self.words

    def states_text(self, literal: str) -> bool:
        """True when the exact string appears in the briefing (its format is the contract)."""
        stripped = literal.strip()
        return bool(stripped) and stripped in self.text


@lru_cache(maxsize=4096)
def briefing_contract(briefing_text: str | None) -> BriefingContract:
    """The names a briefing specifies: every identifier in its code spans, and in its prose
    the call-looking (`name(`), dotted, snake_case and camelCase tokens; file paths count by
    their segments and stems."""
    text = briefing_text or ""
    names: set[str] = set()
    for fenced, inline in _CODE_SPAN.findall(text):
        span = fenced or inline
        names.update(_IDENTIFIER.findall(span))
        for token in re.split(r"[\s()\[\]{},;:'\"=<>]+", span):
            if token:
                names.update(_path_names(token))
    prose = _CODE_SPAN.sub(" ", text)
    for token in _CALL_LIKE.findall(prose) + _CODE_LIKE.findall(prose):
        names.update(_path_names(token))
    for token in re.findall(r"[\w.-]*/[\w./-]+", prose):
        names.update(_path_names(token))
    words = frozenset(word.lower().strip(".-/") for word in _WORD.findall(text))
    return BriefingContract(frozenset(name for name in names if name), words, text)


def _path_names(token: str) -> set[str]:
    """A dotted or slashed token, its segments and the segments' stems."""
    token = token.strip("`'\".,;:()")
    found = {token}
    for part in re.split(r"[./\\]+", token):
        if part:
            found.add(part)
    joined = token.replace("/", ".")
    for suffix in CODE_EXTENSIONS:
        if joined.endswith(suffix):
            found.add(joined[: -len(suffix)].strip("."))
    found.add(joined.strip("."))
    return found


# --- parsing ---------------------------------------------------------------------------


@cache
def _parser(language: str) -> tree_sitter.Parser:
    grammar = {
        "python": tree_sitter_python.language,
        "javascript": tree_sitter_javascript.language,
        "typescript": tree_sitter_typescript.language_tsx,
    }[language]
    return tree_sitter.Parser(tree_sitter.Language(grammar()))


def _error_count(node: tree_sitter.Node) -> int:
    if not node.has_error:
        return 0
    return sum(1 for each in _walk(node) if each.is_error or each.is_missing)


def _walk(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def infer_language(source: str) -> str:
    """The grammar that parses the source with the fewest errors (JavaScript before TypeScript
    on a tie, since TypeScript parses all JavaScript; Python first)."""
    encoded = source.encode()
    errors = {
        language: _error_count(_parser(language).parse(encoded).root_node) for language in LANGUAGES
    }
    return min(LANGUAGES, key=lambda language: (errors[language], LANGUAGES.index(language)))


def normalise_language(language: str | None) -> str | None:
    """The supported language a label names ('py', 'JS', 'tsx', ...), or None."""
    if language is None:
        return None
    label = language.strip().lower()
    aliases = {
        "py": "python",
        "python3": "python",
        "js": "javascript",
        "node": "javascript",
        "jsx": "javascript",
        "mjs": "javascript",
        "ts": "typescript",
        "tsx": "typescript",
    }
    label = aliases.get(label, label)
    return label if label in LANGUAGES else None


# --- the lint --------------------------------------------------------------------------


@dataclass
class _Binding:
    kind: str  # solution_module | solution_name | solution_instance | library | stdlib | test
    origin: str  # the module path
    name: str | None = None  # the exported name (solution_name), or the class (instance)


@dataclass
class _Linter:
    source: bytes
    language: str
    contract: BriefingContract
    bindings: dict[str, _Binding] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    seen: set[tuple[str, int, str]] = field(default_factory=set)
    styles: set[str] = field(default_factory=set)
    lines: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = self.source.decode(errors="replace").splitlines()

    # helpers
    def text(self, node: tree_sitter.Node | None) -> str:
        if node is None:
            return ""
        return self.source[node.start_byte : node.end_byte].decode(errors="replace")

    def add(
        self, category: str, node: tree_sitter.Node, message: str, rewrite: str, name: str
    ) -> None:
        line = node.start_point.row + 1
        key = (category, line, message)
        if key in self.seen:
            return
        self.seen.add(key)
        snippet = self.lines[line - 1].strip() if line - 1 < len(self.lines) else ""
        self.findings.append(
            Finding(
                category,
                line,
                snippet[:SNIPPET_CHARS],
                message,
                REWRITES[rewrite].format(name=name),
            )
        )

    def string_value(self, node: tree_sitter.Node | None) -> str | None:
        """The value of a plain string literal (None for anything else, f-strings included)."""
        if node is None:
            return None
        if node.type == "parenthesized_expression" and node.named_child_count == 1:
            return self.string_value(node.named_children[0])
        if node.type not in ("string", "template_string"):
            return None
        parts = []
        for child in node.named_children:
            if child.type in ("interpolation", "template_substitution"):
                return None
            if child.type in ("string_content", "string_fragment", "escape_sequence"):
                parts.append(self.text(child))
        value = "".join(parts)
        return value.encode().decode("unicode_escape", errors="ignore") if "\\" in value else value

    # classification of modules
    def module_kind(self, module: str) -> str:
        if self.language == "python":
            if module.startswith("."):
                return "solution_module"
            top = module.split(".")[0]
            if top in PY_TEST_MODULES:
                return "test"
            if top in sys.stdlib_module_names:
                return "stdlib"
            if top in PY_LIBRARIES:
                return "library"
            return "solution_module"
        if module.startswith((".", "/", "@/", "~/")):
            return "solution_module"
        if module in JS_TEST_MODULES:
            return "test"
        bare = module.removeprefix("node:")
        if module.startswith("node:") or bare in JS_NODE_BUILTINS:
            return "stdlib"
        return "library"

    def library_root(self, module: str) -> str:
        if self.language == "python":
            return module.split(".")[0]
        if module.startswith("@"):
            return "/".join(module.split("/")[:2])
        return module.removeprefix("node:").split("/")[0]

    def bind_module(self, alias: str, module: str, node: tree_sitter.Node) -> None:
        kind = self.module_kind(module)
        self.bindings[alias] = _Binding(kind, module)
        self.note_module(module, kind, node)

    def bind_name(self, alias: str, name: str, module: str, node: tree_sitter.Node) -> None:
        kind = self.module_kind(module)
        if kind == "solution_module":
            self.bindings[alias] = _Binding("solution_name", module, name)
            self.check_solution_name(name, node)
        else:
            self.bindings[alias] = _Binding(kind, module, name)
        self.note_module(module, kind, node)

    def note_module(self, module: str, kind: str, node: tree_sitter.Node) -> None:
        if kind != "solution_module":
            return
        if self.language == "python":
            segments = [part for part in module.lstrip(".").split(".") if part]
        else:
            segments = [part for part in re.split(r"[/\\]", module) if part not in ("", ".", "..")]
        if len(segments) >= 2 and not self.contract.names_path(module.lstrip(".")):
            self.add(
                "implementation_structure",
                node,
                f"imports the internal module {module!r}, a layout the briefing does not specify",
                "import_module",
                module,
            )

    def check_solution_name(self, name: str, node: tree_sitter.Node) -> None:
        if name.startswith("__") and name.endswith("__"):
            return
        if name.startswith(("_", "#")):
            self.add(
                "implementation_structure",
                node,
                f"reads the private member {name!r} of the solution",
                "private",
                name,
            )
            return
        if not self.contract.names_identifier(name):
            self.add(
                "name_expectation",
                node,
                f"expects the solution to define {name!r}, which the briefing does not name",
                "name",
                name,
            )
            self.styles.add("internal_api")
        else:
            self.styles.add("public_api")

    # walking
    def run(self, root: tree_sitter.Node) -> None:
        for node in _walk(root):
            handler = getattr(self, f"visit_{node.type}", None)
            if handler is not None:
                handler(node)
        # Attribute reads are judged after every binding is known.
        for node in _walk(root):
            if node.type in ("attribute", "member_expression"):
                self.visit_member(node)

    # --- Python ---
    def visit_import_statement(self, node: tree_sitter.Node) -> None:
        if self.language != "python":
            self.js_import(node)
            return
        for child in node.named_children:
            if child.type == "dotted_name":
                module = self.text(child)
                self.bind_module(module.split(".")[0], module, node)
            elif child.type == "aliased_import":
                module = self.text(child.child_by_field_name("name"))
                self.bind_module(self.text(child.child_by_field_name("alias")), module, node)

    def visit_import_from_statement(self, node: tree_sitter.Node) -> None:
        module = self.text(node.child_by_field_name("module_name"))
        for child in node.children_by_field_name("name"):
            if child.type == "aliased_import":
                name = self.text(child.child_by_field_name("name"))
                alias = self.text(child.child_by_field_name("alias"))
            else:
                name = alias = self.text(child)
            self.bind_name(alias, name, module, node)
        if self.module_kind(module) == "solution_module" and not node.children_by_field_name(
            "name"
        ):
            self.note_module(module, "solution_module", node)

    def visit_assignment(self, node: tree_sitter.Node) -> None:
        target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        self.bind_instance(target, value)

    def bind_instance(
        self, target: tree_sitter.Node | None, value: tree_sitter.Node | None
    ) -> None:
        """`x = SolutionClass(...)` / `new SolutionClass()`: x's members are the solution's."""
        if target is None or value is None or target.type != "identifier":
            return
        if value.type in ("call", "call_expression", "new_expression"):
            callee = value.child_by_field_name("function") or value.child_by_field_name(
                "constructor"
            )
            resolved = self.resolve(callee)
            if resolved is None:
                return
            binding, name = resolved
            is_class = name[:1].isupper() or value.type == "new_expression"
            if binding.kind.startswith("solution") and is_class:
                self.bindings[self.text(target)] = _Binding(
                    "solution_instance", binding.origin, name
                )
            elif (
                binding.kind == "library"
                and self.language == "python"
                and (name in PY_HTTP_TEST_CLIENTS or name in PY_CLI_RUNNERS)
            ):
                self.styles.add("http_client" if name in PY_HTTP_TEST_CLIENTS else "cli")

    def resolve(self, node: tree_sitter.Node | None) -> tuple[_Binding, str] | None:
        """The binding an expression reads from, and the last name it reads."""
        if node is None:
            return None
        if node.type == "identifier":
            binding = self.bindings.get(self.text(node))
            if binding is None:
                return None
            return binding, binding.name or self.text(node)
        if node.type in ("attribute", "member_expression"):
            base = node.child_by_field_name("object")
            prop = node.child_by_field_name("attribute") or node.child_by_field_name("property")
            inner = self.resolve(base)
            if inner is None:
                return None
            return inner[0], self.text(prop)
        return None

    def visit_member(self, node: tree_sitter.Node) -> None:
        base = node.child_by_field_name("object")
        prop = node.child_by_field_name("attribute") or node.child_by_field_name("property")
        name = self.text(prop)
        if base is None or prop is None:
            return
        if base.type == "identifier":
            base_name = self.text(base)
            binding = self.bindings.get(base_name)
            if binding is not None and binding.kind in ("solution_module", "solution_instance"):
                self.check_solution_name(name, node)
                return
            if (
                binding is not None
                and binding.kind == "solution_name"
                and name not in CALLABLE_MEMBERS
                and not self.is_mock_setup(node)
            ):
                # a static member, attribute or private of an imported function or class
                self.check_solution_name(name, node)
                return
            if (
                binding is None
                and base_name not in ("self", "cls", "this", "super")
                and (
                    name.startswith("_")
                    and not name.startswith("__")
                    or prop.type == "private_property_identifier"
                )
            ):
                self.add(
                    "implementation_structure",
                    node,
                    f"reads the private member {name!r}",
                    "private",
                    name,
                )
        if name in CALL_COUNT_ATTRIBUTES:
            self.check_call_count(node, base, name)

    def is_mock_setup(self, node: tree_sitter.Node) -> bool:
        """True when the member read is the object of a mock call (`fn.mock.calls`)."""
        parent = node.parent
        return (
            parent is not None
            and parent.type in ("attribute", "member_expression")
            and (
                self.text(
                    parent.child_by_field_name("attribute")
                    or parent.child_by_field_name("property")
                )
                in CALL_COUNT_ATTRIBUTES | CALLABLE_MEMBERS
            )
        )

    def check_call_count(self, node: tree_sitter.Node, base: tree_sitter.Node, name: str) -> None:
        spied = self.text(base)
        inner = base
        while inner.type == "call_expression":  # expect(spy).toHaveBeenCalledTimes
            args = inner.child_by_field_name("arguments")
            if args is not None and args.named_child_count:
                inner = args.named_children[0]
                spied = self.text(inner)
            else:
                break
        binding = self.bindings.get(spied.split(".")[0])
        if binding is not None and binding.kind == "mock_internal":
            self.add(
                "implementation_structure",
                node,
                f"counts the calls to the solution's internal {binding.name!r}",
                "call_count",
                binding.name or spied,
            )

    def visit_call(self, node: tree_sitter.Node) -> None:
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        fname = self.text(function)
        last = fname.rsplit(".", 1)[-1]
        arguments = [] if args is None else [a for a in args.named_children]
        positional = [a for a in arguments if a.type != "keyword_argument"]
        keywords = {
            self.text(a.child_by_field_name("name")): a.child_by_field_name("value")
            for a in arguments
            if a.type == "keyword_argument"
        }
        resolved = self.resolve(function)
        if resolved is not None:
            binding, name = resolved
            if binding.kind == "stdlib" and binding.origin.split(".")[0] == "subprocess":
                self.styles.add("cli")
            if binding.kind == "library" and self.library_root(binding.origin) in PY_HTTP_CLIENTS:
                self.styles.add("http_client")
            if binding.kind == "solution_name" and self.contract.names_identifier(
                binding.name or ""
            ):
                self.styles.add("public_api")
            module_root = binding.origin.split(".")[0]
            if (module_root, name) in SOURCE_INTROSPECTION:
                self.add(
                    "implementation_structure",
                    node,
                    f"reads the solution's code through {module_root}.{name}",
                    "read_source",
                    fname,
                )
            if (
                binding.kind == "library"
                and self.language == "python"
                and (name in PY_HTTP_TEST_CLIENTS)
            ):
                self.styles.add("http_client")
            if binding.kind == "library" and name in PY_CLI_RUNNERS:
                self.styles.add("cli")
        if (
            last in ("get", "post", "put", "patch", "delete")
            and function is not None
            and function.type == "attribute"
            and self.text(function.child_by_field_name("object"))
            in ("client", "test_client", "api_client", "http", "session")
        ):
            self.styles.add("http_client")
        if last in ("invoke",) and "runner" in fname.lower():
            self.styles.add("cli")
        # mocks
        if last in ("patch", "setattr", "spy", "stub") or fname.endswith(
            ("patch.object", "patch.dict")
        ):
            self.check_python_mock(node, fname, positional, keywords)
        # exact error message
        if last in ("raises", "assertRaisesRegex", "assertRaisesRegexp", "assertRaises"):
            message = keywords.get("match")
            if message is None and last.startswith("assertRaisesRegex") and len(positional) > 1:
                message = positional[1]
            value = self.string_value(message)
            if value is not None and message is not None:
                self.check_message(message, value)
        if last in EQUALITY_ASSERTIONS and len(positional) >= 2:
            for operand in positional[:2]:
                self.check_formatted(operand, positional)
        # source and layout
        self.check_paths(node, fname, last, positional)
        if last in ("hasattr", "getattr") and len(positional) >= 2:
            self.check_attribute_probe(node, positional)
        if last in ("isinstance", "issubclass") and len(positional) >= 2:
            self.check_instance_of(node, positional[1])

    def check_python_mock(
        self,
        node: tree_sitter.Node,
        fname: str,
        positional: list[tree_sitter.Node],
        keywords: dict[str, tree_sitter.Node | None],
    ) -> None:
        if not positional:
            return
        first = positional[0]
        target = self.string_value(first)
        if target is not None:
            self.judge_mock_path(node, target.split("."))
            return
        if len(positional) >= 2:
            attribute = self.string_value(positional[1])
            resolved = self.resolve(first)
            if attribute is not None and resolved is not None:
                binding, _ = resolved
                self.judge_mock_binding(node, binding, attribute)

    def judge_mock_path(self, node: tree_sitter.Node, segments: list[str]) -> None:
        """A mock target given as a dotted path (Python) or module name (JavaScript)."""
        if not segments or not segments[0]:
            return
        head = segments[0]
        binding = self.bindings.get(head)
        kind = binding.kind if binding is not None else self.module_kind(".".join(segments))
        if binding is not None and binding.kind in ("library", "stdlib"):
            kind = binding.kind
        if kind in ("library", "stdlib") or (binding is None and kind == "stdlib"):
            self.judge_library_mock(node, head, kind)
            return
        if kind in ("solution_module", "solution_name", "solution_instance"):
            rest = segments[1:]
            for index, part in enumerate(rest):
                library_kind = self.module_kind(part) if self.language == "python" else "solution"
                if (
                    library_kind in ("library", "stdlib")
                    and index < len(rest) - 1
                    or (library_kind == "library")
                ):
                    self.judge_library_mock(node, part, library_kind)
                    return
            internal = rest[-1] if rest else head
            self.judge_internal_mock(node, internal)

    def judge_mock_binding(self, node: tree_sitter.Node, binding: _Binding, attribute: str) -> None:
        if binding.kind in ("library", "stdlib"):
            self.judge_library_mock(node, binding.origin, binding.kind)
        elif binding.kind.startswith("solution"):
            self.judge_internal_mock(node, attribute)

    def judge_library_mock(self, node: tree_sitter.Node, library: str, kind: str) -> None:
        root = self.library_root(library)
        environment = (
            PY_ENVIRONMENT_MODULES if self.language == "python" else (JS_ENVIRONMENT_MODULES)
        )
        if kind == "stdlib" and root in environment:
            return
        if self.contract.names_library(root) or self.contract.names_library(library):
            return
        self.add(
            "library_usage",
            node,
            f"mocks the library {root!r}, which the briefing does not require",
            "library_mock",
            root,
        )

    def judge_internal_mock(self, node: tree_sitter.Node, name: str) -> None:
        if self.contract.names_identifier(name) or self.contract.names_library(name):
            return
        self.add(
            "implementation_structure",
            node,
            f"mocks the solution's internal {name!r}",
            "mock_internal",
            name,
        )
        parent = node.parent
        while parent is not None and parent.type not in (
            "with_item",
            "assignment",
            "variable_declarator",
            "decorator",
        ):
            parent = parent.parent
        if parent is not None and parent.type == "with_item":
            alias = parent.named_children[0] if parent.named_children else None
            if alias is not None and alias.type == "as_pattern":
                target = alias.child_by_field_name("alias")
                if target is not None:
                    self.bindings[self.text(target).strip()] = _Binding("mock_internal", "", name)
        elif parent is not None and parent.type in ("assignment", "variable_declarator"):
            target = parent.child_by_field_name("left") or parent.child_by_field_name("name")
            if target is not None:
                self.bindings[self.text(target)] = _Binding("mock_internal", "", name)
        elif parent is not None and parent.type == "decorator":
            self.bind_decorator_mock(parent, name)

    def bind_decorator_mock(self, decorator: tree_sitter.Node, name: str) -> None:
        """`@patch(...)` hands the mock to the test as a parameter: the bottom decorator's
        mock is the first parameter after self."""
        decorated = decorator.parent
        if decorated is None or decorated.type != "decorated_definition":
            return
        decorators = [child for child in decorated.children if child.type == "decorator"]
        below = decorators[decorators.index(decorator) + 1 :]
        position = sum(1 for each in below if "patch" in self.text(each))
        definition = decorated.child_by_field_name("definition")
        parameters = definition.child_by_field_name("parameters") if definition else None
        if parameters is None:
            return
        names = [
            self.text(child)
            for child in parameters.named_children
            if child.type == "identifier" and self.text(child) not in ("self", "cls")
        ]
        if position < len(names):
            self.bindings[names[position]] = _Binding("mock_internal", "", name)

    def check_attribute_probe(
        self, node: tree_sitter.Node, positional: list[tree_sitter.Node]
    ) -> None:
        resolved = self.resolve(positional[0])
        name = self.string_value(positional[1])
        if resolved is None or name is None:
            return
        binding, _ = resolved
        if binding.kind.startswith("solution"):
            self.check_solution_name(name, node)

    def check_instance_of(self, node: tree_sitter.Node, klass: tree_sitter.Node) -> None:
        candidates = klass.named_children if klass.type == "tuple" else [klass]
        for candidate in candidates:
            resolved = self.resolve(candidate)
            if resolved is None:
                continue
            binding, name = resolved
            if binding.kind == "library":
                root = self.library_root(binding.origin)
                if not (self.contract.names_library(root) or self.contract.names_identifier(name)):
                    self.add(
                        "library_usage",
                        node,
                        f"requires a {root}.{name} result, which the briefing does not ask for",
                        "library_assert",
                        root,
                    )

    def check_paths(
        self, node: tree_sitter.Node, fname: str, last: str, positional: list[tree_sitter.Node]
    ) -> None:
        literal = self.string_value(positional[0]) if positional else None
        if literal is None and positional and positional[0].type in ("call", "call_expression"):
            # os.path.join(root, 'app/x'), path.join(__dirname, 'app/x'), Path('app/x')
            joined = positional[0].child_by_field_name("arguments")
            if joined is not None and joined.named_child_count:
                literal = self.string_value(joined.named_children[-1])
        if literal is None and last in PATH_PROBES | SOURCE_READERS:
            # Path('app/page.tsx').exists(): the literal is in the receiver
            function = node.child_by_field_name("function")
            receiver = function.child_by_field_name("object") if function is not None else None
            if receiver is not None and receiver.type in ("call", "call_expression"):
                inner = receiver.child_by_field_name("arguments")
                if inner is not None and inner.named_child_count:
                    literal = self.string_value(inner.named_children[-1])
        if literal is None:
            return
        name = literal.rstrip("/").rsplit("/", 1)[-1]
        if last in SOURCE_READERS:
            if name in DEPENDENCY_MANIFESTS:
                self.add(
                    "library_usage",
                    node,
                    f"reads the dependency list {literal!r}",
                    "library_assert",
                    name,
                )
            elif literal.endswith(CODE_EXTENSIONS):
                self.add(
                    "implementation_structure",
                    node,
                    f"reads the solution's source {literal!r}",
                    "read_source",
                    literal,
                )
            return
        if (
            last in PATH_PROBES
            and not self.contract.names_path(literal.rstrip("/"))
            and not self.contract.states_text(literal)
        ):
            if name in DEPENDENCY_MANIFESTS:
                return
            self.add(
                "implementation_structure",
                node,
                f"checks the file layout {literal!r}",
                "layout",
                literal,
            )

    # --- exact output format ---
    def visit_comparison_operator(self, node: tree_sitter.Node) -> None:
        operators = [self.text(child) for child in node.children if not child.is_named]
        operands = node.named_children
        if "in" in operators or "not in" in operators:
            if len(operands) == 2:
                self.check_membership(node, operands[0], operands[1])
            return
        if not any(op in ("==", "!=") for op in operators):
            return
        for operand in operands:
            self.check_formatted(operand, operands)

    def visit_binary_expression(self, node: tree_sitter.Node) -> None:
        operator = self.text(node.child_by_field_name("operator"))
        if operator not in ("==", "===", "!=", "!=="):
            return
        operands = [node.child_by_field_name("left"), node.child_by_field_name("right")]
        for operand in operands:
            if operand is not None:
                self.check_formatted(operand, [o for o in operands if o is not None])

    def check_membership(
        self, node: tree_sitter.Node, needle: tree_sitter.Node, haystack: tree_sitter.Node
    ) -> None:
        value = self.string_value(needle)
        if value is None:
            return
        haystack_text = self.text(haystack)
        if haystack_text in ("sys.modules",) and not self.contract.names_library(value):
            self.add(
                "library_usage",
                node,
                f"requires the solution to import {value!r}",
                "library_assert",
                value,
            )

    def check_formatted(self, operand: tree_sitter.Node, operands: list[tree_sitter.Node]) -> None:
        value = self.string_value(operand)
        if value is None or self.contract.states_text(value):
            return
        kind = formatted_kind(value)
        if kind is None:
            return
        if any(self.is_parsed(other) for other in operands if other is not operand):
            return
        self.add(
            "exact_output_format",
            operand,
            f"compares with the exact {kind} text {value!r}",
            kind,
            value,
        )

    def is_parsed(self, node: tree_sitter.Node) -> bool:
        """A normalised side (Decimal(x), float(x), parseFloat(x), x.split()) makes a
        formatted literal an input, not an expected format."""
        if node.type not in ("call", "call_expression"):
            return False
        function = self.text(node.child_by_field_name("function")).rsplit(".", 1)[-1]
        return function in (
            "Decimal",
            "float",
            "int",
            "parseFloat",
            "parseInt",
            "Number",
            "split",
            "normalize",
            "normalise",
            "casefold",
            "lower",
            "toLowerCase",
            "fromisoformat",
            "strptime",
            "parse",
            "loads",
            "Date",
        )

    def check_message(self, node: tree_sitter.Node, value: str) -> None:
        if self.contract.states_text(value):
            return
        words = re.findall(r"[A-Za-z]{2,}", value)
        if len(words) >= 2:
            self.add(
                "exact_output_format",
                node,
                f"expects the exact error message {value!r}",
                "wording",
                value,
            )

    # --- JavaScript / TypeScript ---
    def js_import(self, node: tree_sitter.Node) -> None:
        module = self.string_value(node.child_by_field_name("source"))
        if module is None:
            return
        clause = next((c for c in node.named_children if c.type == "import_clause"), None)
        if clause is None:
            self.note_module(module, self.module_kind(module), node)
            return
        for child in clause.named_children:
            if child.type == "identifier":
                # a default import: the test chooses the binding's name
                self.bindings[self.text(child)] = _Binding(self.module_kind(module), module, None)
                self.note_module(module, self.module_kind(module), node)
            elif child.type == "namespace_import":
                alias = child.named_children[-1]
                self.bind_module(self.text(alias), module, node)
            elif child.type == "named_imports":
                for spec in child.named_children:
                    if spec.type != "import_specifier":
                        continue
                    exported = self.text(spec.child_by_field_name("name"))
                    local = self.text(spec.child_by_field_name("alias")) or exported
                    self.bind_name(local, exported, module, node)

    def visit_variable_declarator(self, node: tree_sitter.Node) -> None:
        target = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if target is None or value is None:
            return
        while value.type in ("await_expression",) and value.named_child_count:
            value = value.named_children[0]
        module = self.required_module(value)
        if module is None:
            self.bind_instance(target, value)
            return
        if target.type == "identifier":
            self.bind_module(self.text(target), module, node)
        elif target.type == "object_pattern":
            for child in target.named_children:
                if child.type == "shorthand_property_identifier_pattern":
                    self.bind_name(self.text(child), self.text(child), module, node)
                elif child.type == "pair_pattern":
                    key = self.text(child.child_by_field_name("key"))
                    alias = self.text(child.child_by_field_name("value"))
                    self.bind_name(alias, key, module, node)

    def required_module(self, node: tree_sitter.Node) -> str | None:
        """`require('x')` or `import('x')` (the module), else None."""
        if node.type != "call_expression":
            return None
        function = node.child_by_field_name("function")
        if function is None or self.text(function) not in ("require", "import"):
            return None
        args = node.child_by_field_name("arguments")
        if args is None or not args.named_child_count:
            return None
        return self.string_value(args.named_children[0])

    def visit_call_expression(self, node: tree_sitter.Node) -> None:
        function = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        arguments = [] if args is None else list(args.named_children)
        fname = self.text(function)
        last = fname.rsplit(".", 1)[-1]
        head = fname.split(".")[0]
        resolved = self.resolve(function)
        if resolved is not None:
            binding, name = resolved
            root = self.library_root(binding.origin)
            if binding.kind == "library" and root in JS_HTTP_CLIENTS:
                self.styles.add("http_client")
            if binding.kind in ("stdlib", "library") and root in JS_CLI_MODULES:
                self.styles.add("cli")
            if binding.kind == "solution_name" and self.contract.names_identifier(
                binding.name or ""
            ):
                self.styles.add("public_api")
        if fname == "fetch":
            self.styles.add("http_client")
        if head in JS_MOCKERS and last in ("mock", "doMock", "unstable_mockModule") and arguments:
            module = self.string_value(arguments[0])
            if module is not None:
                kind = self.module_kind(module)
                if kind == "solution_module":
                    stem = re.split(r"[/\\]", module)[-1]
                    self.judge_internal_mock(node, stem)
                elif kind in ("library", "stdlib"):
                    self.judge_library_mock(node, module, kind)
        if (
            last in ("spyOn", "stub", "spy", "replace")
            and head in JS_MOCKERS
            and len(arguments) >= 2
        ):
            attribute = self.string_value(arguments[1])
            target = self.resolve(arguments[0])
            if attribute is not None and target is not None:
                self.judge_mock_binding(node, target[0], attribute)
        if last == "toHaveProperty" and arguments and function is not None:
            subject = self.expect_subject(function)
            probed = self.string_value(arguments[0])
            target = self.resolve(subject) if subject is not None else None
            if probed is not None and target is not None and target[0].kind.startswith("solution"):
                self.check_solution_name(probed.split(".")[0], node)
        if last in EQUALITY_ASSERTIONS and function is not None:
            subject = self.expect_subject(function)
            candidates = arguments[:1] + ([subject] if subject is not None else [])
            if head in ("assert",) or fname.startswith("assert."):
                candidates = arguments[:2]
            for operand in candidates:
                self.check_formatted(operand, candidates)
        if last in MESSAGE_ASSERTIONS and arguments:
            message_node = arguments[-1] if head == "assert" else arguments[0]
            value = self.string_value(message_node)
            if value is not None:
                self.check_message(message_node, value)
        if last in ("toBeInstanceOf",) and arguments:
            self.check_instance_of(node, arguments[0])
        self.check_paths(node, fname, last, arguments)
        if last in (
            "exec",
            "execSync",
            "spawn",
            "spawnSync",
            "execFile",
            "execFileSync",
            "execa",
            "fork",
        ):
            self.styles.add("cli")
        if last in ("get", "post", "put", "patch", "delete") and head in (
            "request",
            "supertest",
            "agent",
            "client",
            "api",
        ):
            self.styles.add("http_client")

    def expect_subject(self, function: tree_sitter.Node) -> tree_sitter.Node | None:
        """The x of `expect(x).toBe(...)` (through `.not`, `.resolves`)."""
        inner = function.child_by_field_name("object")
        while inner is not None and inner.type == "member_expression":
            inner = inner.child_by_field_name("object")
        if inner is None or inner.type != "call_expression":
            return None
        if self.text(inner.child_by_field_name("function")) != "expect":
            return None
        args = inner.child_by_field_name("arguments")
        if args is None or not args.named_child_count:
            return None
        return args.named_children[0]

    def visit_new_expression(self, node: tree_sitter.Node) -> None:
        constructor = node.child_by_field_name("constructor")
        resolved = self.resolve(constructor)
        if resolved is not None and resolved[0].kind == "solution_name":
            self.check_solution_name(resolved[0].name or "", node)


_CURRENCY = re.compile(
    r"[$€£¥₹]\s?\d|\d\s?[$€£¥₹]|\b(?:USD|EUR|GBP|JPY)\s?\d|\d\s?(?:USD|EUR|GBP|JPY)\b"
)
_GROUPED = re.compile(r"\d{1,3}(?:[,.'  ]\d{3})+(?:[.,]\d+)?")
_FIXED_DECIMALS = re.compile(r"\d+[.,]\d{2,}\b|\d+(?:\.\d+)?\s?%")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}\b")
_PADDING = re.compile(r"^\s+\S|\S\s+$|\S {2,}\S|\t|\b0\d+\b")


def formatted_kind(value: str) -> str | None:
    """What formatting an expected string fixes (currency, number, date, padding, wording),
    or None for a plain token (a key, a word, a bare number)."""
    body = value.rstrip("\n")
    if _CURRENCY.search(body):
        return "currency"
    if _DATE.search(body):
        return "date"
    if _GROUPED.search(body) or _FIXED_DECIMALS.search(body):
        return "number"
    if body and _PADDING.search(body):
        return "padding"
    if len(re.findall(r"[A-Za-z]{2,}", body)) >= 3:
        return "wording"
    return None


def lint_test_code(
    test_code: str | None, language: str | None, briefing_text: str | None
) -> LintResult:
    """Lint one test's source against its challenge's briefing."""
    if test_code is None or not test_code.strip():
        return LintResult("no_code", "test_code is NULL or blank", None, False, None)
    resolved = normalise_language(language)
    if language is not None and resolved is None:
        return LintResult(
            "unsupported_language",
            f"language {language!r} is not python, javascript or typescript",
            None,
            False,
            None,
        )
    inferred = resolved is None
    chosen = resolved if resolved is not None else infer_language(test_code)
    tree = _parser(chosen).parse(test_code.encode())
    linter = _Linter(test_code.encode(), chosen, briefing_contract(briefing_text))
    linter.run(tree.root_node)
    findings = tuple(sorted(linter.findings, key=lambda f: (f.line, f.category, f.message)))
    status, reason = "ok", None
    if tree.root_node.has_error:
        status, reason = "partial_parse", "the parser recovered from syntax errors"
    return LintResult(status, reason, chosen, inferred, interface_style(linter.styles), findings)


def interface_style(styles: set[str]) -> str:
    """The test's interface, the first that applies: an HTTP client, a command line, names
    the briefing does not give (internal), the public API the briefing names, unknown."""
    for style in INTERFACE_STYLES:
        if style in styles:
            return style
    return "unknown"


# --- the command line: a challenge folder, before any attempt exists ---------------------

BRIEFING_FILES = ("briefing.md", "BRIEFING.md", "briefing.txt", "README.md", "readme.md")
SKIPPED_FOLDERS = frozenset(
    {"node_modules", ".git", ".venv", "venv", "__pycache__", "dist", "build", ".next"}
)
_TEST_FILE = re.compile(
    r"^(?:test_.*\.py|.*_test\.py|.*\.(?:test|spec)\.(?:js|jsx|ts|tsx|mjs|cjs|mts|cts))$"
)
_TEST_FOLDERS = frozenset({"tests", "test", "__tests__", "spec"})
_EXTENSION_LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
}


class UsageError(Exception):
    """A command-line input the lint cannot use (said in one sentence)."""


def challenge_test_files(folder: Path) -> list[Path]:
    """The test files of a challenge folder: test_*.py, *_test.py, *.test.* and *.spec.* in
    the three languages, and every source file under a tests/, test/, __tests__/ or spec/
    folder (dependencies and build output skipped)."""
    found = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part in SKIPPED_FOLDERS for part in relative.parts[:-1]) or not path.is_file():
            continue
        if path.suffix not in _EXTENSION_LANGUAGES:
            continue
        in_test_folder = any(part in _TEST_FOLDERS for part in relative.parts[:-1])
        if _TEST_FILE.match(path.name) or (in_test_folder and path.name != "conftest.py"):
            found.append(path)
    return found


def lint_challenge_folder(
    folder: Path, briefing: Path | None = None
) -> list[tuple[Path, LintResult]]:
    """Lint every test file of a challenge folder against its briefing (briefing.md,
    briefing.txt or README.md, unless one is given)."""
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder")
    if briefing is None:
        briefing = next(
            (folder / name for name in BRIEFING_FILES if (folder / name).is_file()), None
        )
        if briefing is None:
            raise UsageError(
                f"{folder} has no briefing ({', '.join(BRIEFING_FILES[:4])}); "
                "pass one with --briefing"
            )
    try:
        briefing_text = briefing.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read the briefing {briefing}: {error}") from error
    files = challenge_test_files(folder)
    if not files:
        raise UsageError(f"{folder} has no test file (test_*.py, *.test.js, *.spec.ts, tests/...)")
    results = []
    for path in files:
        try:
            source = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read the test file {path}: {error}") from error
        results.append(
            (path, lint_test_code(source, _EXTENSION_LANGUAGES[path.suffix], briefing_text))
        )
    return results


class _OneSentenceParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (usage: {self.prog} FOLDER... [--briefing FILE])")


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m challenge_fairness.test_code_lint FOLDER... [--briefing FILE].
    Prints file:line: category: message for each finding; exit 1 on findings, 0 when clean,
    2 when the folder, its briefing or its tests cannot be read."""
    parser = _OneSentenceParser(
        prog="python -m challenge_fairness.test_code_lint",
        description="Lint a challenge's tests for checks of the implementation rather than "
        "the behaviour (names, exact output formats, code layout, library choices).",
    )
    parser.add_argument(
        "folders", type=Path, nargs="+", help="challenge folders (each: a briefing and tests)"
    )
    parser.add_argument(
        "--briefing", type=Path, help="the briefing file (default: found in each folder)"
    )
    parser.add_argument(
        "--quiet", action="store_true", help="print findings only, not the per-file summary"
    )
    try:
        args = parser.parse_args(argv)
        results = [
            each for folder in args.folders for each in lint_challenge_folder(folder, args.briefing)
        ]
    except UsageError as error:
        print(f"challenge_fairness.test_code_lint: {error}.", file=sys.stderr)
        return 2
    findings = 0
    for path, result in results:
        for finding in result.findings:
            findings += 1
            print(
                f"{path}:{finding.line}: {finding.category}: {finding.message} "
                f"(rewrite: {finding.suggested_rewrite})"
            )
        if not args.quiet:
            note = f"; {result.reason}" if result.reason else ""
            print(
                f"{path}: {len(result.findings)} finding(s), interface {result.interface_style}"
                f"{note}",
                file=sys.stderr,
            )
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())

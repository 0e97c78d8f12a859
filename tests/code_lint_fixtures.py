# ruff: noqa: E501  (the fixtures are test code in three languages, kept as written)
"""Test-code lint fixtures: Python, JavaScript and TypeScript tests with known findings.

Each line that should give a finding ends with a marker comment, `# expect: <category>` or
`// expect: <category>` (several categories separated by commas). A fixture without markers
is a negative: it must give no finding. `style` is the interface style the lint must report.
The expected findings are read from the markers by `expected_findings`, independently of
the lint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class LintFixture:
    name: str
    language: str | None  # None: the lint infers it
    briefing: str
    code: str
    style: str
    hard_negative: bool = False


def expected_findings(fixture: LintFixture) -> set[tuple[str, int]]:
    """(category, line) pairs the fixture's markers announce."""
    expected: set[tuple[str, int]] = set()
    for number, line in enumerate(fixture.code.splitlines(), start=1):
        marker = re.search(r"(?:#|//) expect: ([a-z_, ]+)$", line)
        if marker:
            for category in marker.group(1).split(","):
                expected.add((category.strip(), number))
    return expected


PRICE_BRIEFING = (
    "Write `format_total(cents)` in `solution.py`: it returns the order total for the "
    "amount in cents as a string in US dollars."
)
PRICE_BRIEFING_JS = (
    "Export `formatTotal(cents)` from `solution.js`: it returns the order total for the "
    "amount in cents as a string in US dollars."
)
RATES_BRIEFING = (
    "Write `convert(amount, currency)` in `solution.py`. It fetches the rate from the "
    "exchange-rate service through `fetch_rate(currency)`, which tests may stub."
)
HTTP_BRIEFING = (
    'Build a JSON API: `POST /items` with a body `{"name": ...}` creates an item and '
    "answers 201 with the item and its `id`; `GET /items/{id}` returns it. The server is "
    "started for the tests on BASE_URL."
)
CLI_BRIEFING = (
    "Write a command line tool `wc.py` that prints the number of words of the file it is given."
)
CART_BRIEFING = (
    "Implement a class `Cart` with methods `add(sku, price)` and `total()` in `cart.py` "
    "(`cart.js` for JavaScript, `cart.ts` for TypeScript)."
)
PAGE_BRIEFING = "Build a Next.js page that shows the list of products at `/products`."
PAY_BRIEFING = (
    "Charge the card with the Stripe API (the `stripe` package) in `charge(amount)` of "
    "`solution.py` / `solution.js`; it returns the charge id."
)

FIXTURES: tuple[LintFixture, ...] = (
    # ---------------------------------------------------------------- Python positives
    LintFixture(
        "py_name_expectation",
        "python",
        PRICE_BRIEFING,
        """from solution import format_total, cents_to_dollars  # expect: name_expectation
import solution


def test_total():
    assert cents_to_dollars(150) == 1.5
    assert solution.round_half_up(2.5) == 3  # expect: name_expectation
    assert hasattr(solution, "TAX_RATE")  # expect: name_expectation
""",
        "internal_api",
    ),
    LintFixture(
        "py_exact_output_format",
        "python",
        PRICE_BRIEFING,
        """import pytest
from solution import format_total


def test_total():
    assert format_total(123456) == "$1,234.56"  # expect: exact_output_format
    assert format_total(5) == "   $0.05"  # expect: exact_output_format


def test_negative():
    with pytest.raises(ValueError, match="Amount must be a positive integer"):  # expect: exact_output_format
        format_total(-1)
""",
        "public_api",
    ),
    LintFixture(
        "py_implementation_structure",
        "python",
        PRICE_BRIEFING,
        """import inspect
import os
from unittest.mock import patch

import solution
from solution import format_total


def test_structure():
    source = inspect.getsource(solution)  # expect: implementation_structure
    assert "for " not in source
    assert os.path.isdir("app/utils")  # expect: implementation_structure
    with patch("solution._to_dollars") as converter:  # expect: implementation_structure
        format_total(1)
    assert converter.call_count == 1  # expect: implementation_structure
    assert format_total._cache == {}  # expect: implementation_structure
""",
        "public_api",
    ),
    LintFixture(
        "py_library_usage",
        "python",
        PRICE_BRIEFING,
        """import sys
from unittest.mock import patch

import pandas as pd
from solution import format_total


def test_uses_decimal_library():
    with patch("solution.babel.numbers.format_currency") as fmt:  # expect: library_usage
        format_total(1)
    assert "numpy" in sys.modules  # expect: library_usage
    assert isinstance(format_total(1), pd.Series)  # expect: library_usage
    deps = open("requirements.txt").read()  # expect: library_usage
""",
        "public_api",
    ),
    LintFixture(
        "py_cart_methods",
        "python",
        CART_BRIEFING,
        """from cart import Cart


def test_cart():
    cart = Cart()
    cart.add("pen", 150)
    cart.apply_discount(10)  # expect: name_expectation
    assert cart.total() == 135
    assert cart.items == {"pen": 150}  # expect: name_expectation
""",
        "internal_api",
    ),
    # ---------------------------------------------------------------- Python negatives
    LintFixture(
        "py_negative_briefing_names",
        "python",
        CART_BRIEFING,
        """from cart import Cart


def test_total_of_two_items():
    cart = Cart()
    cart.add("pen", 150)
    cart.add("ink", 250)
    assert cart.total() == 400
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "py_negative_parsed_amount",
        "python",
        PRICE_BRIEFING,
        """from decimal import Decimal

from solution import format_total


def test_total_is_the_amount():
    text = format_total(123456)
    assert Decimal(text.strip().lstrip("$").replace(",", "")) == Decimal("1234.56")
    assert Decimal("1234.56") == Decimal(text.strip().lstrip("$").replace(",", ""))
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "py_negative_http_json",
        "python",
        HTTP_BRIEFING,
        """import os

import requests

BASE_URL = os.environ["BASE_URL"]


def test_create_and_read():
    created = requests.post(f"{BASE_URL}/items", json={"name": "pen"})
    assert created.status_code == 201
    item = created.json()
    assert item["name"] == "pen"
    fetched = requests.get(f"{BASE_URL}/items/{item['id']}")
    assert fetched.json() == item
""",
        "http_client",
        hard_negative=True,
    ),
    LintFixture(
        "py_negative_briefed_service_mock",
        "python",
        RATES_BRIEFING,
        """from unittest.mock import patch

from solution import convert


def test_convert_uses_the_rate():
    with patch("solution.fetch_rate", return_value=2.0):
        assert convert(10, "EUR") == 20.0
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "py_negative_cli",
        "python",
        CLI_BRIEFING,
        """import subprocess
import sys


def test_counts_words(tmp_path):
    text = tmp_path / "in.txt"
    text.write_text("one two three")
    result = subprocess.run([sys.executable, "wc.py", str(text)], capture_output=True, text=True)
    assert int(result.stdout.split()[0]) == 3
""",
        "cli",
        hard_negative=True,
    ),
    LintFixture(
        "py_negative_briefed_library",
        "python",
        PAY_BRIEFING,
        """from unittest.mock import patch

from solution import charge


def test_charge_returns_the_id():
    with patch("solution.stripe.Charge.create", return_value={"id": "ch_1"}):
        assert charge(500) == "ch_1"
""",
        "public_api",
        hard_negative=True,
    ),
    # ------------------------------------------------------------ JavaScript positives
    LintFixture(
        "js_name_expectation",
        "javascript",
        PRICE_BRIEFING_JS,
        """const { formatTotal, centsToDollars } = require('./solution'); // expect: name_expectation
const solution = require('./solution');

test('total', () => {
  expect(centsToDollars(150)).toBe(1.5);
  expect(solution.roundHalfUp(2.5)).toBe(3); // expect: name_expectation
  expect(solution).toHaveProperty('TAX_RATE'); // expect: name_expectation
});
""",
        "internal_api",
    ),
    LintFixture(
        "js_exact_output_format",
        "javascript",
        PRICE_BRIEFING_JS,
        """const { formatTotal } = require('./solution');

test('total', () => {
  expect(formatTotal(123456)).toBe('$1,234.56'); // expect: exact_output_format
  expect(formatTotal(5)).toEqual('   $0.05'); // expect: exact_output_format
  expect(() => formatTotal(-1)).toThrow('Amount must be a positive integer'); // expect: exact_output_format
});
""",
        "public_api",
    ),
    LintFixture(
        "js_implementation_structure",
        "javascript",
        PAGE_BRIEFING,
        """const fs = require('fs');
const path = require('path');

test('uses the app router', () => {
  expect(fs.existsSync(path.join(__dirname, 'app/products/page.js'))).toBe(true); // expect: implementation_structure
  expect(fs.existsSync('app/products/page.js')).toBe(true); // expect: implementation_structure
  const source = fs.readFileSync('pages/products.js', 'utf8'); // expect: implementation_structure
  expect(source).toContain('getServerSideProps');
});
""",
        "unknown",
    ),
    LintFixture(
        "js_library_usage",
        "javascript",
        PRICE_BRIEFING_JS,
        """const axios = require('axios');
const { formatTotal } = require('./solution');
jest.mock('lodash'); // expect: library_usage

test('total', () => {
  const spy = jest.spyOn(axios, 'get'); // expect: library_usage
  formatTotal(1);
  const pkg = require('fs').readFileSync('package.json', 'utf8'); // expect: library_usage
});
""",
        "public_api",
    ),
    LintFixture(
        "js_internal_mock",
        "javascript",
        PRICE_BRIEFING_JS,
        """const solution = require('./solution');
jest.mock('./rounding'); // expect: implementation_structure

test('rounds once', () => {
  const spy = jest.spyOn(solution, 'roundCents'); // expect: implementation_structure
  solution.formatTotal(1);
  expect(spy).toHaveBeenCalledTimes(1); // expect: implementation_structure
  expect(solution._cache.size).toBe(1); // expect: implementation_structure
});
""",
        "public_api",
    ),
    # ------------------------------------------------------------ JavaScript negatives
    LintFixture(
        "js_negative_http_json",
        "javascript",
        HTTP_BRIEFING,
        """const request = require('supertest');
const BASE_URL = process.env.BASE_URL;

test('creates an item', async () => {
  const created = await request(BASE_URL).post('/items').send({ name: 'pen' });
  expect(created.status).toBe(201);
  expect(created.body.name).toBe('pen');
  const fetched = await request(BASE_URL).get(`/items/${created.body.id}`);
  expect(fetched.body).toEqual(created.body);
});
""",
        "http_client",
        hard_negative=True,
    ),
    LintFixture(
        "js_negative_parsed_amount",
        "javascript",
        PRICE_BRIEFING_JS,
        """const { formatTotal } = require('./solution');

test('total is the amount', () => {
  const text = formatTotal(123456);
  expect(Number(text.trim().replace(/[$,]/g, ''))).toBeCloseTo(1234.56);
  expect(parseFloat(text.replace(/[^0-9.]/g, ''))).toBe(1234.56);
});
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "js_negative_briefed_service_mock",
        "javascript",
        PAY_BRIEFING,
        """jest.mock('stripe');
const { charge } = require('./solution');

test('returns the charge id', async () => {
  expect(await charge(500)).toBeDefined();
});
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "js_negative_cli",
        "javascript",
        CLI_BRIEFING,
        """const { execFileSync } = require('child_process');

test('counts words', () => {
  const out = execFileSync('python', ['wc.py', 'fixtures/three.txt']).toString();
  expect(Number(out.trim().split(/\\s+/)[0])).toBe(3);
});
""",
        "cli",
        hard_negative=True,
    ),
    # ------------------------------------------------------------ TypeScript positives
    LintFixture(
        "ts_name_expectation",
        "typescript",
        CART_BRIEFING,
        """import { Cart, LineItem } from './cart'; // expect: name_expectation
import * as cartModule from './cart';

describe('cart', () => {
  it('totals', () => {
    const cart: Cart = new Cart();
    cart.add('pen', 150);
    cart.applyDiscount(10); // expect: name_expectation
    expect(cartModule.defaultCurrency).toBe('USD'); // expect: name_expectation
    expect(cart.total()).toBe(135);
  });
});
""",
        "internal_api",
    ),
    LintFixture(
        "ts_exact_output_format",
        "typescript",
        CART_BRIEFING,
        """import { Cart } from './cart';

it('prints a receipt', () => {
  const cart = new Cart();
  cart.add('pen', 150);
  expect(cart.total().toString()).toBe('Total:   1.50'); // expect: exact_output_format
  expect(() => cart.add('pen', -1)).toThrowError('Price must not be negative'); // expect: exact_output_format
  expect(new Date(2026, 0, 5).toLocaleDateString()).not.toBe('2026-01-05'); // expect: exact_output_format
});
""",
        "public_api",
    ),
    LintFixture(
        "ts_implementation_structure",
        "typescript",
        PAGE_BRIEFING,
        """import { existsSync, readFileSync } from 'fs';
import { getProducts } from '../lib/data/products'; // expect: implementation_structure, name_expectation

it('keeps the layout', () => {
  expect(existsSync('app/products/page.tsx')).toBe(true); // expect: implementation_structure
  const source: string = readFileSync('app/products/page.tsx', 'utf8'); // expect: implementation_structure
  expect(source).toMatch(/use client/);
  expect(getProducts).toBeDefined();
});
""",
        "internal_api",
    ),
    LintFixture(
        "ts_library_usage",
        "typescript",
        CART_BRIEFING,
        """import { vi } from 'vitest';
import Decimal from 'decimal.js';
import dayjs from 'dayjs';
import { Cart } from './cart';

vi.mock('big.js'); // expect: library_usage

it('uses decimal.js', () => {
  const cart = new Cart();
  cart.add('pen', 150);
  expect(cart.total()).toBeInstanceOf(Decimal); // expect: library_usage
  vi.spyOn(dayjs, 'extend'); // expect: library_usage
});
""",
        "public_api",
    ),
    # ------------------------------------------------------------ TypeScript negatives
    LintFixture(
        "ts_negative_briefing_names",
        "typescript",
        CART_BRIEFING,
        """import { Cart } from './cart';

describe('Cart', () => {
  it('adds prices', () => {
    const cart = new Cart();
    cart.add('pen', 150);
    cart.add('ink', 250);
    expect(cart.total()).toBe(400);
  });
});
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "ts_negative_http_json",
        None,
        HTTP_BRIEFING,
        """import request from 'supertest';

const BASE_URL: string = process.env.BASE_URL ?? 'http://localhost:3000';

it('creates an item', async () => {
  const response = await request(BASE_URL).post('/items').send({ name: 'pen' });
  expect(response.status).toBe(201);
  expect(response.body).toMatchObject({ name: 'pen' });
});
""",
        "http_client",
        hard_negative=True,
    ),
    LintFixture(
        "ts_negative_briefed_service_mock",
        "typescript",
        PAY_BRIEFING,
        """import { vi } from 'vitest';
import Stripe from 'stripe';
import { charge } from './solution';

vi.mock('stripe');

it('returns the charge id', async () => {
  vi.spyOn(Stripe.prototype, 'charges', 'get');
  expect(await charge(500)).toBeTypeOf('string');
});
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "ts_negative_parsed_amount",
        "typescript",
        PRICE_BRIEFING_JS,
        """import { formatTotal } from './solution';

it('is the amount', () => {
  const text: string = formatTotal(123456);
  expect(Number.parseFloat(text.replace(/[^0-9.]/g, ''))).toBeCloseTo(1234.56);
});
""",
        "public_api",
        hard_negative=True,
    ),
)


# Written after the lint was committed, in idioms the fixtures above do not use, to measure
# the lint on test code it was not tuned to (docs/detectors.md reports the first pass: two
# misses, then fixed, and one marker corrected: a spy on an internal is a finding).
TODO_BRIEFING = (
    "Write a todo list module `todo.py` (`todo.js`, `todo.ts`) exporting `add_task(title)` "
    "(`addTask`), `complete(task_id)` and `pending()` which returns the titles not yet done."
)
REPORT_BRIEFING = (
    "Write `report(rows)` that returns a text table of the rows; the CLI `report.py` reads "
    "a CSV file given as its argument and prints the table."
)
HELD_OUT: tuple[LintFixture, ...] = (
    LintFixture(
        "py_held_todo_internal",
        "python",
        TODO_BRIEFING,
        """import unittest
from unittest import mock

import todo


class TodoTest(unittest.TestCase):
    def setUp(self):
        todo._TASKS.clear()  # expect: implementation_structure

    def test_pending(self):
        todo.add_task("buy milk")
        self.assertEqual(todo.pending(), ["buy milk"])

    def test_storage(self):
        todo.add_task("x")
        self.assertEqual(len(todo.TASK_STORE), 1)  # expect: name_expectation

    @mock.patch("todo.save_to_disk")  # expect: implementation_structure
    def test_saves(self, save):
        todo.add_task("y")
        save.assert_called_once()  # expect: implementation_structure

    def test_message(self):
        with self.assertRaisesRegex(ValueError, "Title cannot be empty"):  # expect: exact_output_format
            todo.add_task("")
""",
        "internal_api",
    ),
    LintFixture(
        "py_held_report_cli",
        "python",
        REPORT_BRIEFING,
        """import subprocess
import sys
from pathlib import Path


def test_prints_table(tmp_path):
    data = tmp_path / "rows.csv"
    data.write_text("name,qty\\npen,2\\n")
    out = subprocess.check_output([sys.executable, "report.py", str(data)], text=True)
    assert out == "name | qty\\n-----+----\\npen  |   2\\n"  # expect: exact_output_format
    assert Path("report/formatting.py").exists()  # expect: implementation_structure
""",
        "cli",
    ),
    LintFixture(
        "py_held_report_negative",
        "python",
        REPORT_BRIEFING,
        """from report import report


def test_every_row_is_in_the_table():
    table = report([{"name": "pen", "qty": 2}, {"name": "ink", "qty": 10}])
    lines = [line for line in table.splitlines() if "pen" in line or "ink" in line]
    assert len(lines) == 2
    cells = [[cell.strip() for cell in line.split("|")] for line in lines]
    assert ["pen", "2"] in cells and ["ink", "10"] in cells
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "py_held_fastapi_negative",
        "python",
        'Expose a FastAPI `app` in `main.py` with `GET /health` returning `{"status": "ok"}`.',
        """from fastapi.testclient import TestClient

from main import app

client = TestClient(app)


def test_health():
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
""",
        "http_client",
        hard_negative=True,
    ),
    LintFixture(
        "py_held_library",
        "python",
        TODO_BRIEFING,
        """import json
from unittest.mock import patch

import todo


def test_uses_sqlite():
    with patch("sqlite3.connect") as connect:  # expect: library_usage
        todo.add_task("a")
    assert json.loads(todo.export()) == ["a"]  # expect: name_expectation
""",
        "internal_api",
    ),
    LintFixture(
        "js_held_todo",
        "javascript",
        TODO_BRIEFING,
        """import { addTask, complete, pending, resetStore } from '../src/todo.js'; // expect: implementation_structure, name_expectation
import sinon from 'sinon';
import * as storage from '../src/storage.js'; // expect: implementation_structure

describe('todo', () => {
  beforeEach(() => resetStore());
  it('lists pending titles', () => {
    const id = addTask('buy milk');
    complete(id);
    expect(pending()).toEqual([]);
  });
  it('persists', () => {
    const save = sinon.stub(storage, 'save'); // expect: implementation_structure
    addTask('x');
    expect(save.calledOnce).toBe(true); // expect: implementation_structure
  });
  it('rejects an empty title', () => {
    expect(() => addTask('')).toThrow(/empty/);
  });
});
""",
        "internal_api",
    ),
    LintFixture(
        "js_held_http_negative",
        "javascript",
        HTTP_BRIEFING,
        """const assert = require('node:assert/strict');
const { test } = require('node:test');

test('creates an item', async () => {
  const res = await fetch(`${process.env.BASE_URL}/items`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'pen' }),
  });
  assert.equal(res.status, 201);
  const body = await res.json();
  assert.equal(body.name, 'pen');
  assert.ok(body.id);
});
""",
        "http_client",
        hard_negative=True,
    ),
    LintFixture(
        "js_held_format",
        "javascript",
        REPORT_BRIEFING,
        """const assert = require('assert');
const { report } = require('./report');
const moment = require('moment');

it('formats', () => {
  assert.strictEqual(report([{ name: 'pen', qty: 2 }]), 'name | qty\\npen  |   2'); // expect: exact_output_format
  assert.ok(moment.isMoment(report.generatedAt)); // expect: name_expectation
});
""",
        "internal_api",
    ),
    LintFixture(
        "ts_held_todo",
        "typescript",
        TODO_BRIEFING,
        """import { describe, expect, it, vi } from 'vitest';
import { addTask, pending } from './todo';
import { TodoRepository } from './todo/repository'; // expect: implementation_structure, name_expectation

describe('todo', () => {
  it('keeps order', () => {
    addTask('a');
    addTask('b');
    expect(pending()).toStrictEqual(['a', 'b']);
  });
  it('uses the repository', () => {
    const spy = vi.spyOn(TodoRepository.prototype, 'insert'); // expect: implementation_structure
    addTask('c');
    expect(spy).toHaveBeenCalledTimes(1); // expect: implementation_structure
  });
});
""",
        "internal_api",
    ),
    LintFixture(
        "ts_held_negative",
        "typescript",
        TODO_BRIEFING,
        """import { addTask, complete, pending } from './todo';

test('completed tasks leave the pending list', () => {
  const first: number = addTask('a');
  addTask('b');
  complete(first);
  expect(pending()).toEqual(['b']);
  expect(pending().length).toBe(1);
});
""",
        "public_api",
        hard_negative=True,
    ),
    LintFixture(
        "ts_held_library",
        "typescript",
        TODO_BRIEFING,
        """import axios from 'axios';
import { addTask } from './todo';

jest.mock('axios'); // expect: library_usage
const mocked = axios as jest.Mocked<typeof axios>;

test('syncs', async () => {
  mocked.post.mockResolvedValue({ data: {} });
  await addTask('a');
  expect(mocked.post).toHaveBeenCalledWith('/sync', { title: 'a' });
  expect(await addTask('')).toBe('Error: title is required'); // expect: exact_output_format
});
""",
        "public_api",
    ),
)

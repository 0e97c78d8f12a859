"""Headless Chromium with the network cut off: load a local HTML file, record what it asked for.

Drives Debian's /usr/bin/chromium through the `playwright` package (never `playwright
install`); CHALLENGE_FAIRNESS_CHROMIUM overrides the path. Every request other than the page
itself is recorded and aborted, and the browser context is offline.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("CHALLENGE_FAIRNESS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXTERNAL_REFERENCE = re.compile(
    r"""(?:\b(?:src|href|srcset|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//)"""
    r"""|(?:url\(\s*["']?\s*(?:https?:)?//)"""
    r"""|(?:@import\s+["']\s*(?:https?:)?//)""",
    re.IGNORECASE,
)


@dataclass
class RenderedPage:
    """What the offline browser saw."""

    requests: list[tuple[str, str]] = field(default_factory=list)  # (resource type, url)
    console_errors: list[str] = field(default_factory=list)
    plots: list[dict[str, Any]] = field(default_factory=list)
    tables: dict[str, int] = field(default_factory=dict)  # data-table name -> body rows
    missing_marts: list[str] = field(default_factory=list)
    section_errors: list[str] = field(default_factory=list)
    text: str = ""
    screenshot: bytes = b""
    first_screen: bytes = b""  # the 1280 x 900 viewport as a reader first sees it
    sections: list[str] = field(default_factory=list)  # data-section keys, in page order
    boxes: dict[str, dict[str, float]] = field(default_factory=dict)  # selector -> box
    first_screen_text: str = ""  # text of the elements that start in the first viewport
    height: float = 0.0


FIRST_SCREEN_TEXT = """
height => Array.from(document.querySelectorAll('h1, h2, p, li, caption, th, td'))
    .filter(element => {
        const box = element.getBoundingClientRect();
        return box.height > 0 && box.top + window.scrollY < height;
    })
    .map(element => element.innerText)
    .join(String.fromCharCode(10))
"""


def external_references(text: str) -> list[str]:
    """Attributes, CSS url()s and @imports anywhere in `text` (scripts included) that point
    at a network address: the strict check, for pages without scripts."""
    return [match.group(0) for match in EXTERNAL_REFERENCE.finditer(text)]


RESOURCE_ATTRIBUTES = {
    "script": ("src",),
    "link": ("href",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "image": ("href", "xlink:href"),
    "use": ("href", "xlink:href"),
    "input": ("src",),
}
NETWORK_ADDRESS = re.compile(r"^\s*(?:https?:)?//", re.IGNORECASE)
CSS_NETWORK_ADDRESS = re.compile(
    r"""url\(\s*["']?\s*(?:https?:)?//|@import\s+["']\s*(?:https?:)?//""", re.IGNORECASE
)


class _ResourceParser(HTMLParser):
    """Collects the resources the markup (not its scripts) would load from the network."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in RESOURCE_ATTRIBUTES.get(tag, ()) and NETWORK_ADDRESS.search(value):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name == "style" and CSS_NETWORK_ADDRESS.search(value):
                self.found.append(f"<{tag} style={value!r}>")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found.extend(match.group(0) for match in CSS_NETWORK_ADDRESS.finditer(data))


def markup_resource_references(text: str) -> list[str]:
    """Network resources the HTML markup and its style sheets load (script bodies aside)."""
    parser = _ResourceParser()
    parser.feed(text)
    parser.close()
    return parser.found


def require_chromium() -> None:
    """Fail (not skip) with a clear message when Chromium is missing."""
    if not Path(CHROMIUM).exists():
        raise AssertionError(
            f"Chromium not found at {CHROMIUM}: install Debian's package "
            "(apt-get install -y --no-install-recommends chromium), as .ci/run does"
        )


def render_offline(
    page_path: Path,
    wait_for_text: str | None = None,
    fragment: str = "",
    timeout_ms: float = 60_000,
    boxes: tuple[str, ...] = (),
) -> RenderedPage:
    """Open `page_path` (plus a `#fragment`) in offline headless Chromium and wait until
    `wait_for_text` is visible; collect requests, errors, plots, tables and a screenshot."""
    from playwright.sync_api import sync_playwright

    require_chromium()
    page_url = page_path.resolve().as_uri()
    seen = RenderedPage()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})

            def block(route: Any) -> None:
                if route.request.url == page_url:
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", block)
            page = context.new_page()
            page.on(
                "request",
                lambda request: (
                    None
                    if request.url == page_url
                    else seen.requests.append((request.resource_type, request.url))
                ),
            )
            page.on(
                "console",
                lambda message: (
                    seen.console_errors.append(message.text) if message.type == "error" else None
                ),
            )
            page.on("pageerror", lambda error: seen.console_errors.append(str(error)))
            page.goto(page_url + fragment, wait_until="load", timeout=timeout_ms)
            if wait_for_text is not None:
                page.wait_for_function(
                    "text => document.body.innerText.includes(text)",
                    arg=wait_for_text,
                    timeout=timeout_ms,
                )
            page.wait_for_load_state("networkidle", timeout=timeout_ms)
            for element in page.locator("[data-plot]").all():
                box = element.bounding_box() or {"width": 0, "height": 0}
                svg = element.locator("svg")
                svg_box = (svg.first.bounding_box() if svg.count() else None) or {
                    "width": 0,
                    "height": 0,
                }
                seen.plots.append(
                    {
                        "kind": element.get_attribute("data-plot"),
                        "challenge_id": element.get_attribute("data-challenge-id"),
                        "template_id": element.get_attribute("data-template-id"),
                        "width": box["width"],
                        "height": box["height"],
                        "svg_width": svg_box["width"],
                        "svg_height": svg_box["height"],
                        "svg_shapes": svg.first.locator("path, rect, text, use").count()
                        if svg.count()
                        else 0,
                        "visible": element.is_visible(),
                    }
                )
            for table in page.locator("table[data-table]").all():
                name = str(table.get_attribute("data-table"))
                seen.tables[name] = seen.tables.get(name, 0) + table.locator("tbody tr").count()
            seen.missing_marts = [
                str(element.get_attribute("data-missing-mart"))
                for element in page.locator("[data-missing-mart]").all()
                if element.is_visible()
            ]
            seen.section_errors = [
                element.inner_text() for element in page.locator("[data-section-error]").all()
            ]
            seen.text = page.inner_text("body")
            seen.sections = [
                str(element.get_attribute("data-section"))
                for element in page.locator("[data-section]").all()
            ]
            for selector in boxes:
                located = page.locator(selector)
                if located.count():
                    seen.boxes[selector] = located.first.bounding_box() or {}
            viewport_height = 900
            seen.first_screen_text = page.evaluate(FIRST_SCREEN_TEXT, viewport_height)
            seen.height = float(page.evaluate("document.documentElement.scrollHeight"))
            seen.first_screen = page.screenshot(full_page=False)
            seen.screenshot = page.screenshot(full_page=True)
        finally:
            browser.close()
    return seen


def screenshot_colours(png: bytes) -> tuple[int, float]:
    """Distinct colours in the screenshot (sampled) and the share of non-white pixels."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.thumbnail((400, 4000))
    pixels = list(image.getdata())
    non_white = sum(1 for pixel in pixels if pixel != (255, 255, 255))
    return len(set(pixels)), non_white / max(1, len(pixels))

"""Each action's fields: the `tabs` tool's input, one pydantic model per action.

A call names its browser (or leaves it to the one running), the tab by its global 1-based
index, and what it does there; `prepare` fills in what the approver sees (`approved`,
`affects`). Limits on what is read and written are here too."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, Field

from tools.browser.effect.model import Effect, Mode
from tools.data import Data
from tools.mac.action_table import ActionInput, LookedUp
from tools.mac.osa.text import clip, quote
from tools.mac.tabs.addresses import MAX_URL, normalize_url

Browser = Literal["safari", "chrome"]
BROWSER_APPS: dict[str, str] = {"safari": "Safari", "chrome": "Google Chrome"}

MAX_TABS = 500
MAX_TITLE = 300
MAX_TEXT = 10_000
MAX_LINKS = 500
MAX_LINK_TEXT = 200
MAX_CODE = 20_000
MAX_FILL = 10_000
CLICK_SETTLE_MS = 1_500  # how long a click's page is watched for a late change


class TabRef(Data):
    """A tab as it was when looked up before the approval sheet."""

    index: int
    title: str
    url: str


def _indices(value: list[int]) -> list[int]:
    if any(index < 1 for index in value) or len(set(value)) != len(value):
        raise ValueError("indices are distinct global indices from 1")
    return value


def _web_address(value: str) -> str:
    url = normalize_url(value)
    if url is None:
        raise ValueError("open_url takes an http or https address")
    return url


TabIndex = Annotated[int, Field(ge=1, le=10_000)]


# --- each action's fields ------------------------------------------------------------------


class TabsInput(ActionInput):
    """Input of the `tabs` tool: `action` plus the fields that action uses (its row's model)."""

    browser: Browser | None = Field(
        None, description="safari or chrome; default the one running (needed when both run)."
    )
    # Filled by `TabsTool.prepare` only: the tabs the call affects, as the approver sees them.
    approved: LookedUp[list[TabRef]] = None

    @property
    def settled(self) -> str:
        """The browser, once `TabsTool.perform` has settled which one."""
        if self.browser is None:
            raise ValueError("no browser chosen")
        return self.browser

    @property
    def browser_app(self) -> str:
        return BROWSER_APPS[self.browser] if self.browser else "Safari or Chrome"

    @property
    def where(self) -> str:
        return BROWSER_APPS[self.browser] if self.browser else "the browser"


class ListTabs(TabsInput):
    """list_tabs takes only the browser."""


class OpenUrl(TabsInput):
    # Normalized when validated: "chatgpt" becomes "https://chatgpt.com".
    url: Annotated[str, Field(max_length=MAX_URL), AfterValidator(_web_address)] = Field(
        description="the address"
    )


class CloseTab(TabsInput):
    indices: Annotated[list[int], Field(max_length=200), AfterValidator(_indices)] = Field(
        description="global indices from list_tabs"
    )

    @property
    def tabs_to_close(self) -> str:
        count = len(self.indices)
        noun = "tab" if count == 1 else "tabs"
        if self.approved:
            titles = ", ".join(quote(tab.title, 50) for tab in self.approved[:10])
            more = f" (+{count - 10} more)" if count > 10 else ""
            return f"{count} {self.where} {noun}: {titles}{more}"
        return f"{self.where} {noun} {', '.join(map(str, self.indices))}"

    def payload(self) -> dict[str, Any]:
        expect = [tab.url for tab in self.approved] if self.approved else None
        return {"browser": self.browser, "indices": self.indices, "expect_urls": expect}


class OnATab(TabsInput):
    """An action on one tab: the one at `index`, or the front window's current tab."""

    index: TabIndex | None = Field(
        None, description="the tab (default the front window's current tab)"
    )

    @property
    def page(self) -> str:
        if self.approved:
            return f"{quote(self.approved[0].title)} ({clip(self.approved[0].url, 100)})"
        return f"tab {self.index}" if self.index else "the current tab"

    @property
    def page_url(self) -> str:
        return self.approved[0].url if self.approved else self.browser_app

    @property
    def expect_url(self) -> str | None:
        return self.approved[0].url if self.approved else None


class SwitchTab(OnATab):
    index: TabIndex = Field(description="the tab's global index from list_tabs")

    def payload(self) -> dict[str, Any]:
        return {"browser": self.browser, "index": self.index, "expect_url": self.expect_url}


class OnAPage(OnATab):
    """An action in a tab's page: a constant page function (`op`) applied to JSON data."""

    op: ClassVar[str] = "info"

    def args(self) -> dict[str, Any]:
        return {}

    def payload(self) -> dict[str, Any]:
        return {
            "browser": self.browser,
            "index": self.approved[0].index if self.approved else self.index,
            "expect_url": self.expect_url,
            "op": self.op,
            "args": self.args(),
            "code": None,
        }


class Screenshot(OnATab):
    def payload(self) -> dict[str, Any]:
        return {
            "browser": self.browser,
            "index": self.approved[0].index if self.approved else self.index,
            "expect_url": self.expect_url,
            "max_chars": MAX_URL,
        }


class GetText(OnAPage):
    op: ClassVar[str] = "text"

    def args(self) -> dict[str, Any]:
        return {"max_chars": MAX_TEXT}


class GetLinks(OnAPage):
    op: ClassVar[str] = "links"
    max_links: int = Field(100, ge=1, le=MAX_LINKS, description="how many at most")

    def args(self) -> dict[str, Any]:
        return {"max_links": self.max_links, "max_text": MAX_LINK_TEXT, "max_href": MAX_URL}


class Click(OnAPage):
    op: ClassVar[str] = "click"
    mode: ClassVar[Mode] = "click"
    selector: Annotated[str, Field(max_length=1_000)] = Field(
        description="a CSS selector of one element"
    )
    # What the selector named when looked at before the sheet: the risk is judged from it.
    affects: LookedUp[Effect] = None

    def args(self) -> dict[str, Any]:
        return {"selector": self.selector}

    def payload(self) -> dict[str, Any]:
        return {**super().payload(), "settle_ms": CLICK_SETTLE_MS}


class Fill(Click):
    op: ClassVar[str] = "fill"
    mode: ClassVar[Mode] = "fill"
    text: Annotated[str, Field(max_length=MAX_FILL)] = Field(description="the text to type")

    def args(self) -> dict[str, Any]:
        # One more than a fill holds, to see a field that holds more than was typed.
        return {"selector": self.selector, "text": self.text, "max_value": MAX_FILL + 1}


class RunJs(OnAPage):
    op: ClassVar[str] = "run_js"
    code: Annotated[str, Field(max_length=MAX_CODE)] = Field(
        description="JavaScript run in the page as is; its last expression's value comes back "
        "(as JSON)"
    )

    def payload(self) -> dict[str, Any]:
        return {**super().payload(), "code": self.code}

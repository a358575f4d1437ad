"""Risk from the effect, without a browser: risk levels, approval-sheet lines, weighty words, and
what an effect means."""

from __future__ import annotations

import pytest

from tools.browser.effect.risk import (
    UNKNOWN_REASON,
    browser_risk,
    browser_summary,
    effect_summary,
    judge,
    judge_effects,
)
from tools.browser.effect.target import Effect
from tools.weighty import weighty

LABELS = {"ref_1": "Sign in", "ref_2": "Place order", "ref_3": "Email"}
REF = {"type": "ref", "ref": "ref_1"}


@pytest.mark.parametrize(
    ("member", "input", "level"),
    [
        ("screenshot", {}, "read"),
        ("read_page", {"filter": "interactive"}, "read"),
        ("find", {"query": "x"}, "read"),
        ("get_page_text", {}, "read"),
        (
            "scroll",
            {"scroll_direction": "down", "target": {"type": "coordinate", "x": 1, "y": 1}},
            "read",
        ),
        ("new_tab", {}, "read"),
        ("switch_tab", {"tab_id": "tab_2"}, "read"),
        ("navigate", {"url": "example.com"}, "change"),
        ("navigate", {"url": "back"}, "change"),
        ("close_tab", {"tab_id": "tab_2"}, "change"),
        ("left_click", {"target": REF}, "change"),
        ("type", {"text": "hi"}, "change"),
        ("key", {"text": "ctrl+a"}, "change"),
        ("form_input", {"target": {"type": "ref", "ref": "ref_3"}, "value": "a@b.c"}, "change"),
        ("left_click_drag", {}, "change"),
        ("left_click", {"target": {"type": "ref", "ref": "ref_2"}}, "consequential"),
        ("javascript_exec", {"text": "1"}, "consequential"),
        ("file_upload", {"paths": ["/x"]}, "consequential"),
        ("made_up", {}, "consequential"),
    ],
)
def test_risk_levels(member: str, input: dict, level: str) -> None:
    risk, reason = browser_risk(member, input, ref_label=LABELS.get)
    assert risk == level and reason


def test_summaries_name_the_element_and_the_site() -> None:
    url = "https://accounts.example.com/login?next=/"
    assert browser_summary("left_click", {"target": REF}, url, ref_label=LABELS.get) == (
        "Click 'Sign in' on accounts.example.com"
    )
    assert (
        browser_summary("left_click", {"target": {"type": "coordinate", "x": 5, "y": 9}}, url)
        == "Click at (5, 9) on accounts.example.com"
    )
    assert browser_summary("navigate", {"url": "example.org/a"}, url) == "Open example.org/a"
    assert browser_summary("navigate", {"url": "back"}, url) == "Go back"
    assert (
        browser_summary(
            "form_input",
            {"target": {"type": "ref", "ref": "ref_3"}, "value": True},
            None,
            ref_label=LABELS.get,
        )
        == "Check 'Email'"
    )
    assert browser_summary(
        "file_upload", {"paths": ["/u/a.pdf", "/u/b.png"], "target": REF}, url
    ).startswith("Upload a.pdf, b.png to")
    assert (
        browser_summary("javascript_exec", {"text": "x"}, url)
        == "Run JavaScript on accounts.example.com"
    )


def test_summary_escapes_invisible_characters() -> None:
    line = browser_summary("type", {"text": "pay\u202eevil\n"}, None)
    assert "\u202e" not in line and "\n" not in line
    assert "\\u202e" in line and "\\n" in line


@pytest.mark.parametrize(
    ("words", "kind"),
    [
        ("Buy now", "buy"),
        ("Place order", "buy"),
        ("Jetzt kaufen", "buy"),
        ("Zahlungspflichtig bestellen", "buy"),
        ("Acheter", "buy"),
        ("Réserver", "buy"),
        ("Comprar ahora", "buy"),
        ("Acquista ora", "buy"),
        ("Finalizar compra", "buy"),
        ("Afrekenen", "buy"),
        ("購入", "buy"),
        ("注文を確定する", "buy"),
        ("立即购买", "buy"),
        ("ＢＵＹ ＮＯＷ", "buy"),
        ("Send", "send"),
        ("Absenden", "send"),
        ("Envoyer", "send"),
        ("送信", "send"),
        ("发送", "send"),
        ("Delete account", "delete"),
        ("Löschen", "delete"),
        ("Supprimer", "delete"),
        ("Verwijderen", "delete"),
        ("削除", "delete"),
        ("刪除", "delete"),
        ("Transfer funds", "transfer"),
        ("Überweisen", "transfer"),
        ("Virement", "transfer"),
        ("振込", "transfer"),
        ("转账", "transfer"),
        ("Subscribe", "subscribe"),
        ("Abonnieren", "subscribe"),
        ("S’abonner", "subscribe"),
        ("Suscríbete", "subscribe"),
        ("订阅", "subscribe"),
        ("Confirm", "confirm"),
        ("Bestätigen", "confirm"),
        ("Confermare", "confirm"),
        ("Bevestigen", "confirm"),
        ("确认", "confirm"),
        ("Next", None),
        ("Weiter", None),
        ("Suivant", None),
        ("Weiter einkaufen", None),
        ("Sign in", None),
        ("Add to cart", None),
        ("Order history", None),
        ("Payment methods", None),
        ("Blog post", None),
        ("Search", None),
    ],
)
def test_weighty_words_in_several_languages(words: str, kind: str | None) -> None:
    assert weighty(words) == kind


def effect(**fields: object) -> Effect:
    base: dict[str, object] = {
        "action": "activate",
        "tag": "button",
        "role": "button",
        "name": "Continue",
        "activates": True,
        "interactive": True,
    }
    return Effect.model_validate({**base, **fields})


def test_judging_an_effect() -> None:
    assert judge(None) == ("consequential", UNKNOWN_REASON)
    assert judge(effect())[0] == "change"
    assert judge(effect(name="Buy now"))[0] == "consequential"
    assert judge(effect(name="", words="Jetzt kaufen"))[0] == "consequential"
    posts = {"submits": True, "form_method": "post"}
    to_order = judge(effect(**posts, form_action="https://shop.example/checkout/place-order"))
    assert to_order[0] == "consequential"
    next_step = judge(effect(**posts, form_action="https://shop.example/step/2"))
    assert next_step == ("change", "Acts on 'Continue' (button), which sends a form to the site")
    # Typing is a change wherever it goes (the driver refuses password fields itself).
    assert judge(effect(action="type", tag="input", role="textbox", name="Pay"))[0] == "change"
    password = judge(effect(action="type", tag="input", role="textbox", password=True))
    assert password[0] == "change" and "refuses" in password[1]
    # Setting a toggle named for a weighty act is that act; a text field's name is not.
    checkbox = effect(action="fill", tag="input", role="checkbox", name="Subscribe to news")
    assert judge(checkbox)[0] == "consequential"
    assert judge(effect(action="fill", tag="input", role="textbox", name="Delete reason"))[0] == (
        "change"
    )
    # A paragraph that happens to mention paying is not a control.
    prose = "You can pay later. " * 10
    assert judge(effect(tag="p", role="paragraph", name="", words=prose, interactive=False))[0] == (
        "change"
    )
    assert judge_effects("left_click", [effect(), effect(name="Delete")])[0] == "consequential"
    assert judge_effects("key", [])[0] == "change"
    assert judge_effects("screenshot", [None])[0] == "read"


def test_summaries_name_what_will_be_affected() -> None:
    buy = effect(name="Buy now")
    point = {"target": {"type": "coordinate", "x": 5, "y": 9}}
    assert effect_summary("left_click", point, "https://shop.example/cart", {0: buy}) == (
        "Click 'Buy now' (button) on shop.example"
    )
    assert effect_summary("left_click", point, "https://shop.example/", {0: None}) == (
        "Click at (5, 9) on shop.example"
    )
    keyed = effect_summary("key", {"text": "Tab Return"}, "https://shop.example/", {1: buy})
    assert keyed == "Press Tab Return, which activates 'Buy now' (button) on shop.example"
    field = effect(action="type", tag="input", role="textbox", name="Email", activates=False)
    typed = effect_summary("type", {"text": "a@b.c"}, None, {0: field})
    assert typed == "Type 'a@b.c' into 'Email' (textbox)"

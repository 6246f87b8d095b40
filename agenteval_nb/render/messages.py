"""Chat messages, and a final response shown next to the expected one with a word diff."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from markupsafe import Markup

from ..schema import Message
from .text import html, join, text

MAX_DIFF_CELLS = 4_000_000
"""Above ``len(expected_tokens) * len(actual_tokens)`` the word diff is skipped."""

_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")


def message_body(message: Message | None) -> Markup:
    """The content of a message: text, content parts, tool calls and reasoning (collapsed)."""
    if message is None:
        return Markup('<span class="ae-note">(none)</span>')
    parts: list[Markup] = []
    if message.content:
        parts.append(html('<div class="ae-pre">{}</div>', text(message.content)))
    for part in message.content_parts or ():
        if part.text:
            parts.append(html('<div class="ae-pre">{}</div>', text(part.text)))
        else:
            parts.append(html('<span class="ae-note">[{} part]</span>', text(part.type)))
    for call in message.tool_calls or ():
        parts.append(
            html(
                '<div>tool call <code>{}</code> <span class="ae-pre">{}</span></div>',
                text(call.function.name),
                text(call.function.arguments),
            )
        )
    if message.reasoning_content:
        parts.append(
            html(
                '<details><summary>reasoning</summary><div class="ae-pre">{}</div></details>',
                text(message.reasoning_content),
            )
        )
    if not parts:
        parts.append(Markup('<span class="ae-note">(empty)</span>'))
    return join(parts)


def message_block(message: Message | None, label: str | None = None) -> Markup:
    """One message with its role (or ``label``) above the body."""
    role = label or (message.role if message is not None else "") or "message"
    extra = Markup("")
    if message is not None and (message.tool_name or message.tool_id):
        extra = html(
            ' <span class="ae-muted">{} {}</span>', text(message.tool_name), text(message.tool_id)
        )
    return html(
        '<div class="ae-msg"><div class="ae-msg-role">{}{}</div>{}</div>',
        text(role),
        extra,
        message_body(message),
    )


def messages_section(
    user: Message | None,
    context: Sequence[Message] = (),
    intermediate: Sequence[Message] = (),
    *,
    user_label: str = "user",
) -> Markup:
    """The user's message, preceded by the context messages (collapsed when more than three);
    ``user_label`` says who spoke (``user (simulated)`` for a simulated user's turn)."""
    out: list[Markup] = []
    if context:
        blocks = join(message_block(m) for m in context)
        summary = html("<summary>context messages ({})</summary>", len(context))
        opened = " open" if len(context) <= 3 else ""
        out.append(html("<details{}>{}{}</details>", Markup(opened), summary, blocks))
    out.append(message_block(user, user_label))
    if intermediate:
        blocks = join(message_block(m) for m in intermediate)
        out.append(
            html(
                "<details><summary>intermediate responses ({})</summary>{}</details>",
                len(intermediate),
                blocks,
            )
        )
    return join(out)


def _text_of(message: Message | None) -> str:
    if message is None:
        return ""
    if message.content:
        return message.content
    return "\n".join(p.text for p in message.content_parts or () if p.text)


def word_diff(expected: str, actual: str) -> tuple[Markup, Markup]:
    """Both texts as HTML, words only in ``expected`` in ``<del>``, only in ``actual`` in ``<ins>``.

    Large texts (more than :data:`MAX_DIFF_CELLS` token pairs) are shown without marks.
    """
    a = _TOKEN.findall(expected)
    b = _TOKEN.findall(actual)
    if len(a) * len(b) > MAX_DIFF_CELLS:
        return text(expected), text(actual)
    left: list[Markup] = []
    right: list[Markup] = []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        exp_part = "".join(a[i1:i2])
        act_part = "".join(b[j1:j2])
        if tag == "equal":
            left.append(text(exp_part, limit=0))
            right.append(text(act_part, limit=0))
            continue
        if exp_part:
            left.append(html("<del>{}</del>", text(exp_part, limit=0)))
        if act_part:
            right.append(html("<ins>{}</ins>", text(act_part, limit=0)))
    return join(left), join(right)


def final_response_section(actual: Message | None, expected: Message | None) -> Markup:
    """Expected and actual final responses side by side, differences marked word by word."""
    if actual is None and expected is None:
        return Markup('<span class="ae-note">no final response on either side</span>')
    exp_text, act_text = _text_of(expected), _text_of(actual)
    if expected is None:
        left = Markup('<span class="ae-note">(no expected response)</span>')
        right = message_body(actual)
    elif max(len(exp_text), len(act_text)) > 50_000 or exp_text == act_text:
        left, right = message_body(expected), message_body(actual)
    else:
        exp_html, act_html = word_diff(exp_text, act_text)
        left = html('<div class="ae-pre">{}</div>', exp_html)
        right = html('<div class="ae-pre">{}</div>', act_html)
    same = (
        Markup(' <span class="ae-muted">(identical)</span>')
        if expected is not None and actual is not None and exp_text == act_text
        else Markup("")
    )
    return html(
        '<div class="ae-side"><div class="ae-pane"><h4>expected{}</h4>{}</div>'
        '<div class="ae-pane"><h4>actual</h4>{}</div></div>',
        same,
        left,
        right,
    )

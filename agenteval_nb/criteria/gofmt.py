"""Go-compatible rendering used in mismatch texts.

* :func:`go_value` is Go's ``%v`` of a decoded JSON value: ``<nil>``, ``true``, strings as is,
  numbers as float64 (``2``, ``0.5``, ``1e+06``), ``map[a:1 b:[x y]]`` with sorted keys,
  ``[a b]`` for arrays.
* :func:`go_float` is ``%v`` of a float64 (``%g`` with shortest digits): exponent form when the
  decimal exponent is < -4 or >= 6 (``1e+06``, ``1e-05``, ``123456``); JSON's 1e21 rule does
  not apply to ``%v``.
* :func:`go_lower` is ``strings.ToLower``: per-character simple lowercase (``İ`` → ``i``, no
  final-sigma rule).
* :func:`go_quote` is ``%q`` of a string.
"""

from __future__ import annotations

import json
import math
from typing import Any


def shortest_digits(x: float) -> tuple[str, int]:
    """Shortest round-trip digits of ``abs(x) > 0`` and the decimal point position.

    ``x == 0.d1d2... * 10**dp``; e.g. 1234.5 → ("12345", 4), 0.001 → ("1", -2).
    """
    text = repr(abs(x))
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    point = len(whole) + exponent
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0") or "0", point


def exponent_form(sign: str, digits: str, point: int, min_width: int = 2) -> str:
    """``d.ddde±XX`` of :func:`shortest_digits` output; the exponent has ``min_width`` digits."""
    exponent = point - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    exp_sign = "-" if exponent < 0 else "+"
    return f"{sign}{mantissa}e{exp_sign}{abs(exponent):0{min_width}d}"


def positional_form(sign: str, digits: str, point: int) -> str:
    """Plain decimal notation of :func:`shortest_digits` output (no exponent)."""
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"


def go_float(x: float) -> str:
    """``fmt.Sprint(float64)``: shortest digits; exponent form when exp < -4 or exp >= 6."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+Inf" if x > 0 else "-Inf"
    if x == 0:
        return "-0" if math.copysign(1.0, x) < 0 else "0"
    digits, point = shortest_digits(x)
    sign = "-" if x < 0 else ""
    exponent = point - 1
    if exponent < -4 or exponent >= 6:
        return exponent_form(sign, digits, point)
    return positional_form(sign, digits, point)


def go_value(value: Any) -> str:
    """Go ``%v`` of a JSON-like value (numbers rendered as float64)."""
    if value is None:
        return "<nil>"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, int):
        try:
            return go_float(float(value))
        except OverflowError:
            return str(value)
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: str(kv[0]))
        return "map[" + " ".join(f"{go_value(k)}:{go_value(v)}" for k, v in items) + "]"
    if isinstance(value, list | tuple):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    return str(value)


_SPECIAL_LOWER = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})


def go_lower(text: str) -> str:
    """``strings.ToLower``: like ``str.lower`` but ``İ`` → ``i`` and ``Σ`` → ``σ`` always."""
    if text.isascii():
        return text.lower()
    return text.translate(_SPECIAL_LOWER).lower()


def go_quote(text: str) -> str:
    """``%q`` of a string (double-quoted, Go escapes; close to JSON for printable text)."""
    return json.dumps(text, ensure_ascii=False)

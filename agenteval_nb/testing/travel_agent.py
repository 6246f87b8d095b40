"""The offline travel-assistant demo agent: two Python tools and the scripted model that drives
them (**not an LLM**), used by ``make demo``, notebook 06 and the tests.

* Tools: ``get_weather(city)`` (a fixed table) and ``convert_currency(amount, from_currency,
  to_currency)`` (fixed rates); unknown inputs raise, as real tools do.
* Model: :class:`~agenteval_nb.testing.agent_model.ScriptedAgentModel` with one rule per tool
  (keywords ``weather``/``forecast``/``temperature`` and ``convert``/``exchange``), canned
  answers for a few travel questions, and ``error_rate`` mistakes drawn per request from the
  session id the agent sends as ``user`` — so repeated runs differ (pass@k has something to
  show) while a fixed session-id sequence reproduces them exactly.
* :func:`travel_agent` builds the ``OpenAIAgent`` for a base URL; :func:`expected_turn` gives the
  answer a faultless run produces (what the demo eval set expects).
"""

from __future__ import annotations

import re
from typing import Any

from ..agents.openai_agent import OpenAIAgent
from ..agents.tools import error_text
from .agent_model import SCRIPTED_AGENT_MODEL, ScriptedAgentModel, ToolRule

WEATHER: dict[str, tuple[str, int]] = {
    "Paris": ("partly cloudy", 18),
    "Tokyo": ("clear", 24),
    "London": ("light rain", 12),
    "Madrid": ("sunny", 27),
    "Oslo": ("snow", -3),
}
"""Cities with a weather station; any other city makes ``get_weather`` raise."""
RATES_TO_USD: dict[str, float] = {"USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067}

SYSTEM_PROMPT = (
    "You are a travel assistant. Use get_weather for weather questions and convert_currency "
    "for money conversions; answer in one sentence."
)


def get_weather(city: str) -> dict[str, Any]:
    """Current weather of a city: condition and temperature in °C."""
    if city not in WEATHER:
        raise KeyError(f"no weather station for {city!r}")
    condition, temp_c = WEATHER[city]
    return {"city": city, "condition": condition, "temp_c": temp_c}


def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    """Convert an amount of money between currencies (USD, EUR, GBP, JPY)."""
    for code in (from_currency, to_currency):
        if code not in RATES_TO_USD:
            raise ValueError(f"unknown currency {code!r}")
    value = amount * RATES_TO_USD[from_currency] / RATES_TO_USD[to_currency]
    return {"amount": round(value, 2), "currency": to_currency}


FLIGHTS: dict[tuple[str, str], tuple[str, str]] = {
    ("Paris", "Oslo"): ("SK832", "07:40"),
    ("Oslo", "Paris"): ("AF1275", "18:05"),
    ("London", "Madrid"): ("IB3167", "09:15"),
}
HOTELS: dict[str, str] = {"Oslo": "Fjord Inn", "Madrid": "Casa Sol", "Paris": "Hôtel du Parc"}


def search_flights(origin: str, destination: str, date: str) -> dict[str, Any]:
    """Find the morning flight between two cities on a date (YYYY-MM-DD)."""
    if (origin, destination) not in FLIGHTS:
        raise LookupError(f"no flight from {origin} to {destination}")
    flight, departs = FLIGHTS[(origin, destination)]
    return {"flight": flight, "date": date, "departs": departs}


def book_hotel(city: str, nights: int) -> dict[str, Any]:
    """Book the partner hotel of a city for a number of nights."""
    if city not in HOTELS:
        raise LookupError(f"no partner hotel in {city}")
    return {
        "hotel": HOTELS[city],
        "nights": nights,
        "confirmation": f"{city[:3].upper()}-{nights}0",
    }


TOOLS = (get_weather, convert_currency)
BOOKING_TOOLS = (search_flights, book_hotel)

_CONVERSION = re.compile(
    r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<from_currency>[A-Z]{3})\s+(?:to|in|into)\s+"
    r"(?P<to_currency>[A-Z]{3})"
)


def _conversion_arguments(text: str) -> dict[str, Any]:
    found = _CONVERSION.search(text)
    if found is None:
        return {}
    args: dict[str, Any] = found.groupdict()
    args["amount"] = float(args["amount"])
    return args


WEATHER_RULE = ToolRule(
    tool="get_weather",
    keywords=("weather", "forecast", "temperature"),
    arguments=r"in (?P<city>[A-Z][a-z]+)",
    say="Let me check the weather.",
    answer="It is {result[condition]} and {result[temp_c]} °C in {result[city]}.",
    guess="It is probably sunny there.",
)
CURRENCY_RULE = ToolRule(
    tool="convert_currency",
    keywords=("convert", "exchange"),
    arguments=_conversion_arguments,
    answer="{arguments[amount]:g} {arguments[from_currency]} is {result[amount]:g} "
    "{result[currency]}.",
    guess="That is roughly the same amount.",
)
FLIGHT_RULE = ToolRule(
    tool="search_flights",
    keywords=("flight", "fly"),
    arguments=r"from (?P<origin>[A-Z][a-z]+) to (?P<destination>[A-Z][a-z]+) on "
    r"(?P<date>\d{4}-\d{2}-\d{2})",
    answer="Flight {result[flight]} leaves {arguments[origin]} at {result[departs]} on "
    "{result[date]}.",
    guess="There is a flight in the morning.",
)
_STAY = re.compile(r"in (?P<city>[A-Z][a-z]+) for (?P<nights>\d+) nights?")


def _stay_arguments(text: str) -> dict[str, Any]:
    found = _STAY.search(text)
    if found is None:
        return {}
    return {"city": found["city"], "nights": int(found["nights"])}


HOTEL_RULE = ToolRule(
    tool="book_hotel",
    keywords=("hotel", "stay"),
    arguments=_stay_arguments,
    answer="Booked {result[hotel]} in {arguments[city]} for {arguments[nights]} nights, "
    "confirmation {result[confirmation]}.",
    guess="The hotel is booked.",
)
ANSWERS = {
    "passport": "Check that your passport is valid for six months beyond your return date.",
    "luggage": "Most airlines allow one cabin bag of up to 8 kg.",
    "visa": "Check the embassy website of your destination for visa rules.",
    "thank": "You are welcome, have a good trip!",
}
FALLBACK = "I can help with weather, currency conversion and travel documents."


def travel_model(error_rate: float = 0.25, *, parallel: bool = True) -> ScriptedAgentModel:
    """The scripted model of the travel assistant (not an LLM): weather, currency, flight and
    hotel rules (each used only when the agent offers that tool)."""
    return ScriptedAgentModel(
        [WEATHER_RULE, CURRENCY_RULE, FLIGHT_RULE, HOTEL_RULE],
        answers=ANSWERS,
        fallback=FALLBACK,
        error_rate=error_rate,
        parallel=parallel,
        salt="travel-demo",
    )


def travel_agent(
    base_url: str, *, model: str = SCRIPTED_AGENT_MODEL, **options: Any
) -> OpenAIAgent:
    """The demo agent: ``OpenAIAgent`` with the two tools, pointed at ``base_url``."""
    return OpenAIAgent(
        model,
        tools=list(TOOLS),
        system_prompt=SYSTEM_PROMPT,
        base_url=base_url,
        name=f"travel assistant on {model}",
        **options,
    )


def expected_turn(question: str) -> tuple[list[dict[str, Any]], str]:
    """Expected tool calls ``[{name, arguments, result}]`` and final answer of a faultless run."""
    calls: list[dict[str, Any]] = []
    answers: list[str] = []
    for rule, tool in ((WEATHER_RULE, get_weather), (CURRENCY_RULE, convert_currency)):
        if not rule.matches(question):
            continue
        arguments = rule.arguments_for(question)
        try:
            result = tool(**arguments)
        except Exception as exc:  # the agent sees the error text and apologises
            text = error_text(exc)
            calls.append({"name": rule.tool, "arguments": arguments, "result": text})
            answers.append(f"Sorry, I could not complete {rule.tool}: {text}.")
            continue
        calls.append({"name": rule.tool, "arguments": arguments, "result": result})
        answers.append(rule.answer.format(result=result, arguments=arguments, tool=rule.tool))  # type: ignore[union-attr]
    if answers:
        return calls, " ".join(answers)
    lowered = question.lower()
    for keyword, text in ANSWERS.items():
        if re.search(r"(?<!\w)" + re.escape(keyword), lowered):
            return [], text
    return [], FALLBACK

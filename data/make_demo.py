#!/usr/bin/env python3
"""Write the SYNTHETIC demo eval sets and metrics of the ``demo_assistant`` app.

Nothing here was recorded from a real agent. The script invents a small tool-using assistant
(tools ``get_weather(city, unit)``, ``calculator(expression)`` and ``knowledge_search(query)``),
writes the expected turns of every case, and derives the "recorded" turns of three runs from them,
injecting on purpose the defects listed in ``CASES`` (``runs`` maps a run number to what goes
wrong in it). Everything random (ids, timestamps, retrieval scores, observation times, the
wording of search queries) comes from string-seeded ``random.Random`` instances, so the output is
identical on every run and on every machine.

Usage::

    python data/make_demo.py               # (re)writes data/demo/
    python data/make_demo.py --out DIR     # writes DIR/demo_assistant/...

Files are encoded the way the Go framework's local managers write them: two-space indent,
trailing newline, ``<``, ``>`` and ``&`` escaped as ``\\u003c`` ``\\u003e`` ``\\u0026``, map keys
(tool arguments and results, session state) sorted, integral floats written without ``.0``.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SEED = "agenteval_nb-demo-v1"
APP = "demo_assistant"
NUM_RUNS = 3
CASES_CREATED_AT = 1772323200  # 2026-03-01T00:00:00Z, when the expected turns were written
REFERENCE_OBSERVED_AT = 1772355600  # 2026-03-01T09:00:00Z, weather "observed" for the references
RUN_STARTS = {1: 1772611200, 2: 1772697600, 3: 1772784000}  # 2026-03-04/05/06 08:00:00Z

JUDGE_MODEL = {
    "providerName": "openai",
    "modelName": "${AGENTEVAL_JUDGE_MODEL}",
    "baseURL": "${OPENAI_BASE_URL}",
    "apiKey": "${OPENAI_API_KEY}",
}

# --------------------------------------------------------------------------------------------
# The invented world: weather stations, a company knowledge base, a calculator.
# --------------------------------------------------------------------------------------------

WEATHER: dict[tuple[str, str], tuple[float, str, int]] = {
    # (city, unit): (temperature, condition, humidity %)
    ("Paris", "celsius"): (18, "partly cloudy", 62),
    ("Tokyo", "fahrenheit"): (75, "clear", 55),
    ("Tokyo", "celsius"): (24, "clear", 55),
    ("London", "celsius"): (12, "light rain", 88),
    ("Berlin", "celsius"): (14, "overcast", 70),
    ("Madrid", "celsius"): (27, "sunny", 30),
    ("Rome", "celsius"): (23, "sunny", 45),
    ("Chicago", "fahrenheit"): (41, "windy", 65),
    ("Shanghai", "celsius"): (22, "light rain", 85),
    ("Lisbon", "celsius"): (21, "sunny", 58),
    ("Lisbon", "fahrenheit"): (69.8, "sunny", 58),
    ("Cairo", "celsius"): (34, "sunny", 20),
    ("Oslo", "celsius"): (6, "cloudy", 76),
    ("Sydney", "celsius"): (19, "showers", 81),
    ("Seattle", "fahrenheit"): (52, "drizzle", 90),
}

KB: dict[str, tuple[str, float]] = {
    # id: (text, base retrieval score)
    "hr-pto-004": (
        "Full-time employees accrue 1.75 days of paid time off per month (21 days per year). Up to"
        " 5 unused days can be carried over into the next calendar year; carried-over days expire"
        " on March 31.",
        0.91,
    ),
    "hr-pto-009": (
        "PTO requests of more than 3 consecutive days must be submitted in the HR portal at least"
        " 2 weeks in advance.",
        0.84,
    ),
    "fin-exp-002": (
        "Meals during business travel are reimbursed up to $60 per day with itemized receipts."
        " Alcohol is not reimbursable.",
        0.88,
    ),
    "fin-exp-007": (
        "Expense reports must be filed within 30 days of the expense date in the Expenses app.",
        0.9,
    ),
    "hr-remote-003": (
        "Employees may work remotely up to 3 days per week with manager approval. Core"
        " collaboration hours are 10:00-15:00 local time.",
        0.89,
    ),
    "sec-inc-001": (
        "Report suspected security incidents, including phishing, immediately to"
        " security@example.com or in the #sec-incident channel. Do not investigate on your own.",
        0.93,
    ),
    "hr-onb-002": (
        "On day one, new hires collect their laptop and badge from the IT desk on floor 2 between"
        " 9:00 and 11:00.",
        0.87,
    ),
    "hr-onb-005": (
        "New hires complete the security awareness training within their first 5 business days.",
        0.79,
    ),
    "hr-par-001": (
        "Birth and adoptive parents receive 16 weeks of fully paid parental leave, to be taken"
        " within 12 months of the birth or adoption.",
        0.92,
    ),
    "travel-pd-003": (
        "The per diem for international travel to Portugal is €75 per day for meals and"
        " incidentals.",
        0.86,
    ),
    "hr-pto-cn-001": ("正式员工每年享有 15 天带薪年假，入职满 5 年后增加到 20 天。", 0.9),
    "hr-pto-cn-002": ("未休年假最多可结转 5 天至次年，结转天数须在次年 3 月 31 日前使用。", 0.88),
}

NO_MATCH = "No documents matched the query."


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------------------------
# Tool calls as written in case specs, and what the invented tools return.
# --------------------------------------------------------------------------------------------


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    docs: tuple[str, ...] = ()  # knowledge_search only: ids of the documents returned
    message: str | None = None  # knowledge_search only


def W(city: str, unit: str = "celsius") -> Call:
    return Call("get_weather", {"city": city, "unit": unit})


def C(expression: str) -> Call:
    return Call("calculator", {"expression": expression})


def K(query: str, *docs: str, message: str | None = None) -> Call:
    return Call("knowledge_search", {"query": query}, tuple(docs), message)


def tool_result(call: Call, observed_at: float, jitter: random.Random | None) -> Any:
    if call.name == "get_weather":
        city = call.arguments["city"].split(",")[0].strip()
        temperature, condition, humidity = WEATHER[(city, call.arguments["unit"])]
        return {
            "city": city,
            "condition": condition,
            "humidity": humidity,
            "observed_at": iso(observed_at),
            "temperature": temperature,
            "unit": call.arguments["unit"],
        }
    if call.name == "calculator":
        expression = call.arguments["expression"]
        try:
            value = eval(expression, {"__builtins__": {}}, {})  # fixed expressions from this file
        except SyntaxError:
            return {"error": "invalid syntax near 'x'", "expression": expression}
        return {"expression": expression, "result": value}
    if call.name == "knowledge_search":
        documents = []
        for doc_id in call.docs:
            text, score = KB[doc_id]
            if jitter is not None:  # retrieval scores move a little from run to run
                score = round(score + jitter.uniform(-0.02, 0.02), 3)
            documents.append({"id": doc_id, "score": score, "text": text})
        result: dict[str, Any] = {"documents": documents}
        if call.message is not None:
            result["message"] = call.message
        return result
    raise ValueError(call.name)


# --------------------------------------------------------------------------------------------
# Case specs.
# --------------------------------------------------------------------------------------------


@dataclass
class Turn:
    user: str
    calls: list[Call]
    final: str


@dataclass
class Deviation:
    """What a run recorded differently for one turn (None = same as expected)."""

    calls: list[Call] | None = None
    final: str | None = None


@dataclass
class Case:
    eval_id: str
    turns: list[Turn]
    runs: dict[int, dict[int, Deviation]] = field(default_factory=dict)  # run -> turn -> deviation
    state: dict[str, Any] | None = None
    context: list[tuple[str, str]] | None = None
    rubrics: list[dict[str, Any]] | None = None
    # per turn: the three ways the agent phrased its knowledge_search query in runs 1..3
    queries: dict[int, tuple[str, str, str]] | None = None


EN = {"locale": "en-US"}
ZH = {"locale": "zh-CN"}

CASES: list[Case] = [
    Case(
        "weather_paris_now",
        [
            Turn(
                "What's the weather in Paris right now?",
                [W("Paris")],
                "It's currently 18°C and partly cloudy in Paris, with 62% humidity.",
            ),
            Turn("And what is that in Fahrenheit?", [C("18 * 9 / 5 + 32")], "18°C is 64.4°F."),
        ],
        state=EN,
    ),
    Case(
        "tip_15_percent_on_80",
        [
            Turn(
                "What's a 15% tip on $80?",
                [C("80 * 0.15")],
                "A 15% tip on $80 is $12.00, for a total of $92.00.",
            ),
            Turn(
                "Split the total between 3 people.",
                [C("92 / 3")],
                "Split three ways, each person pays about $30.67.",
            ),
        ],
        state=EN,
    ),
    Case(
        "weather_tokyo_fahrenheit",
        [
            Turn(
                "How warm is it in Tokyo? Please give it in Fahrenheit.",
                [W("Tokyo", "fahrenheit")],
                "It's 75°F and clear in Tokyo.",
            )
        ],
        runs={2: {0: Deviation([W("Tokyo", "celsius")], "It's 24°C and clear in Tokyo.")}},
        state=EN,
    ),
    Case(
        "london_rain_wrong_tool",
        [
            Turn(
                "Is it raining in London at the moment?",
                [W("London")],
                "Yes, there's light rain in London right now, 12°C with 88% humidity.",
            ),
            Turn(
                "Should I take an umbrella then?",
                [],
                "Yes, take an umbrella: light rain and 12°C call for one and a light jacket.",
            ),
        ],
        runs={
            run: {
                0: Deviation(
                    [K("London weather today", message=NO_MATCH)],
                    "I couldn't find current weather information for London.",
                ),
                1: Deviation(
                    None,
                    "I can't tell without current weather data, but London often has rain, so an"
                    " umbrella is a safe bet.",
                ),
            }
            for run in (1, 3)
        },
        state=EN,
    ),
    Case(
        "split_bill_with_tip",
        [
            Turn(
                "Dinner came to $126.40 for 4 of us. How much does each person owe?",
                [C("126.40 / 4")],
                "Each person owes $31.60.",
            ),
            Turn(
                "Actually, add an 18% tip to the total before splitting.",
                [C("126.40 * 1.18 / 4")],
                "With an 18% tip the total is $149.15, so each person owes $37.29.",
            ),
        ],
        state=EN,
    ),
    Case(
        "pto_carryover_policy",
        [
            Turn(
                "How many unused PTO days can I carry over into next year?",
                [K("PTO carryover policy", "hr-pto-004", "hr-pto-009")],
                "You can carry over up to 5 unused PTO days into the next calendar year.",
            ),
            Turn(
                "And when do carried-over days expire?",
                [],
                "Carried-over days expire on March 31 of the following year.",
            ),
        ],
        queries={
            0: (
                "PTO carryover policy",
                "how many unused PTO days carry over next year",
                "unused paid time off carry over limit",
            )
        },
        state=EN,
    ),
    Case(
        "meal_limit_hallucination",
        [
            Turn(
                "What's the daily meal limit when I travel for work?",
                [K("meal reimbursement limit business travel", "fin-exp-002")],
                "Meals on business travel are reimbursed up to $60 per day with itemized receipts;"
                " alcohol isn't reimbursable.",
            )
        ],
        runs={
            run: {
                0: Deviation(
                    None,
                    "Meals on business travel are reimbursed up to $75 per day, and you don't need"
                    " receipts for amounts under $25.",
                )
            }
            for run in (1, 2)
        },
        state=EN,
    ),
    Case(
        "berlin_madrid_order",
        [
            Turn(
                "Compare the weather in Berlin and Madrid today.",
                [W("Berlin"), W("Madrid")],
                "Berlin is 14°C and overcast, while Madrid is 27°C and sunny.",
            ),
            Turn(
                "Which one is warmer, and by how much?",
                [C("27 - 14")],
                "Madrid is warmer, by 13°C.",
            ),
        ],
        runs={run: {0: Deviation([W("Madrid"), W("Berlin")])} for run in (1, 3)},
        state=EN,
    ),
    Case(
        "multiply_extra_call",
        [
            Turn("What is 23 × 47?", [C("23 * 47")], "23 × 47 = 1081."),
            Turn("Now divide that by 7.", [C("1081 / 7")], "1081 ÷ 7 ≈ 154.43."),
        ],
        runs={run: {0: Deviation([C("23 x 47"), C("23 * 47")])} for run in (1, 2)},
        state=EN,
    ),
    Case(
        "rome_missing_tool_call",
        [
            Turn(
                "What's the weather like in Rome today?",
                [W("Rome")],
                "It's 23°C and sunny in Rome today.",
            ),
            Turn(
                "Good for a walk to the Colosseum this afternoon?",
                [],
                "Yes, 23°C and sunny is great walking weather; bring water and sunscreen.",
            ),
        ],
        runs={
            3: {0: Deviation([], "Rome is usually warm and sunny this time of year, around 25°C.")}
        },
        state=EN,
    ),
    Case(
        "sales_tax_wrong_final",
        [
            Turn(
                "How much is 8.25% sales tax on a $249.99 purchase?",
                [C("249.99 * 0.0825")],
                "The sales tax is $20.62, so the total comes to $270.61.",
            ),
            Turn(
                "What if the tax rate were 9.5% instead?",
                [C("249.99 * 0.095")],
                "At 9.5% the tax would be $23.75, for a total of $273.74.",
            ),
        ],
        runs={
            run: {0: Deviation(None, "The sales tax is $26.62, so the total comes to $276.61.")}
            for run in (1, 2, 3)
        },
        state=EN,
    ),
    Case(
        "madrid_sunscreen_embellished",
        [
            Turn(
                "Do I need sunscreen in Madrid today?",
                [W("Madrid")],
                "Yes, it's 27°C and sunny in Madrid, so sunscreen is a good idea.",
            )
        ],
        runs={
            run: {
                0: Deviation(
                    None,
                    "Good question! Yes, it's 27°C and sunny in Madrid, so sunscreen is a good"
                    " idea. Don't forget a hat too.",
                )
            }
            for run in (1, 3)
        },
        state=EN,
    ),
    Case(
        "remote_work_reworded",
        [
            Turn(
                "How many days a week can I work from home?",
                [K("remote work policy days per week", "hr-remote-003")],
                "You can work remotely up to 3 days per week with your manager's approval.",
            ),
            Turn(
                "What are the core hours?",
                [],
                "Core collaboration hours are 10:00-15:00 local time.",
            ),
        ],
        runs={
            run: {
                0: Deviation(
                    None,
                    "With your manager's approval, you can work remotely up to 3 days per week.",
                )
            }
            for run in (1, 2, 3)
        },
        queries={
            0: (
                "remote work policy days per week",
                "work from home days allowed",
                "remote work policy",
            )
        },
        state=EN,
    ),
    Case(
        "chicago_jacket_context",
        [
            Turn(
                "Do I need a jacket today?",
                [W("Chicago", "fahrenheit")],
                "Yes, bring a jacket: it's 41°F and windy in Chicago right now.",
            )
        ],
        runs={2: {0: Deviation([], "Which city are you in? I can check the weather for you.")}},
        context=[
            ("system", "The user is based in Chicago and prefers temperatures in Fahrenheit."),
        ],
        state=EN,
    ),
    Case(
        "onboarding_first_day_rubrics",
        [
            Turn(
                "It's my first day tomorrow. What do I need to do in the morning?",
                [K("new hire first day checklist", "hr-onb-002", "hr-onb-005")],
                "Tomorrow morning, pick up your laptop and badge from the IT desk on floor 2"
                " between 9:00 and 11:00. Within your first 5 business days you also need to"
                " complete the security awareness training.",
            )
        ],
        runs={
            3: {
                0: Deviation(
                    None,
                    "Tomorrow morning, pick up your laptop and badge from the IT desk on floor 2"
                    " between 9:00 and 11:00.",
                )
            }
        },
        rubrics=[
            {
                "metricName": "llm_rubric_response",
                "id": "laptop_pickup",
                "content": {
                    "text": "The answer tells the new hire to collect their laptop and badge from"
                    " the IT desk on floor 2 between 9:00 and 11:00."
                },
                "description": "Day-one pickup instructions are present.",
                "type": "CASE_SPECIFIC",
            },
            {
                "metricName": "llm_rubric_response",
                "id": "training_deadline",
                "content": {
                    "text": "The answer says the security awareness training must be completed"
                    " within the first 5 business days."
                },
                "description": "The training deadline is mentioned.",
                "type": "CASE_SPECIFIC",
            },
        ],
        state=EN,
    ),
    Case(
        "shanghai_weather_zh",
        [
            Turn(
                "上海今天天气怎么样？需要带伞吗？",
                [W("Shanghai")],
                "上海现在 22°C，有小雨，湿度 85%。出门记得带伞。",
            ),
            Turn("换算成华氏度是多少？", [C("22 * 9 / 5 + 32")], "22°C 约等于 71.6°F。"),
        ],
        state=ZH,
    ),
    Case(
        "annual_leave_zh",
        [
            Turn(
                "我每年有多少天年假？",
                [K("年假 天数", "hr-pto-cn-001")],
                "正式员工每年有 15 天带薪年假，入职满 5 年后增加到 20 天。",
            ),
            Turn(
                "没休完的年假可以留到明年吗？",
                [K("年假 结转", "hr-pto-cn-002")],
                "可以，最多结转 5 天到次年，但需要在次年 3 月 31 日前用完。",
            ),
        ],
        runs={2: {1: Deviation(None, "可以，最多结转 10 天到次年。")}},
        state=ZH,
    ),
    Case(
        "float_compare_special_chars",
        [
            Turn(
                "Is 0.1 + 0.2 < 0.3 in floating point? Explain briefly.",
                [C("0.1 + 0.2")],
                "No. In IEEE-754 doubles 0.1 + 0.2 evaluates to 0.30000000000000004, so"
                ' "0.1 + 0.2 < 0.3" is false & the sum is slightly greater than 0.3. It\'s a'
                " rounding artefact: compare with a tolerance, e.g. abs(a - b) < 1e-9.",
            )
        ],
        state=EN,
    ),
    Case(
        "lisbon_trip_three_turns",
        [
            Turn(
                "I'm flying to Lisbon on Friday. What's the weather there?",
                [W("Lisbon")],
                "It's 21°C and sunny in Lisbon right now.",
            ),
            Turn("What's that in Fahrenheit?", [C("21 * 9 / 5 + 32")], "21°C is 69.8°F."),
            Turn(
                "What's my meal per diem in Portugal?",
                [K("international per diem Portugal", "travel-pd-003")],
                "Your per diem in Portugal is €75 per day for meals and incidentals.",
            ),
        ],
        runs={3: {1: Deviation([W("Lisbon", "fahrenheit")])}},
        state=EN,
    ),
    Case(
        "monthly_budget_four_turns",
        [
            Turn(
                "My monthly take-home pay is $4,200. If rent is $1,450, how much is left?",
                [C("4200 - 1450")],
                "After rent you have $2,750 left.",
            ),
            Turn(
                "If I put 20% of what's left into savings, how much is that?",
                [C("2750 * 0.20")],
                "20% of $2,750 is $550.",
            ),
            Turn(
                "And how much remains for everything else?",
                [C("2750 - 550")],
                "That leaves $2,200 for everything else.",
            ),
            Turn(
                "Spread over 30 days, what's my daily budget?",
                [C("2200 / 30")],
                "That's about $73.33 per day.",
            ),
        ],
        runs={2: {3: Deviation([C("2200 / 31")], "That's about $70.97 per day.")}},
        state=EN,
    ),
    Case(
        "security_incident_report",
        [
            Turn(
                "I think I clicked a phishing link. Who do I tell?",
                [K("report security incident phishing", "sec-inc-001")],
                "Report it right away to security@example.com or in the #sec-incident channel,"
                " and don't investigate it yourself.",
            ),
            Turn(
                "Should I do anything else before I report it?",
                [],
                "No, report it first; the security team will tell you what to do next.",
            ),
        ],
        runs={
            2: {
                0: Deviation(None, "You should report it to the security team as soon as possible.")
            }
        },
        state=EN,
    ),
    Case(
        "compound_interest",
        [
            Turn(
                "If I invest $1,000 at 5% annual interest compounded yearly, how much will I have"
                " after 3 years?",
                [C("1000 * (1 + 0.05) ** 3")],
                "After 3 years you'll have $1,157.63.",
            ),
            Turn(
                "And after 10 years?",
                [C("1000 * (1 + 0.05) ** 10")],
                "After 10 years you'll have $1,628.89.",
            ),
        ],
        state=EN,
    ),
    Case(
        "fahrenheit_to_celsius_spacing",
        [
            Turn("Convert 72°F to Celsius.", [C("(72 - 32) * 5 / 9")], "72°F is about 22.2°C."),
            Turn("And 100°F?", [C("(100 - 32) * 5 / 9")], "100°F is about 37.8°C."),
        ],
        runs={1: {0: Deviation([C("(72-32)*5/9")])}},
        state=EN,
    ),
    Case(
        "parental_leave_message",
        [
            Turn(
                "How long is parental leave?",
                [K("parental leave duration", "hr-par-001", message="1 document matched.")],
                "Parents get 16 weeks of fully paid parental leave, to be taken within 12 months"
                " of the birth or adoption.",
            ),
            Turn(
                "Can I split it into two blocks?",
                [
                    K(
                        "parental leave split into blocks",
                        "hr-par-001",
                        message="1 document matched.",
                    )
                ],
                "The policy only says the 16 weeks must be taken within 12 months of the birth or"
                " adoption; it doesn't say whether you can split them, so please confirm with HR.",
            ),
        ],
        state=EN,
    ),
    Case(
        "dogs_policy_no_results",
        [
            Turn(
                "What's the policy on bringing dogs to the office?",
                [K("dogs in the office policy", message=NO_MATCH)],
                "I couldn't find a policy about bringing dogs to the office. Please check with"
                " your office manager or HR.",
            )
        ],
        runs={
            3: {
                0: Deviation(
                    None,
                    "Dogs are allowed in the office on Fridays as long as they are well behaved.",
                )
            }
        },
        state=EN,
    ),
    Case(
        "greeting_then_math",
        [
            Turn(
                "Hi! What can you help me with?",
                [],
                "Hi! I can check the weather, do calculations and look up company policies for"
                " you.",
            ),
            Turn("Great, what's 15% of 240?", [C("240 * 0.15")], "15% of 240 is 36."),
        ],
        runs={2: {0: Deviation([K("assistant capabilities", message=NO_MATCH)])}},
        state=EN,
    ),
    Case(
        "cairo_oslo_difference",
        [
            Turn(
                "What's the temperature difference between Cairo and Oslo right now?",
                [W("Cairo"), W("Oslo"), C("34 - 6")],
                "Cairo is 34°C and Oslo is 6°C, so Cairo is 28°C warmer.",
            )
        ],
        runs={2: {0: Deviation([W("Oslo"), W("Cairo"), C("34 - 6")])}},
        state=EN,
    ),
    Case(
        "mortgage_payment",
        [
            Turn(
                "What's the monthly payment on a $300,000 loan at 6% over 30 years?",
                [C("300000 * (0.005 * (1 + 0.005) ** 360) / ((1 + 0.005) ** 360 - 1)")],
                "The monthly payment is about $1,798.65.",
            ),
            Turn(
                "How much interest is that over the whole loan?",
                [C("1798.65 * 360 - 300000")],
                "You'd pay about $347,514 in interest over 30 years.",
            ),
        ],
        state=EN,
    ),
    Case(
        "expense_deadline_reworded",
        [
            Turn(
                "How long do I have to submit an expense report?",
                [K("expense report deadline", "fin-exp-007")],
                "You need to file expense reports within 30 days of the expense date, using the"
                " Expenses app.",
            ),
            Turn(
                "What's the meal limit on trips?",
                [K("meal reimbursement limit", "fin-exp-002")],
                "Meals on business travel are reimbursed up to $60 per day with itemized receipts.",
            ),
        ],
        runs={
            1: {
                0: Deviation(
                    None,
                    "Expense reports must be filed within 30 days of the expense date in the"
                    " Expenses app.",
                )
            }
        },
        state=EN,
    ),
    Case(
        "sydney_weather_then_tip",
        [
            Turn(
                "What's the weather in Sydney?",
                [W("Sydney")],
                "It's 19°C with showers in Sydney.",
            ),
            Turn(
                "Thanks. Lunch there was AUD 64; what's a 10% tip?",
                [C("64 * 0.10")],
                "A 10% tip on AUD 64 is AUD 6.40.",
            ),
        ],
        state=EN,
    ),
    Case(
        "pto_lead_time_no_search",
        [
            Turn(
                "I want to take 5 days off in July. How far ahead do I need to request it?",
                [K("PTO request advance notice", "hr-pto-009", "hr-pto-004")],
                "Because it's more than 3 consecutive days, submit the request in the HR portal at"
                " least 2 weeks in advance.",
            ),
            Turn("Where do I submit it?", [], "Submit it in the HR portal."),
        ],
        runs={3: {0: Deviation([])}},
        state=EN,
    ),
    Case(
        "seattle_city_argument",
        [
            Turn(
                "Should I bring an umbrella in Seattle this afternoon?",
                [W("Seattle", "fahrenheit")],
                "Yes, bring an umbrella: it's 52°F with drizzle in Seattle.",
            ),
            Turn(
                "How about tomorrow?",
                [],
                "I can only see current conditions, not tomorrow's forecast.",
            ),
        ],
        runs={2: {0: Deviation([W("Seattle, WA", "fahrenheit")])}},
        state={"locale": "en-US", "preferred_unit": "fahrenheit"},
    ),
    Case(
        "paris_wind_hallucination",
        [
            Turn(
                "Will it be windy in Paris this evening?",
                [W("Paris")],
                "The current report for Paris shows 18°C and partly cloudy skies; it has no wind"
                " information, so I can't say how windy it will be this evening.",
            )
        ],
        runs={
            run: {
                0: Deviation(
                    None,
                    "Expect light winds of about 10 km/h in Paris this evening, with 18°C and"
                    " partly cloudy skies.",
                )
            }
            for run in (1, 2)
        },
        state=EN,
    ),
]


# --------------------------------------------------------------------------------------------
# Building the files.
# --------------------------------------------------------------------------------------------


def message(role: str, content: str) -> dict[str, Any]:
    return {"role": role, "content": content}


def expected_turns(case: Case) -> list[dict[str, Any]]:
    turns = []
    for t, turn in enumerate(case.turns):
        tools = []
        for k, call in enumerate(turn.calls):
            observed = REFERENCE_OBSERVED_AT + 60 * CASES.index(case)
            tools.append(
                {
                    "id": f"ref-{case.eval_id}-{t + 1}-{k + 1}",
                    "name": call.name,
                    "arguments": copy.deepcopy(call.arguments),
                    "result": tool_result(call, observed, None),
                }
            )
        inv: dict[str, Any] = {
            "invocationId": f"{case.eval_id}-{t + 1}",
            "userContent": message("user", turn.user),
            "finalResponse": message("assistant", turn.final),
        }
        if tools:
            inv["tools"] = tools
        turns.append(inv)
    return turns


def actual_turns(case: Case, run: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{SEED}:{run}:{case.eval_id}")
    start = RUN_STARTS[run] + 90 * CASES.index(case) + rng.randint(0, 30)
    turns = []
    clock = float(start)
    for t, turn in enumerate(case.turns):
        deviation = case.runs.get(run, {}).get(t, Deviation())
        calls = copy.deepcopy(deviation.calls if deviation.calls is not None else turn.calls)
        if case.queries and t in case.queries:
            for call in calls:
                if call.name == "knowledge_search":
                    call.arguments["query"] = case.queries[t][run - 1]
        tools = []
        for call in calls:
            clock += round(rng.uniform(0.4, 1.6), 3)
            tools.append(
                {
                    "id": "call_" + "".join(rng.choice("0123456789abcdef") for _ in range(24)),
                    "name": call.name,
                    "arguments": call.arguments,
                    "result": tool_result(call, clock - rng.randint(60, 900), rng),
                }
            )
        clock += round(rng.uniform(0.8, 3.5), 3)
        inv: dict[str, Any] = {
            "invocationId": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "userContent": message("user", turn.user),
            "finalResponse": message(
                "assistant", deviation.final if deviation.final is not None else turn.final
            ),
        }
        if tools:
            inv["tools"] = tools
        inv["creationTimestamp"] = round(clock, 3)
        turns.append(inv)
        clock += rng.randint(5, 40)  # the user reads and types the next message
    return turns


def eval_case(case: Case, run: int) -> dict[str, Any]:
    case_rng = random.Random(f"{SEED}:case:{case.eval_id}")
    out: dict[str, Any] = {"evalId": case.eval_id, "evalMode": "trace"}
    if case.context:
        out["contextMessages"] = [message(role, text) for role, text in case.context]
    out["conversation"] = expected_turns(case)
    out["actualConversation"] = actual_turns(case, run)
    session: dict[str, Any] = {"appName": APP, "userId": f"user-{case_rng.randint(1000, 9999)}"}
    if case.state:
        session["state"] = dict(case.state)
    out["sessionInput"] = session
    if case.rubrics:
        out["rubrics"] = copy.deepcopy(case.rubrics)
    out["creationTimestamp"] = CASES_CREATED_AT + 600 * CASES.index(case)
    return out


def eval_set(run: int) -> dict[str, Any]:
    return {
        "evalSetId": APP,  # one eval set, three recorded runs of it
        "name": f"demo_run{run}",
        "description": (
            f"SYNTHETIC traces of the demo_assistant agent, run {run} of {NUM_RUNS}. Generated by"
            " data/make_demo.py with injected defects; not recorded from a real agent."
        ),
        "evalCases": [eval_case(case, run) for case in CASES],
        "creationTimestamp": RUN_STARTS[run] + 3 * 3600,
    }


def trajectory_metric(name: str, ordered: bool) -> dict[str, Any]:
    metric: dict[str, Any] = {"metricName": name}
    if name != "tool_trajectory_avg_score":
        metric["evaluatorName"] = "tool_trajectory_avg_score"
    metric["threshold"] = 1
    exact = {"matchStrategy": "exact"}
    metric["criterion"] = {
        "toolTrajectory": {
            "defaultStrategy": {
                "name": dict(exact),
                "arguments": dict(exact),
                "result": dict(exact),
            },
            "toolStrategy": {
                "get_weather": {
                    "name": dict(exact),
                    "arguments": dict(exact),
                    "result": {"ignoreTree": {"observed_at": True}, "matchStrategy": "exact"},
                },
                "knowledge_search": {
                    "name": dict(exact),
                    "arguments": {"ignoreTree": {"query": True}, "matchStrategy": "exact"},
                    "result": {"ignore": True},
                },
            },
            "orderSensitive": ordered,
            "subsetMatching": False,
        }
    }
    return metric


def final_response_metric(name: str, criterion: dict[str, Any]) -> dict[str, Any]:
    metric: dict[str, Any] = {"metricName": name}
    if name != "final_response_avg_score":
        metric["evaluatorName"] = "final_response_avg_score"
    metric["threshold"] = 1
    metric["criterion"] = {"finalResponse": criterion}
    return metric


def deterministic_metrics() -> list[dict[str, Any]]:
    return [
        trajectory_metric("tool_trajectory_avg_score", ordered=False),
        trajectory_metric("tool_trajectory_ordered", ordered=True),
        final_response_metric(
            "final_response_avg_score",
            {"text": {"caseInsensitive": True, "matchStrategy": "contains"}},
        ),
        final_response_metric("final_response_exact", {"text": {"matchStrategy": "exact"}}),
        final_response_metric(
            "final_response_rouge",
            {"rouge": {"rougeType": "rougeL", "measure": "f1", "threshold": {"f1": 0.5}}},
        ),
    ]


def llm_metrics() -> list[dict[str, Any]]:
    def judge(**extra: Any) -> dict[str, Any]:
        return {**JUDGE_MODEL, **extra}

    return [
        {
            "metricName": "llm_final_response",
            "threshold": 1,
            "criterion": {"llmJudge": {"judgeModel": judge()}},
        },
        {
            "metricName": "llm_rubric_response",
            "threshold": 0.6,
            "criterion": {
                "llmJudge": {
                    "rubrics": [
                        {
                            "id": "direct_answer",
                            "content": {
                                "text": "The final answer directly answers the user's question"
                                " in its first sentence."
                            },
                            "description": "Answers the question that was asked.",
                            "type": "FINAL_RESPONSE_QUALITY",
                        },
                        {
                            "id": "units_and_currency",
                            "content": {
                                "text": "Every temperature, amount of money or duration in the"
                                " final answer states its unit or currency."
                            },
                            "description": "Numbers carry units.",
                            "type": "FINAL_RESPONSE_QUALITY",
                        },
                        {
                            "id": "no_deflection",
                            "content": {
                                "text": "The final answer does not deflect, refuse, or ask a"
                                " clarifying question when the request is clear."
                            },
                            "description": "No needless clarification questions.",
                            "type": "FINAL_RESPONSE_QUALITY",
                        },
                    ],
                    "judgeModel": judge(),
                }
            },
        },
        {
            "metricName": "llm_hallucinations",
            "threshold": 0.8,
            "criterion": {"llmJudge": {"judgeModel": judge()}},
        },
        {
            "metricName": "verifier_pairwise",
            "evaluatorName": "llm_verifier_pairwise",
            "threshold": 0.5,
            "criterion": {
                "llmJudge": {
                    "rubrics": [
                        {
                            "id": "quality",
                            "content": {
                                "text": "The final answer directly satisfies the user's request,"
                                " states correct figures with their units, and makes no claim"
                                " that the tool results do not support."
                            },
                        }
                    ],
                    "judgeModel": judge(
                        generationConfig={
                            "max_tokens": 1200,
                            "temperature": 0,
                            "stream": False,
                            "logprobs": True,
                            "top_logprobs": 20,
                        }
                    ),
                }
            },
        },
    ]


# --------------------------------------------------------------------------------------------
# Go-style encoding.
# --------------------------------------------------------------------------------------------

_MAP_KEYS = ("arguments", "result", "state")  # values of these keys are Go maps: keys sorted


def _go_values(value: Any, sort_keys: bool = False) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, int):
        return value
    if isinstance(value, list):
        return [_go_values(v, sort_keys) for v in value]
    if isinstance(value, dict):
        items = sorted(value.items()) if sort_keys else value.items()
        return {k: _go_values(v, sort_keys or k in _MAP_KEYS) for k, v in items}
    raise TypeError(type(value))


def go_json(value: Any) -> str:
    text = json.dumps(_go_values(value), ensure_ascii=False, indent=2)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text + "\n"


# --------------------------------------------------------------------------------------------
# The agent demo: default-mode cases that `make demo` runs a live (offline) agent on.
# --------------------------------------------------------------------------------------------

AGENT_APP = "travel_agent"
AGENT_CASES: list[tuple[str, list[str]]] = [
    ("weather_paris", ["What is the weather in Paris today?"]),
    ("weather_oslo", ["Is it cold? Tell me the temperature in Oslo."]),
    ("convert_eur_usd", ["Please convert 100 EUR to USD."]),
    ("convert_jpy_gbp", ["Exchange 5000 JPY to GBP for my trip."]),
    ("weather_and_money", ["What is the forecast in Tokyo, and convert 200 USD to JPY?"]),
    ("passport", ["Do I need to check my passport before flying?"]),
    ("luggage", ["How much luggage can I take on board?"]),
    ("weather_madrid", ["Weather in Madrid this afternoon?"]),
    ("london_then_money", ["What is the weather in London?", "Then convert 50 GBP to EUR."]),
    ("visa", ["Where do I find visa rules for Japan?"]),
    ("greeting", ["Hello there!"]),
    ("weather_rome_unknown", ["What is the weather in Rome?"]),
]


def agent_eval_set() -> dict[str, Any]:
    """The travel assistant's eval set: expected tools and answers of a faultless run."""
    from agenteval_nb.testing.travel_agent import expected_turn

    cases = []
    for eval_id, questions in AGENT_CASES:
        turns = []
        for index, question in enumerate(questions, start=1):
            calls, answer = expected_turn(question)
            turn: dict[str, Any] = {
                "invocationId": f"{eval_id}-{index}",
                "userContent": message("user", question),
                "finalResponse": message("assistant", answer),
            }
            if calls:
                turn["tools"] = [
                    {"id": f"expected-{eval_id}-{index}-{n}", **call}
                    for n, call in enumerate(calls, start=1)
                ]
            turns.append(turn)
        cases.append(
            {
                "evalId": eval_id,
                "conversation": turns,
                "sessionInput": {"appName": AGENT_APP, "userId": "demo-traveller"},
                "creationTimestamp": CASES_CREATED_AT,
            }
        )
    return {
        "evalSetId": "travel_agent",
        "name": "travel assistant (run live by make demo)",
        "description": "Default-mode cases: the offline scripted travel agent answers them.",
        "evalCases": cases,
        "creationTimestamp": CASES_CREATED_AT,
    }


def agent_metrics() -> list[dict[str, Any]]:
    exact = {"matchStrategy": "exact"}
    return [
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1,
            "criterion": {
                "toolTrajectory": {
                    "defaultStrategy": {"name": exact, "arguments": exact, "result": exact}
                }
            },
        },
        {
            "metricName": "final_response_avg_score",
            "threshold": 1,
            "criterion": {"finalResponse": {"text": exact}},
        },
        *[
            metric
            for metric in llm_metrics()
            if metric["metricName"] in ("llm_final_response", "verifier_pairwise")
        ],
    ]


def scenario_eval_set() -> dict[str, Any]:
    """Travel booking driven by a simulated user (notebook 07), and one static case whose
    hotel booking is answered by a tool mock."""

    def scenario(eval_id: str, plan: list[str], rubrics: list[tuple[str, str]]) -> dict[str, Any]:
        return {
            "evalId": eval_id,
            "conversationScenario": {
                "conversationPlan": "\n".join(f"{i}. {step}" for i, step in enumerate(plan, 1)),
                "stopSignal": "</finished>",
                "maxAllowedInvocations": 6,
            },
            "sessionInput": {"appName": AGENT_APP, "userId": "demo-traveller"},
            "rubrics": [
                {"metricName": "booking_rubrics", "id": rid, "content": {"text": text}}
                for rid, text in rubrics
            ],
            "creationTimestamp": CASES_CREATED_AT,
        }

    return {
        "evalSetId": "travel_scenarios",
        "name": "travel booking with a simulated user",
        "evalCases": [
            scenario(
                "trip_paris_oslo",
                [
                    'Ask for a flight: "I need a flight from Paris to Oslo on 2026-05-01."',
                    'Ask for a hotel: "Can you book a hotel in Oslo for 2 nights?"',
                    'Thank the assistant: "Thanks, that is all."',
                ],
                [
                    ("flight", "Flight SK832 leaves Paris on 2026-05-01."),
                    ("hotel", "Booked Fjord Inn in Oslo for 2 nights."),
                ],
            ),
            scenario(
                "trip_london_madrid",
                [
                    'Ask for a flight: "Is there a flight from London to Madrid on 2026-06-12?"',
                    'Ask for a hotel: "Please book a hotel in Madrid for 3 nights."',
                ],
                [
                    ("flight", "Flight IB3167 leaves London on 2026-06-12."),
                    ("hotel", "Booked Casa Sol in Madrid for 3 nights."),
                ],
            ),
            {
                "evalId": "hotel_mocked",
                "conversation": [
                    {
                        "invocationId": "hotel_mocked-1",
                        "userContent": message("user", "Please book a hotel in Oslo for 2 nights."),
                        "finalResponse": message(
                            "assistant",
                            "Booked Fjord Inn in Oslo for 2 nights, confirmation MOCK-7.",
                        ),
                        "tools": [
                            {
                                "name": "book_hotel",
                                "arguments": {"city": "Oslo", "nights": 2},
                                "result": {"confirmation": "MOCK-7", "hotel": "Fjord Inn"},
                            }
                        ],
                        "toolMock": {
                            "actual": [
                                {
                                    "name": "book_hotel",
                                    "arguments": {
                                        "expected": {"city": "Oslo"},
                                        "onlyTree": {"city": True},
                                    },
                                    "result": {"confirmation": "MOCK-7", "hotel": "Fjord Inn"},
                                }
                            ]
                        },
                    }
                ],
                "sessionInput": {"appName": AGENT_APP, "userId": "demo-traveller"},
                "rubrics": [
                    {
                        "metricName": "booking_rubrics",
                        "id": "hotel",
                        "content": {"text": "Booked Fjord Inn in Oslo for 2 nights."},
                    }
                ],
                "creationTimestamp": CASES_CREATED_AT,
            },
        ],
        "creationTimestamp": CASES_CREATED_AT,
    }


def scenario_metrics() -> list[dict[str, Any]]:
    return [
        {
            "metricName": "booking_rubrics",
            "evaluatorName": "llm_rubric_response",
            "threshold": 0.5,
            "criterion": {"llmJudge": {"judgeModel": JUDGE_MODEL}},
        }
    ]


def build() -> dict[str, str]:
    """Relative path -> file text of every demo file."""
    files = {}
    files[f"{AGENT_APP}/travel_scenarios.evalset.json"] = go_json(scenario_eval_set())
    files[f"{AGENT_APP}/travel_scenarios.metrics.json"] = go_json(scenario_metrics())
    files[f"{AGENT_APP}/travel_agent.evalset.json"] = go_json(agent_eval_set())
    files[f"{AGENT_APP}/travel_agent.metrics.json"] = go_json(agent_metrics())
    for run in range(1, NUM_RUNS + 1):
        files[f"{APP}/demo_run{run}.evalset.json"] = go_json(eval_set(run))
    files[f"{APP}/demo_deterministic.metrics.json"] = go_json(deterministic_metrics())
    files[f"{APP}/demo.metrics.json"] = go_json(deterministic_metrics() + llm_metrics())
    return files


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parent / "demo", help="output folder"
    )
    args = parser.parse_args(argv)
    for rel, text in build().items():
        path = args.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        print(path)


if __name__ == "__main__":
    main()

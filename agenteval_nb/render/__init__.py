"""Safe HTML views of results, shared by the widgets and the HTML report.

Every function returns :class:`markupsafe.Markup`: untrusted strings are escaped inside, so the
output can be embedded as is (jinja2 autoescape keeps ``Markup`` unchanged).
"""

from .case import invocation_status, render_case, render_invocation
from .judge import HEURISTIC_LABEL, judge_section, samples_table, uses_heuristic
from .messages import final_response_section, messages_section, word_diff
from .metrics import metrics_table, rubrics_table
from .style import STYLESHEET
from .text import text
from .tools import align_tools, diff_values, trajectory_section
from .verifier import distribution_svg, verifier_section

__all__ = [
    "HEURISTIC_LABEL",
    "STYLESHEET",
    "align_tools",
    "diff_values",
    "distribution_svg",
    "final_response_section",
    "invocation_status",
    "judge_section",
    "messages_section",
    "metrics_table",
    "render_case",
    "render_invocation",
    "rubrics_table",
    "samples_table",
    "text",
    "trajectory_section",
    "uses_heuristic",
    "verifier_section",
    "word_diff",
]

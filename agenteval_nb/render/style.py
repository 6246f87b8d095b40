"""The one stylesheet shared by the widget detail pane and the HTML report.

Every rule is scoped under ``.ae`` so the page or notebook around it is not restyled. No fonts,
images or URLs: the report must open offline.
"""

from __future__ import annotations

STYLESHEET = """
.ae { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 13px;
  color: #1f2328; line-height: 1.4; }
.ae h1 { font-size: 20px; margin: 0 0 8px; }
.ae h2 { font-size: 16px; margin: 18px 0 6px; border-bottom: 1px solid #d0d7de; }
.ae h3 { font-size: 14px; margin: 12px 0 4px; }
.ae h4 { font-size: 13px; margin: 8px 0 4px; color: #57606a; }
.ae table { border-collapse: collapse; margin: 4px 0; }
.ae th, .ae td { border: 1px solid #d0d7de; padding: 2px 6px; vertical-align: top;
  text-align: left; }
.ae th { background: #f6f8fa; font-weight: 600; }
.ae td.ae-num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.ae pre, .ae .ae-pre { white-space: pre-wrap; word-break: break-word; margin: 0;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.ae .ae-badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px;
  font-weight: 600; color: #fff; background: #8c959f; }
.ae .ae-pass { background: #1a7f37; }
.ae .ae-fail { background: #cf222e; }
.ae .ae-ne { background: #9a6700; }
.ae .ae-unk { background: #8c959f; }
.ae tr.ae-row-fail td { background: #fff5f5; }
.ae .ae-ctl { border: 1px solid #cf222e; color: #cf222e; font-size: 10px; padding: 0 2px;
  font-family: ui-monospace, monospace; }
.ae .ae-note { color: #57606a; font-style: italic; }
.ae .ae-muted { color: #57606a; }
.ae .ae-heuristic { display: inline-block; background: #fff8c5; color: #7d4e00;
  border: 2px solid #d4a72c; font-weight: 700; padding: 2px 8px; border-radius: 4px; }
.ae .ae-banner { margin: 8px 0; padding: 8px 12px; background: #fff8c5;
  border: 2px solid #d4a72c; color: #7d4e00; font-weight: 700; font-size: 14px; }
.ae .ae-error { color: #cf222e; }
.ae .ae-msg { border-left: 3px solid #d0d7de; padding: 2px 8px; margin: 4px 0; }
.ae .ae-msg-role { font-weight: 600; color: #57606a; font-size: 11px; text-transform: uppercase; }
.ae .ae-side { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.ae .ae-side > div { min-width: 0; overflow-x: auto; }
.ae .ae-pane { border: 1px solid #d0d7de; border-radius: 4px; padding: 4px 8px; }
.ae del { background: #ffebe9; color: #82071e; text-decoration: line-through; }
.ae ins { background: #dafbe1; color: #055d20; text-decoration: none; }
.ae tr.ae-diff td { background: #fff8c5; }
.ae tr.ae-missing td { background: #ffebe9; }
.ae tr.ae-extra td { background: #ddf4ff; }
.ae .ae-chosen { color: #1a7f37; font-weight: 700; }
.ae details { margin: 4px 0; }
.ae details > summary { cursor: pointer; }
.ae details.ae-inv { border: 1px solid #d0d7de; border-radius: 4px; padding: 4px 8px; }
.ae .ae-case { border-left: 4px solid #8c959f; padding-left: 8px; margin: 6px 0; }
.ae .ae-case.ae-case-failed { border-left-color: #cf222e; }
.ae .ae-case.ae-case-passed { border-left-color: #1a7f37; }
.ae .ae-bars { background: #fff; }
.ae .ae-bars rect.ae-bar { fill: #8c959f; }
.ae .ae-bars rect.ae-bar-sel { fill: #0969da; }
.ae .ae-bars text { font-size: 11px; fill: #1f2328; font-family: sans-serif; }
.ae .ae-bars text.ae-val { font-size: 10px; fill: #0550ae; }
.ae .ae-bars text.ae-tick { font-size: 10px; fill: #57606a; }
.ae .ae-bars line { stroke: #d0d7de; stroke-width: 1; }
.ae .ae-charts { display: flex; flex-wrap: wrap; gap: 16px; }
.ae .ae-chart { display: inline-block; max-width: 400px; font-size: 12px; }
.ae .ae-legend { font-size: 12px; color: #57606a; margin: 2px 0 6px; }
.ae .ae-key { display: inline-block; width: 10px; height: 10px; background: #8c959f;
  vertical-align: middle; }
.ae .ae-key.ae-key-sel { background: #0969da; }
.ae mark.ae-hit { background: #ffd33d; color: inherit; padding: 0 1px; border-radius: 2px; }
.ae .ae-plot svg { max-width: 100%; height: auto; }
.ae .ae-source code { font-size: 11px; }
.ae .ae-gap { display: inline-block; background: #fff8c5; color: #7d4e00; padding: 0 4px;
  border-radius: 4px; font-size: 11px; }
.ae .ae-capture ul { margin: 4px 0 0 0; padding-left: 18px; }
.ae .ae-capture-fix { color: #7d4e00; }
"""

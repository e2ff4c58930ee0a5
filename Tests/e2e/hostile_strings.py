"""Hostile strings run through every side output (issue #21): markup, Markdown syntax,
entities, bidi overrides, formula starts and number look-alikes. None holds a control
character (ids with those are refused; see test_hostile.py)."""

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[click](javascript:alert(3))",
    "![i](https://evil.example/x.png)",
    "<a href=\"javascript:alert(4)\">a</a>",
    "**bold** _em_ ~~gone~~",
    "`tick` ``two`` | pipe |",
    "<!-- hidden --> &amp; &lt;b&gt;",
    "# heading",
    "1. list item",
    "- bullet",
    "> quote",
    "back\\slash\\",
    "=HYPERLINK(\"https://evil.example\",\"x\")",
    "+1-2",
    "@SUM(A1)",
    "-nan(SUM)",
    "\u202egnp.exe",
    "<style>body{display:none}</style>",
    "x<br>y",
]

# Participant ids are 1–12 characters (docs/recall-events.md): short hostile ones.
HOSTILE_IDS = [
    "<b>x</b>", "=HYPERLINK(", "-nan(SUM)", "@SUM(A1)", "+1-2", "*a*_b_", "[x](y)", "`t`|p|",
    "# h", "&amp;x", "\u202eexe.gpj", "1. li", "<!--", "~~s~~",
]

"""What an interactive page carries inline: its data as JSON, its own script and the vendored
charting library, each as the text of a ``<script>`` element.

The data is written as a JSON script block (``type="application/json"``), which a browser
never runs; the page's script reads it with ``JSON.parse``. Inside a script element only
``</script`` (and the ``<!--`` that would begin an escaped text state) can end or change it,
so every ``<``, ``>`` and ``&`` of the JSON is written as a ``\\u`` escape, which JSON reads
back as the same character: a flow named ``</script><script>…`` stays text. The page's
script puts every name into the page with ``textContent``, never as markup.
"""

from __future__ import annotations

import json
from importlib import resources

from markupsafe import Markup

JSON_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)

SCRIPT_END = "</script"

VENDORED = {"chart.js": ("vendor", "chart.umd.min.js", "4.6.1")}
"""The third-party scripts a page may inline: name → folder, file and version
(``vendor/README.md`` says where each comes from)."""


def script_json(data: object) -> Markup:
    """``data`` as JSON safe to place inside a ``<script type="application/json">``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return Markup(text.translate(JSON_ESCAPES))


def script_file(folder: str, name: str, *, package: str = "qoslab.report") -> Markup:
    """The text of a script shipped with ``package`` (``static/queue.js``,
    ``vendor/chart.umd.min.js``), to place inside a ``<script>`` element."""
    text = resources.files(package).joinpath(folder, name).read_text(encoding="utf-8")
    if SCRIPT_END in text.lower():
        raise ValueError(f"{folder}/{name} holds {SCRIPT_END}, which would end its element")
    return Markup(text)


def vendored(name: str) -> Markup:
    """A vendored library's script by name (:data:`VENDORED`)."""
    folder, file, _ = VENDORED[name]
    return script_file(folder, file)

"""mkdocs hook: render the Sphinx roles of our docstrings (``:class:`X```) as plain code.

mkdocstrings renders docstrings as Markdown, so ``:class:`Outcome``` arrives in
the page as ``:class:<code>Outcome</code>``; this drops the role prefix.
Configured under ``hooks:`` in mkdocs.yml (and excluded from the pages).
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html: str, **kwargs: Any) -> str:
    """Strip ``:role:`` in front of inline code in every rendered page."""
    return _ROLE.sub("", html)

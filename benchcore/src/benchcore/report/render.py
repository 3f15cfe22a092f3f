"""ReportView / IndexView -> one self-contained HTML page. Pure apart from reading
the package's own templates and CSS.

Jinja2 is imported here only, so commands other than ``render`` never pay for
it. Autoescaping is on for every template and undefined names raise, so a
typo in a template fails loudly instead of printing nothing. The CSS is the
real file ``report.css``, included into a ``<style>`` element by the template:
template source is emitted as is, while every value from a view (outputs,
rationales, quotes, stderr, commands, case ids) is escaped.
"""

from __future__ import annotations

import functools
from importlib import resources

import jinja2
import markupsafe
from attrs import frozen

from . import fmt

from .index import IndexView
from .view.page import ReportView

_PACKAGE = "benchcore.report"


@frozen
class ModelSection:
    model: str
    anchor: str
    html: object  # markupsafe.Markup: a report body rendered (and escaped) by report.html.j2


@frozen
class ModelsView:
    title: str
    skill: str
    sections: tuple[ModelSection, ...]
    generated_at: str
    version: str


def _load(name: str) -> str:
    """A template or the CSS, from the package data (works from a wheel or a zip too)."""
    source = resources.files(_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    if name.endswith(".css"):
        # The stylesheet is inlined into <style> verbatim: it must not be able to close
        # the element, nor the raw block that keeps Jinja from reading it.
        if "</" in source or "endraw" in source:
            raise ValueError(f"{name} contains '</' or 'endraw'; it cannot be inlined")
        return "{% raw %}" + source + "{% endraw %}"
    return source


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(_load),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_report(view: ReportView) -> str:
    """``<skill>.html``."""
    return _environment().get_template("report.html.j2").render(v=view)


def render_models(title: str, skill: str, sections, generated_at: str, version: str) -> str:
    """``<skill>.html`` of a multi-model skill: one report body per model (``sections`` = (model, ReportView)),
    each under its model's heading, with the ids of each body prefixed by its model's anchor so that links
    inside one section stay inside it."""
    import re

    env = _environment()
    body = env.get_template("report.html.j2")
    parts = []
    for model, view in sections:
        anchor = fmt.model_anchor(model)
        ctx = body.new_context({"v": view})
        html = "".join(body.blocks["body"](ctx))
        # Only the template writes id=", aria-labelledby=" and href="#: every value in a view is escaped.
        html = re.sub(r'(\s(?:id|aria-labelledby)=")', r"\g<1>" + anchor + "-", html)
        html = html.replace('href="#', 'href="#' + anchor + "-")
        parts.append(ModelSection(model=model, anchor=anchor, html=markupsafe.Markup(html)))
    return env.get_template("models.html.j2").render(v=ModelsView(
        title=title, skill=skill, sections=tuple(parts), generated_at=generated_at, version=version))


def render_index(view: IndexView) -> str:
    """``index.html``."""
    return _environment().get_template("index.html.j2").render(v=view)

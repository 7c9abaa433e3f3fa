"""The web application of ``qoslab serve``: one page to edit a scenario or paste IOS
configuration and see the results change, served on the loopback interface only.

Starlette routes two addresses: ``GET /`` the page, ``POST /run`` one evaluation
(:meth:`qoslab.serve.workbench.Workbench.evaluate`), answered with the results as HTML
rendered by the server from the report's own templates (autoescaped) and the errors with
their places as JSON. The page's script posts on every edit, a moment after typing stops.

There are no accounts; what guards the server is where it listens and whom it answers. It
binds 127.0.0.1 only. It answers only requests whose ``Host`` is that address (or
``localhost``) with its port, which a page of another site reached through a rebound DNS
name does not send, and only posts that carry the token written into its own page, which
another site cannot read; a post must be JSON, which a browser sends across sites only
after a preflight the server does not grant.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, PackageLoader
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request as HttpRequest
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from qoslab.report.embed import script_file, script_json, vendored
from qoslab.report.pages import html_environment
from qoslab.serve.workbench import AS_WRITTEN, Request, Workbench

LOOPBACK = "127.0.0.1"
TOKEN_HEADER = "x-qoslab-token"
MAX_BODY_BYTES = 4 * 1024 * 1024
"""The largest post taken: a scenario and a configuration, with room to spare."""


def environment() -> Environment:
    """The serve templates, with the report's (tables, the answer) beside them."""
    shared = html_environment("qoslab.report", trim_blocks=True, lstrip_blocks=True)
    shared.loader = ChoiceLoader(
        [PackageLoader("qoslab.serve", "templates"), PackageLoader("qoslab.report", "templates")]
    )
    return shared


def make_app(scenario: Path, port: int) -> Starlette:
    """The application for ``scenario``, answering requests addressed to ``port``."""
    bench = Workbench(scenario)
    pages = environment()
    token = secrets.token_urlsafe(24)
    hosts = {f"{LOOPBACK}:{port}", f"localhost:{port}"}

    def addressed_to_us(request: HttpRequest) -> bool:
        return request.headers.get("host", "") in hosts

    async def page(request: HttpRequest) -> Response:
        if not addressed_to_us(request):
            return PlainTextResponse("not this server's address", status_code=421)
        html = pages.get_template("serve.html.j2").render(
            name=scenario.name,
            path=str(scenario),
            text=bench.text,
            policies=bench.policies,
            interfaces=bench.interfaces,
            as_written=AS_WRITTEN,
            page_js=script_file("static", "serve.js", package="qoslab.serve"),
            chart_js=vendored("chart.js"),
            settings=script_json({"token": token}),
        )
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    async def run(request: HttpRequest) -> Response:
        if not addressed_to_us(request):
            return PlainTextResponse("not this server's address", status_code=421)
        if not secrets.compare_digest(request.headers.get(TOKEN_HEADER, ""), token):
            return PlainTextResponse("a post must come from the page", status_code=403)
        if request.headers.get("content-type", "").split(";")[0] != "application/json":
            return PlainTextResponse("a post is JSON", status_code=415)
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return PlainTextResponse("too large", status_code=413)
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return PlainTextResponse("too large", status_code=413)
        try:
            asked = _request(await request.json())
        except (ValueError, TypeError) as error:
            return JSONResponse({"html": "", "errors": [_message(str(error))]}, status_code=400)
        outcome = await run_in_threadpool(bench.evaluate, asked)
        html = pages.get_template("outcome.html.j2").render(outcome=outcome)
        errors = [
            {"editor": e.editor, "line": e.line, "column": e.column, "message": e.message}
            for e in outcome.errors
        ]
        return JSONResponse(
            {
                "html": html,
                "errors": errors,
                "chart": outcome.chart(),
                "elapsed_ms": outcome.elapsed_ms,
            }
        )

    return Starlette(routes=[Route("/", page), Route("/run", run, methods=["POST"])])


def _message(text: str) -> dict:
    return {"editor": "scenario", "line": 0, "column": 0, "message": text}


def _request(body: object) -> Request:
    """The evaluation a post asks for; ``ValueError`` for one that is not well formed."""
    if not isinstance(body, dict):
        raise ValueError("the post is not a JSON object")
    text = body.get("scenario")
    if not isinstance(text, str):
        raise ValueError("the post has no scenario text")
    compare = body.get("compare", [AS_WRITTEN])
    if not isinstance(compare, list) or not all(isinstance(name, str) for name in compare):
        raise ValueError("compare: a list of configuration names")
    target = body.get("target_pct", 95.0)
    if not isinstance(target, int | float) or not 0 <= target <= 100:
        raise ValueError("target_pct: a share from 0 to 100")
    fields = {name: body.get(name, "") for name in ("interface", "ios", "ios_interface")}
    if not all(isinstance(value, str) for value in fields.values()):
        raise ValueError("interface, ios and ios_interface are text")
    return Request(scenario=text, compare=tuple(compare), target_pct=float(target), **fields)

"""The local preview server of `cardc watch`: the built reference and gallery on 127.0.0.1, with live reload.

Pages are served from the build's output as they are on disk, with one small script added on the way out
(never written into the output): it listens on `/__cardc__/events` (server-sent events) and reloads the
page after a successful rebuild, or shows the diagnostics of a failed one as a banner over the last good
pages. The banner is filled with `textContent`, so no diagnostic text is ever read as markup.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

EVENTS = "/__cardc__/events"
STATE = "/__cardc__/state"
HEARTBEAT_S = 10.0

LIVE_SCRIPT = """<script id="cardc-live">(() => {
  const shown = %(build)d;
  const render = (state) => {
    let bar = document.getElementById("cardc-banner");
    const problems = state.diagnostics || [];
    if (!problems.length) { if (bar) bar.remove(); return; }
    if (!bar) {
      bar = document.createElement("div");
      bar.id = "cardc-banner";
      bar.setAttribute("role", "alert");
      bar.style.cssText = "position:fixed;top:0;left:0;right:0;z-index:2147483647;max-height:40vh;overflow:auto;" +
        "margin:0;padding:.6em 1em;font:13px/1.4 ui-monospace,monospace;white-space:pre-wrap;" +
        "background:" + (state.ok ? "#fff4d6;color:#5c4400" : "#ffe3e3;color:#7a0000") +
        ";border-bottom:2px solid currentColor";
      document.body.prepend(bar);
    }
    bar.textContent = state.summary + "\\n\\n" + problems.join("\\n\\n");
  };
  const events = new EventSource("%(events)s");
  events.onmessage = (message) => {
    const state = JSON.parse(message.data);
    if (state.build !== shown) { events.close(); location.reload(); return; }
    render(state);
  };
})();</script>"""

NOT_BUILT = ('<!doctype html><html><head><meta charset="utf-8"><title>cardc watch</title></head><body>'
             "<p>This page is not built (yet). It reloads itself once the content builds.</p></body></html>")


@dataclass
class PreviewState:
    """What the pages are told: the number of the build on disk, and the latest check's problems."""

    build: int = 0
    ok: bool = True
    summary: str = ""
    diagnostics: list[str] = field(default_factory=list)  # rendered as in the terminal
    changed: threading.Condition = field(default_factory=threading.Condition)
    version: int = 0  # counts every change, so waiting pages wake up for banners too

    def publish(self, *, built: bool, ok: bool, summary: str, diagnostics: list[str]) -> None:
        with self.changed:
            if built:
                self.build += 1
            self.ok, self.summary, self.diagnostics = ok, summary, diagnostics
            self.version += 1
            self.changed.notify_all()

    def as_json(self) -> str:
        return json.dumps({"build": self.build, "ok": self.ok, "summary": self.summary,
                           "diagnostics": self.diagnostics}, ensure_ascii=False)

    def _moved_on(self, seen: int, stop: threading.Event) -> bool:
        return self.version != seen or stop.is_set()

    def changes(self, stop: threading.Event) -> Iterator[str | None]:
        """The state now, then after every change; None as a heartbeat while nothing changes."""
        with self.changed:
            seen = self.version
            first = self.as_json()
        yield first
        while not stop.is_set():
            with self.changed:
                self.changed.wait_for(partial(self._moved_on, seen, stop), timeout=HEARTBEAT_S)
                if self.version == seen:
                    data = None
                else:
                    seen = self.version
                    data = self.as_json()
            yield data


class _Handler(SimpleHTTPRequestHandler):
    state: PreviewState
    stop: threading.Event

    def __init__(self, *args: Any, state: PreviewState, stop: threading.Event, **kwargs: Any) -> None:
        self.state = state
        self.stop = stop
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal is for diagnostics, not access logs

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")  # a reload must show the new build
        super().end_headers()

    def list_directory(self, path: str | Any) -> None:
        self.send_error(HTTPStatus.NOT_FOUND, "no listing")
        return None

    def do_GET(self) -> None:
        route = self.path.split("?", 1)[0]
        if route == EVENTS:
            self._events()
        elif route == STATE:
            self._send(self.state.as_json().encode("utf-8"), "application/json; charset=utf-8")
        elif route.endswith(".html") or route.endswith("/"):
            self._html()
        else:
            super().do_GET()

    def _send(self, body: bytes, content_type: str, status: HTTPStatus = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _html(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        status = HTTPStatus.OK
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            # not built (yet): a page that still listens, so it shows the problems and reloads once built
            status = HTTPStatus.NOT_FOUND
            text = NOT_BUILT
        script = LIVE_SCRIPT % {"build": self.state.build, "events": EVENTS}
        at = text.rfind("</body>")
        text = text[:at] + script + text[at:] if at >= 0 else text + script
        self._send(text.encode("utf-8"), "text/html; charset=utf-8", status)

    def _events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for data in self.state.changes(self.stop):
                self.wfile.write(b": alive\n\n" if data is None else f"data: {data}\n\n".encode())
                self.wfile.flush()
        except OSError:
            return  # the page went away


class PreviewServer:
    """Serves `folder` on 127.0.0.1:`port` (0: any free port) in a background thread."""

    def __init__(self, folder: Path, state: PreviewState, port: int = 0) -> None:
        self.stop = threading.Event()
        self.state = state
        handler = partial(_Handler, directory=str(folder), state=state, stop=self.stop)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="cardc-preview", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        self.stop.set()
        with self.state.changed:
            self.state.changed.notify_all()  # event streams end now, not at their next heartbeat
        self.httpd.shutdown()
        self.httpd.server_close()

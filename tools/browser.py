"""Serve a built site on loopback and drive Debian's Chromium: shared by the tests, the PDF
printer and the benchmarks.

Chromium comes from ``CHROMIUM`` (default: Debian's headless shell of Chromium,
``/usr/bin/chromium-headless-shell``, else Debian's Chromium, ``/usr/bin/chromium``);
Playwright's own browser download is never used.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """A browser that leaves a page closes the connections of what it was still loading:
        not an error of the server (anything else is reported as usual)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(directory: str | Path, port: int = 0) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1; yield the base URL (ends with ``/``).

    Args:
        directory: The folder to serve (a built site).
        port: The port to listen on; 0 (the default) takes a free one.

    Raises:
        ValueError: If ``directory`` is not a folder.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"directory must be an existing folder; got {str(directory)!r}")
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _Server(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


#: Where Debian installs Chromium, the first that exists the default: its headless shell
#: (package ``chromium-headless-shell``: the engine without the browser's window, tabs and
#: profile, which loads and prints pages for less work than the full browser run headless), then
#: the browser itself (package ``chromium``).
CHROMIUM_DEFAULTS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")


def chromium_path() -> str:
    """The Chromium binary: ``CHROMIUM`` if set, else the first of :data:`CHROMIUM_DEFAULTS`
    that exists.

    Raises:
        FileNotFoundError: If there is no Chromium at that path.
    """
    path = os.environ.get("CHROMIUM") or next(
        (p for p in CHROMIUM_DEFAULTS if Path(p).is_file()), CHROMIUM_DEFAULTS[0]
    )
    if not Path(path).is_file():
        raise FileNotFoundError(
            f"Chromium not found at {path!r}: install it (Debian: apt-get install "
            f"chromium-headless-shell) or set CHROMIUM=/path/to/chromium"
        )
    return path


def launch_chromium(playwright):
    """Launch headless Chromium (:func:`chromium_path`) through Playwright's sync API; with its
    async API, ``await playwright.chromium.launch(**chromium_options())`` does the same.

    Raises:
        FileNotFoundError: If there is no Chromium at that path.
    """
    return playwright.chromium.launch(**chromium_options())


def chromium_options() -> dict:
    """The keyword arguments that launch Debian's Chromium headless, with no downloads."""
    return {"executable_path": chromium_path(), "args": CHROMIUM_ARGS}


@contextlib.contextmanager
def serve_in_child(directory: str | Path, port: int = 0) -> Iterator[str]:
    """:func:`serve` in a child process of its own: yield the base URL (ends with ``/``).

    A server in the caller's process answers every request a browser makes in Python threads
    that take turns with the caller's: while a browser loads page after page, the caller's
    own work waits for them. In a process of its own the server takes nothing from it.

    Args:
        directory: The folder to serve (a built site).
        port: The port to listen on; 0 (the default) takes a free one.

    Raises:
        ValueError: If ``directory`` is not a folder.
        OSError: If the server could not listen on ``port``.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"directory must be an existing folder; got {str(directory)!r}")
    cmd = [sys.executable, "-m", "tools.browser", str(directory), "--port", str(port)]
    root = Path(__file__).resolve().parent.parent
    # its errors go to a file: a pipe nobody reads while it serves could fill and stop it
    errors = tempfile.TemporaryFile(mode="w+")
    child = subprocess.Popen(
        cmd, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True
    )
    try:
        url = child.stdout.readline().strip()
        if not url:
            child.wait(timeout=30)
            errors.seek(0)
            raise OSError(f"the server of {directory} did not start: {errors.read().strip()}")
        yield url
    finally:
        child.stdin.close()  # the server stops when its input ends
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdout.close()
        errors.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m tools.browser DIR [--port N]``: serve ``DIR`` on 127.0.0.1 until the
    standard input ends (a parent that exits ends it too); the first line written is the base
    URL."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tools.browser", description=main.__doc__)
    parser.add_argument("directory", type=Path, help="the folder to serve (a built site)")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    args = parser.parse_args(argv)
    with serve(args.directory, args.port) as url:
        print(url, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())

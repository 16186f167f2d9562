"""A small client of the Chrome DevTools protocol for the console's browser
test (test_console.py): starts Debian's headless Chromium on a free port,
opens one page, and records every JavaScript console error, uncaught
exception and browser log error while the test drives it.

Only Debian packages: chromium and python3-websocket."""

import base64
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time

import websocket


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """Headless Chromium with one page, driven over the DevTools protocol."""

    def __init__(self, width=1280, height=900):
        # Chromium's helper processes may still write the profile when the
        # browser has exited: its removal ignores what they leave behind.
        self.profile = tempfile.TemporaryDirectory(
            prefix="keywise-chromium-", ignore_cleanup_errors=True)
        self.log = open(os.path.join(self.profile.name, "chromium.log"), "w+")
        self.proc = subprocess.Popen(
            [chromium_binary(), "--headless=new", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             "--user-data-dir=" + self.profile.name,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True)  # its helpers in its process group
        port_file = pathlib.Path(self.profile.name) / "DevToolsActivePort"
        deadline = time.time() + 30
        while not port_file.exists() or len(port_file.read_text().split()) < 2:
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("chromium did not start:\n" + self.output())
            time.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        self.ws = websocket.create_connection(
            "ws://127.0.0.1:%s%s" % (port, path), timeout=30,
            suppress_origin=True)
        self.next_id = 0
        self.errors = []  # JavaScript errors seen, as text
        target = self.call("Target.createTarget", url="about:blank")
        self.session = self.call("Target.attachToTarget",
                                 targetId=target["targetId"],
                                 flatten=True)["sessionId"]
        for domain in ("Runtime", "Log", "Page"):
            self.page(domain + ".enable")
        self.page("Emulation.setDeviceMetricsOverride", width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def _record(self, message):
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append("uncaught exception: %s" % text)
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [a.get("value", a.get("description", "")) for a in params.get("args", [])]
            self.errors.append("console.%s: %s" % (params["type"], " ".join(map(str, args))))
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append("log error: %s %s" % (entry.get("text"), entry.get("url", "")))

    def call(self, method, session=None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self._record(reply)

    def page(self, method, **params):
        return self.call(method, session=self.session, **params)

    def evaluate(self, expression):
        result = self.page("Runtime.evaluate", expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("evaluating %r: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    def wait_for(self, expression, timeout=20):
        """Polls `expression` until it is truthy; returns its value."""
        deadline = time.time() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError("timed out waiting for %s; errors: %s; status: %s" % (
                    expression, self.errors,
                    self.evaluate("(document.getElementById('status')||{}).textContent")))
            time.sleep(0.1)

    def open(self, url):
        """Navigates and waits until the page says it rendered its data."""
        self.page("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete' && "
                      "document.location.href === %s" % json.dumps(url))
        self.wait_for("document.body && document.body.dataset.ready === '1'")

    def screenshot(self, path):
        data = self.page("Page.captureScreenshot", format="png")["data"]
        pathlib.Path(path).write_bytes(base64.b64decode(data))

    def mouse(self, kind, x, y):
        self.page("Input.dispatchMouseEvent", type=kind, x=x, y=y,
                  button="left" if kind != "mouseMoved" else "none",
                  clickCount=1 if kind != "mouseMoved" else 0)

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            try:  # the helpers too
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.log.close()
            self.profile.cleanup()
